/**
 * The nac plugin's listener of the RADIUS records the aaa-logs ingester commits
 * (aaa-logs api.ts `registerRecordListener`). Per batch, in one transaction:
 * 1. sightings: every record with a Calling-Station-Id MAC creates its endpoint
 *    or moves its last seen, NAS, port and (auth) result — `recordSighting`,
 *    batch-wise: one statement for the batch's MACs;
 * 2. profiling: the records' evidence (evidence.ts) is merged into what was
 *    known of each endpoint; where it changed (or the endpoint is new) the
 *    rules decide its device type (profiler.ts), unless an admin set it, and
 *    the groups' placement rules its group (placement.ts);
 * 3. sessions from accounting and the grants of accepts (sessions.ts).
 * After the commit, the endpoints whose type or group changed go to the
 * "endpoint authorization changed" listeners (the CoA sender).
 */
import { isIP } from 'node:net'
import type { Knex } from 'knex'
import type { FreeradiusAcctEvent, FreeradiusAuthEvent, RadiusLogRecord } from '../../aaa-logs/api.js'
import type { EndpointAuthorizationChange } from '../api.js'
import { recordEvidence, type Evidence } from './evidence.js'
import type { AuthorizationEvents } from './events.js'
import { normalizeMac } from './mac.js'
import { ouiVendor } from './oui.js'
import { loadPlacements } from './placement.js'
import { loadRules } from './profiler.js'
import { applyAccounting, applyGrants } from './sessions.js'
import { decide, writeVerdicts } from './verdicts.js'

const clip = (s: string | null | undefined, max: number): string | null => {
  if (!s) return null
  const t = s.replace(/[\u0000-\u001f\u007f]/g, ' ').trim()
  return t ? t.slice(0, max) : null
}

interface Seen {
  mac: string
  vendor: string | null
  first_at: string
  last_at: string
  nas_ip: string | null
  nas_port: string | null
  result: 'accept' | 'reject' | null
  evidence: Evidence
}

interface UpsertedEndpoint {
  id: string
  mac: string
  vendor: string | null
  device_type: string | null
  device_type_confidence: number | null
  device_type_reason: string | null
  device_type_manual: boolean
  endpoint_group_id: string | null
  endpoint_group_placed: boolean
  last_nas_ip: string | null
  last_nas_port: string | null
  inserted: boolean
}

/** What the batch saw of each MAC: the latest sighting, the first time, the evidence (later records win). */
function collect(records: readonly RadiusLogRecord[]): Map<string, Seen> {
  const seen = new Map<string, Seen>()
  for (const r of records) {
    const e = r.event
    const mac = e.callingStationId ? normalizeMac(e.callingStationId) : null
    if (!mac) continue
    let s = seen.get(mac)
    if (!s) {
      s = { mac, vendor: ouiVendor(mac), first_at: e.timestamp, last_at: e.timestamp, nas_ip: null, nas_port: null, result: null, evidence: {} }
      seen.set(mac, s)
    }
    if (e.timestamp < s.first_at) s.first_at = e.timestamp
    if (e.timestamp >= s.last_at) {
      s.last_at = e.timestamp
      s.nas_ip = e.nasIp && isIP(e.nasIp) ? e.nasIp : s.nas_ip
      s.nas_port = clip(e.nasPortId ?? e.nasPort, 64) ?? s.nas_port
      if (r.kind === 'auth') s.result = r.event.result
    }
    Object.assign(s.evidence, recordEvidence(e.ciscoAvPairs, e.nasPortType))
  }
  return seen
}

async function upsertSightings(trx: Knex.Transaction, seen: Map<string, Seen>): Promise<UpsertedEndpoint[]> {
  const rows = [...seen.values()].map(({ evidence: _e, ...s }) => s)
  const { rows: out } = (await trx.raw(
    `INSERT INTO nac_endpoints AS e (mac, vendor, first_seen_at, last_seen_at, last_nas_ip, last_nas_port, last_auth_result)
     SELECT v.mac, v.vendor, v.first_at, v.last_at, v.nas_ip, v.nas_port, v.result
     FROM jsonb_to_recordset(?::jsonb) AS v(mac text, vendor text, first_at timestamptz, last_at timestamptz, nas_ip text, nas_port text, result text)
     ON CONFLICT (mac) DO UPDATE SET
       first_seen_at = LEAST(coalesce(e.first_seen_at, EXCLUDED.first_seen_at), EXCLUDED.first_seen_at),
       last_nas_ip = CASE WHEN e.last_seen_at IS NULL OR EXCLUDED.last_seen_at >= e.last_seen_at THEN coalesce(EXCLUDED.last_nas_ip, e.last_nas_ip) ELSE e.last_nas_ip END,
       last_nas_port = CASE WHEN e.last_seen_at IS NULL OR EXCLUDED.last_seen_at >= e.last_seen_at THEN coalesce(EXCLUDED.last_nas_port, e.last_nas_port) ELSE e.last_nas_port END,
       last_auth_result = CASE WHEN e.last_seen_at IS NULL OR EXCLUDED.last_seen_at >= e.last_seen_at THEN coalesce(EXCLUDED.last_auth_result, e.last_auth_result) ELSE e.last_auth_result END,
       last_seen_at = GREATEST(coalesce(e.last_seen_at, EXCLUDED.last_seen_at), EXCLUDED.last_seen_at)
     RETURNING e.id, e.mac, e.vendor, e.device_type, e.device_type_confidence, e.device_type_reason, e.device_type_manual,
       e.endpoint_group_id, e.endpoint_group_placed, e.last_nas_ip, e.last_nas_port, (e.xmax::text = '0') AS inserted`,
    [JSON.stringify(rows)],
  )) as { rows: UpsertedEndpoint[] }
  return out
}

