/**
 * Endpoint groups' placement rules: a profiled endpoint without a static group
 * joins the first group (by name) placing its device type, and leaves a placed
 * group when its type no longer matches. Static membership (set by an admin or
 * an import: `endpoint_group_placed` false with a group) is never moved.
 */
import type { Knex } from 'knex'
import { GROUPS } from './rows.js'

export interface Placements {
  /** The group placing this device type (case-insensitively), or null. */
  target(deviceType: string | null): string | null
}

export async function loadPlacements(db: Knex | Knex.Transaction): Promise<Placements> {
  const groups = await db(GROUPS).orderBy('name').orderBy('id').select('id', 'placement_device_types')
  const byType = new Map<string, string>()
  for (const g of groups) for (const t of g.placement_device_types ?? []) if (!byType.has(t.toLowerCase())) byType.set(t.toLowerCase(), g.id)
  return { target: (t) => (t ? (byType.get(t.toLowerCase()) ?? null) : null) }
}

/** The group an endpoint ends in: its static group, else the placement of its type. */
export function placedGroup(p: Placements, e: { endpoint_group_id: string | null; endpoint_group_placed: boolean }, deviceType: string | null): { endpoint_group_id: string | null; placed: boolean } {
  if (e.endpoint_group_id && !e.endpoint_group_placed) return { endpoint_group_id: e.endpoint_group_id, placed: false }
  const g = p.target(deviceType)
  return { endpoint_group_id: g, placed: g !== null }
}
