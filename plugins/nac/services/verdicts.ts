/**
 * From evidence to what is written: the rules' verdict and the placement for
 * each endpoint, the rows that change, and the authorization changes they make.
 * Shared by the record listener (observe.ts) and the re-profiling route.
 */
import type { Knex } from 'knex'
import type { EndpointAuthorizationChange } from '../api.js'
import type { Evidence } from './evidence.js'
import { authorizationChanged } from './events.js'
import { placedGroup, type Placements } from './placement.js'
import { profile, type ProfilingRule } from './profiler.js'

/** What the decision reads of an endpoint. */
export interface Candidate {
  id: string
  mac: string
  vendor: string | null
  device_type: string | null
  device_type_confidence: number | null
  device_type_reason: string | null
  endpoint_group_id: string | null
  endpoint_group_placed: boolean
  last_nas_ip: string | null
  last_nas_port: string | null
}

export interface VerdictUpdate {
  id: string
  device_type: string | null
  confidence: number | null
  reason: string | null
  group_id: string | null
  placed: boolean
}

/** The updates (rows that change) and the authorization changes, for endpoints whose type profiling decides (not hand-set ones). */
export function decide(rules: readonly ProfilingRule[], placements: Placements, list: readonly { e: Candidate; evidence: Evidence }[], cause: EndpointAuthorizationChange['cause']): { updates: VerdictUpdate[]; changes: EndpointAuthorizationChange[] } {
  const updates: VerdictUpdate[] = []
  const changes: EndpointAuthorizationChange[] = []
  for (const { e, evidence } of list) {
    const v = profile(rules, { ...evidence, ...(e.vendor ? { vendor: e.vendor } : {}) })
    const type = v?.device_type ?? null
    const g = placedGroup(placements, e, type)
    const same = type === e.device_type && (v?.confidence ?? null) === e.device_type_confidence && (v?.reason ?? null) === e.device_type_reason
    if (same && g.endpoint_group_id === e.endpoint_group_id && g.placed === e.endpoint_group_placed) continue
    updates.push({ id: e.id, device_type: type, confidence: v?.confidence ?? null, reason: v?.reason ?? null, group_id: g.endpoint_group_id, placed: g.placed })
    const before = { device_type: e.device_type, endpoint_group_id: e.endpoint_group_id }
    const after = { device_type: type, endpoint_group_id: g.endpoint_group_id }
    if (authorizationChanged(before, after)) changes.push({ endpoint_id: e.id, mac: e.mac, cause, before, after, last_nas_ip: e.last_nas_ip, last_nas_port: e.last_nas_port })
  }
  return { updates, changes }
}

/** Writes the verdicts, 5,000 rows a statement; a hand-set type is left alone whatever the caller read. */
export async function writeVerdicts(trx: Knex.Transaction, updates: readonly VerdictUpdate[]): Promise<void> {
  for (let i = 0; i < updates.length; i += 5000) {
    await trx.raw(
      `UPDATE nac_endpoints AS e SET device_type = v.device_type, device_type_confidence = v.confidence, device_type_reason = v.reason,
         endpoint_group_id = v.group_id, endpoint_group_placed = v.placed, updated_at = now()
       FROM jsonb_to_recordset(?::jsonb) AS v(id uuid, device_type text, confidence int, reason text, group_id uuid, placed boolean)
       WHERE e.id = v.id AND NOT e.device_type_manual`,
      [JSON.stringify(updates.slice(i, i + 5000))],
    )
  }
}
