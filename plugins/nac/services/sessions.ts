/**
 * Sessions from accounting (docs/nac.md "Sessions"): one row per NAS and
 * Acct-Session-Id. Start and Interim-Update open or update it, Stop ends it,
 * Accounting-On/Off (the NAS restarted) ends the NAS's live ones. Records may
 * arrive late or twice: times only widen (start earliest, update latest),
 * counters only grow, an ended session stays ended. The VLAN and ACL come from
 * the NAS's latest Access-Accept for the MAC before the session started
 * (nac_auth_grants), whichever of the two records is ingested first.
 */
import { isIP } from 'node:net'
import type { Knex } from 'knex'
import type { FreeradiusAcctEvent, FreeradiusAuthEvent } from '../../aaa-logs/api.js'
import { normalizeMac } from './mac.js'

/** How long before an accept a session may start and still be that accept's (NAS clocks, log order). */
const GRANT_SLACK_S = 60

const clip = (s: string | null | undefined, max: number): string | null => {
  if (!s) return null
  const t = s.replace(/[\u0000-\u001f\u007f]/g, ' ').trim()
  return t ? t.slice(0, max) : null
}
const ip = (s: string | null | undefined) => (s && isIP(s) ? s : null)

/** The SQL of a session's state (live, stale, ended), for lists and filters. */
export const SESSION_STATE_SQL = `(CASE WHEN nac_sessions.stopped_at IS NOT NULL THEN 'ended'
  WHEN nac_sessions.last_update_at < now() - interval '1 second' * LEAST(86400, coalesce(2 * nac_sessions.interim_interval, 86400)) THEN 'stale'
  ELSE 'live' END)`

interface Delta {
  nas_ip: string
  acct_session_id: string
  mac: string | null
  username: string | null
  nas_port: string | null
  nas_port_type: string | null
  framed_ip: string | null
  started_at: string
  last_update_at: string
  stopped_at: string | null
  input_octets: string | null
  output_octets: string | null
  session_time: number | null
  /** The gap between two updates seen in this batch (s): the interim interval, when no accept said it. */
  observed_interval: number | null
}

const maxNum = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : BigInt(a) >= BigInt(b) ? a : b)

/** Folds a batch's accounting records into one change per session, and the NAS restarts. */
export function foldAccounting(events: readonly FreeradiusAcctEvent[]): { deltas: Delta[]; restarts: { nas_ip: string; at: string }[] } {
  const byKey = new Map<string, Delta>()
  const restarts: { nas_ip: string; at: string }[] = []
  for (const e of events) {
    const nas = ip(e.nasIp)
    if (!nas) continue
    const status = e.acctStatusType.toLowerCase()
    if (status === 'accounting-on' || status === 'accounting-off' || status === '7' || status === '8') {
      restarts.push({ nas_ip: nas, at: e.timestamp })
      continue
    }
    const sid = clip(e.acctSessionId, 128)
    if (!sid) continue
    const isStop = status === 'stop' || status === '2'
    const isStart = status === 'start' || status === '1'
    if (!isStop && !isStart && status !== 'interim-update' && status !== '3') continue
    // An update's session began session_time seconds earlier (Start's own time when we see it).
    const begun = isStart || e.sessionTime === null ? e.timestamp : new Date(Date.parse(e.timestamp) - e.sessionTime * 1000).toISOString()
    const k = `${nas}\u0000${sid}`
    const d = byKey.get(k)
    const mac = e.callingStationId ? normalizeMac(e.callingStationId) : null
    if (!d) {
      byKey.set(k, {
        nas_ip: nas,
        acct_session_id: sid,
        mac,
        username: clip(e.username, 253),
        nas_port: clip(e.nasPortId ?? e.nasPort, 64),
        nas_port_type: clip(e.nasPortType, 32),
        framed_ip: ip(e.framedIp),
        started_at: begun,
        last_update_at: e.timestamp,
        stopped_at: isStop ? e.timestamp : null,
        input_octets: e.inputOctets,
        output_octets: e.outputOctets,
        session_time: e.sessionTime,
        observed_interval: null,
      })
      continue
    }
    if (!isStop && !d.stopped_at && e.timestamp > d.last_update_at) d.observed_interval ??= Math.round((Date.parse(e.timestamp) - Date.parse(d.last_update_at)) / 1000)
    if (begun < d.started_at) d.started_at = begun
    if (e.timestamp > d.last_update_at) d.last_update_at = e.timestamp
    if (isStop) d.stopped_at ??= e.timestamp
    d.mac ??= mac
    d.username ??= clip(e.username, 253)
    d.nas_port ??= clip(e.nasPortId ?? e.nasPort, 64)
    d.nas_port_type ??= clip(e.nasPortType, 32)
    d.framed_ip = ip(e.framedIp) ?? d.framed_ip
    d.input_octets = maxNum(d.input_octets, e.inputOctets)
    d.output_octets = maxNum(d.output_octets, e.outputOctets)
    d.session_time = e.sessionTime === null ? d.session_time : Math.max(d.session_time ?? 0, e.sessionTime)
  }
  return { deltas: [...byKey.values()], restarts }
}