/** Stored evidence merged with the batch's; the rows whose evidence changed are written back. */
async function mergeEvidence(trx: Knex.Transaction, endpoints: UpsertedEndpoint[], seen: Map<string, Seen>): Promise<Map<string, { evidence: Evidence; changed: boolean }>> {
  const out = new Map<string, { evidence: Evidence; changed: boolean }>()
  // An endpoint this batch created has nothing stored yet: only known ones are read.
  const withNew = endpoints.filter((e) => !e.inserted && Object.keys(seen.get(e.mac)!.evidence).length)
  const stored = new Map<string, Evidence>()
  for (let i = 0; i < withNew.length; i += 5000) {
    const ids = withNew.slice(i, i + 5000).map((e) => e.id)
    for (const r of await trx('nac_endpoint_evidence').whereIn('endpoint_id', ids).select('endpoint_id', 'evidence')) stored.set(r.endpoint_id, r.evidence)
  }
  const writes: { endpoint_id: string; evidence: Evidence }[] = []
  for (const e of endpoints) {
    const before = stored.get(e.id) ?? {}
    const fresh = seen.get(e.mac)!.evidence
    const merged: Evidence = { ...before, ...fresh }
    const changed = Object.entries(fresh).some(([k, v]) => before[k as keyof Evidence] !== v)
    if (changed) writes.push({ endpoint_id: e.id, evidence: merged })
    out.set(e.id, { evidence: merged, changed })
  }
  if (writes.length) {
    await trx.raw(
      `INSERT INTO nac_endpoint_evidence AS x (endpoint_id, evidence, updated_at)
       SELECT v.endpoint_id, v.evidence, now() FROM jsonb_to_recordset(?::jsonb) AS v(endpoint_id uuid, evidence jsonb)
       ON CONFLICT (endpoint_id) DO UPDATE SET evidence = EXCLUDED.evidence, updated_at = now()`,
      [JSON.stringify(writes)],
    )
  }
  return out
}

export interface ObserverStats {
  batches: number
  records: number
  profiled: number
  changes: number
}

export function createRecordObserver(knex: Knex, events: AuthorizationEvents): { listener: (records: readonly RadiusLogRecord[]) => Promise<void>; stats: ObserverStats } {
  const stats: ObserverStats = { batches: 0, records: 0, profiled: 0, changes: 0 }
  const listener = async (records: readonly RadiusLogRecord[]) => {
    const changes: EndpointAuthorizationChange[] = []
    await knex.transaction(async (trx) => {
      const seen = collect(records)
      if (seen.size) {
        const endpoints = await upsertSightings(trx, seen)
        const evidence = await mergeEvidence(trx, endpoints, seen)
        const due = endpoints.filter((e) => !e.device_type_manual && (e.inserted || evidence.get(e.id)!.changed))
        if (due.length) {
          const [rules, placements] = await Promise.all([loadRules(trx), loadPlacements(trx)])
          const d = decide(rules, placements, due.map((e) => ({ e, evidence: evidence.get(e.id)!.evidence })), 'profiling')
          await writeVerdicts(trx, d.updates)
          changes.push(...d.changes)
          stats.profiled += due.length
        }
      }
      const acct = records.filter((r): r is Extract<RadiusLogRecord, { kind: 'acct' }> => r.kind === 'acct').map((r) => r.event as FreeradiusAcctEvent)
      const auth = records.filter((r): r is Extract<RadiusLogRecord, { kind: 'auth' }> => r.kind === 'auth').map((r) => r.event as FreeradiusAuthEvent)
      if (auth.length) await applyGrants(trx, auth)
      if (acct.length) await applyAccounting(trx, acct)
    })
    stats.batches++
    stats.records += records.length
    stats.changes += changes.length
    await events.emit(changes)
  }
  return { listener, stats }
}
