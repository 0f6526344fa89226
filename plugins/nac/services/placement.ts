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

/**
 * Applies the placement rules as they are now to every endpoint they may move (profiled, without a
 * static group), after a group's rules changed. Returns the endpoints that moved, for the events.
 */
export async function replaceAll(trx: Knex.Transaction): Promise<{ id: string; mac: string; device_type: string | null; before: string | null; after: string | null; last_nas_ip: string | null; last_nas_port: string | null }[]> {
  const p = await loadPlacements(trx)
  const rows = await trx('nac_endpoints')
    .where((w) => w.where('endpoint_group_placed', true).orWhere((x) => x.whereNull('endpoint_group_id').whereNotNull('device_type')))
    .forUpdate()
    .select('id', 'mac', 'device_type', 'endpoint_group_id', 'endpoint_group_placed', 'last_nas_ip', 'last_nas_port')
  const moves = rows
    .map((r) => ({ r, g: placedGroup(p, r, r.device_type) }))
    .filter(({ r, g }) => g.endpoint_group_id !== r.endpoint_group_id || g.placed !== r.endpoint_group_placed)
  for (let i = 0; i < moves.length; i += 5000) {
    const chunk = moves.slice(i, i + 5000).map(({ r, g }) => ({ id: r.id, group_id: g.endpoint_group_id, placed: g.placed }))
    await trx.raw(
      `UPDATE nac_endpoints AS e SET endpoint_group_id = v.group_id, endpoint_group_placed = v.placed, updated_at = now()
       FROM jsonb_to_recordset(?::jsonb) AS v(id uuid, group_id uuid, placed boolean) WHERE e.id = v.id`,
      [JSON.stringify(chunk)],
    )
  }
  return moves
    .filter(({ r, g }) => g.endpoint_group_id !== r.endpoint_group_id)
    .map(({ r, g }) => ({ id: r.id, mac: r.mac, device_type: r.device_type, before: r.endpoint_group_id, after: g.endpoint_group_id, last_nas_ip: r.last_nas_ip, last_nas_port: r.last_nas_port }))
}