/** One batch of accounting, in the caller's transaction. */
export async function applyAccounting(trx: Knex.Transaction, events: readonly FreeradiusAcctEvent[]): Promise<void> {
  const { deltas, restarts } = foldAccounting(events)
  if (deltas.length) {
    await trx.raw(
      `INSERT INTO nac_sessions AS s (nas_ip, acct_session_id, mac, username, nas_port, nas_port_type, framed_ip, vlan, acl, interim_interval,
         started_at, last_update_at, stopped_at, input_octets, output_octets, session_time)
       SELECT v.nas_ip, v.acct_session_id, v.mac, v.username, v.nas_port, v.nas_port_type, v.framed_ip, g.vlan, g.acl,
         coalesce(g.interim_interval, v.observed_interval), v.started_at, v.last_update_at, v.stopped_at, v.input_octets, v.output_octets, v.session_time
       FROM jsonb_to_recordset(?::jsonb) AS v(nas_ip text, acct_session_id text, mac text, username text, nas_port text, nas_port_type text, framed_ip text,
         started_at timestamptz, last_update_at timestamptz, stopped_at timestamptz, input_octets bigint, output_octets bigint, session_time int, observed_interval int)
       LEFT JOIN nac_auth_grants g ON g.mac = v.mac AND g.nas_ip = v.nas_ip AND g.at <= v.started_at + interval '${GRANT_SLACK_S} seconds'
       ON CONFLICT (nas_ip, acct_session_id) DO UPDATE SET
         mac = coalesce(s.mac, EXCLUDED.mac),
         username = coalesce(s.username, EXCLUDED.username),
         nas_port = coalesce(s.nas_port, EXCLUDED.nas_port),
         nas_port_type = coalesce(s.nas_port_type, EXCLUDED.nas_port_type),
         framed_ip = CASE WHEN EXCLUDED.last_update_at >= s.last_update_at THEN coalesce(EXCLUDED.framed_ip, s.framed_ip) ELSE coalesce(s.framed_ip, EXCLUDED.framed_ip) END,
         vlan = coalesce(s.vlan, EXCLUDED.vlan),
         acl = coalesce(s.acl, EXCLUDED.acl),
         interim_interval = coalesce(s.interim_interval, EXCLUDED.interim_interval,
           CASE WHEN s.stopped_at IS NULL AND EXCLUDED.stopped_at IS NULL AND EXCLUDED.last_update_at > s.last_update_at
             THEN extract(epoch FROM EXCLUDED.last_update_at - s.last_update_at)::int END),
         started_at = LEAST(s.started_at, EXCLUDED.started_at),
         last_update_at = GREATEST(s.last_update_at, EXCLUDED.last_update_at),
         stopped_at = coalesce(s.stopped_at, EXCLUDED.stopped_at),
         input_octets = GREATEST(s.input_octets, EXCLUDED.input_octets),
         output_octets = GREATEST(s.output_octets, EXCLUDED.output_octets),
         session_time = GREATEST(s.session_time, EXCLUDED.session_time)`,
      [JSON.stringify(deltas)],
    )
  }
  // A NAS that restarted (Accounting-On/Off) has lost every session it had open.
  for (const r of restarts) {
    await trx.raw(`UPDATE nac_sessions SET stopped_at = ?, last_update_at = GREATEST(last_update_at, ?) WHERE nas_ip = ? AND stopped_at IS NULL AND started_at <= ?`, [r.at, r.at, r.nas_ip, r.at])
  }
}

/** What an accept gave: the VLAN (Tunnel-Private-Group-Id), the ACL or role, the interim interval. */
export function grantOf(e: FreeradiusAuthEvent): { vlan: string | null; acl: string | null; interim_interval: number | null } {
  let vlan: string | null = null
  let acl: string | null = null
  let role: string | null = null
  let interim: number | null = null
  for (const a of e.replyAttributes) {
    const name = a.name.split(':')[0]
    if (name === 'Tunnel-Private-Group-Id') vlan ??= clip(a.value, 64)
    else if (name === 'Filter-Id') acl ??= clip(a.value, 253)
    else if (name === 'Aruba-User-Role') role ??= clip(a.value, 253)
    else if (name === 'Cisco-AVPair' && /^(ip:inacl#|ACS:CiscoSecure-Defined-ACL=)/.test(a.value)) acl ??= clip(a.value, 253)
    else if (name === 'Acct-Interim-Interval' && /^\d{1,7}$/.test(a.value)) interim = Number(a.value)
  }
  return { vlan, acl: acl ?? role, interim_interval: interim }
}

/** One batch's accepts: the grants (latest per MAC and NAS), and the live sessions that started with them. */
export async function applyGrants(trx: Knex.Transaction, events: readonly FreeradiusAuthEvent[]): Promise<void> {
  const latest = new Map<string, { mac: string; nas_ip: string; at: string; vlan: string | null; acl: string | null; interim_interval: number | null }>()
  for (const e of events) {
    if (e.result !== 'accept') continue
    const mac = e.callingStationId ? normalizeMac(e.callingStationId) : null
    const nas = ip(e.nasIp)
    if (!mac || !nas) continue
    const k = `${mac}\u0000${nas}`
    const cur = latest.get(k)
    if (!cur || e.timestamp >= cur.at) latest.set(k, { mac, nas_ip: nas, at: e.timestamp, ...grantOf(e) })
  }
  if (!latest.size) return
  const json = JSON.stringify([...latest.values()])
  await trx.raw(
    `INSERT INTO nac_auth_grants AS g (mac, nas_ip, at, vlan, acl, interim_interval)
     SELECT v.mac, v.nas_ip, v.at, v.vlan, v.acl, v.interim_interval
     FROM jsonb_to_recordset(?::jsonb) AS v(mac text, nas_ip text, at timestamptz, vlan text, acl text, interim_interval int)
     ON CONFLICT (mac, nas_ip) DO UPDATE SET at = EXCLUDED.at, vlan = EXCLUDED.vlan, acl = EXCLUDED.acl, interim_interval = EXCLUDED.interim_interval
     WHERE EXCLUDED.at >= g.at`,
    [json],
  )
  // The accounting of these accepts may have been ingested first (another file): their sessions get what the accept gave.
  await trx.raw(
    `UPDATE nac_sessions AS s SET vlan = v.vlan, acl = v.acl, interim_interval = coalesce(v.interim_interval, s.interim_interval)
     FROM jsonb_to_recordset(?::jsonb) AS v(mac text, nas_ip text, at timestamptz, vlan text, acl text, interim_interval int)
     WHERE s.mac = v.mac AND s.nas_ip = v.nas_ip AND s.vlan IS NULL AND s.acl IS NULL AND s.started_at + interval '${GRANT_SLACK_S} seconds' >= v.at
       AND (v.vlan IS NOT NULL OR v.acl IS NOT NULL)`,
    [json],
  )
}
