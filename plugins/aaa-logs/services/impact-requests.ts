/**
 * The distinct requests of a window, for the change-impact replay (issue 33): the database groups
 * the log rows by what the request was (who, which device, how, which command), counts them and
 * keeps the last answer the daemon logged, so a week of traffic reaches the evaluator as one row per
 * distinct request. Read through `database.read` (the log replica when one is configured): the
 * past a few seconds stale is fine.
 *
 * The last answer is the greatest of one text array per row whose first element is the row's time
 * (fixed-width digits, so text order is time order): one pass, no sort inside a group.
 *
 * A time budget (`signal`) cancels the running statement (report-kit's `reportStatement`); what the
 * statements before it grouped is answered, `truncated`.
 */
import { reportStatement, type DatabaseReader, type DatabaseService } from '../../../sdk/index.js'
import type { DistinctRadiusRequest, DistinctRequests, DistinctTacacsRequest, ImpactRequestsQuery, LoggedAnswer } from '../api.js'

/** The most distinct requests one call returns, whatever `limit` asks. */
export const IMPACT_REQUESTS_MAX = 2_000_000

type Last = [string, string | null, string | null, string | null, string | null, string | null]
interface Grouped {
  events: string | number
  permitted: string | number
  last_seen: Date | string
  last: Last
}

const LAST_TIME = `to_char(timestamp AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS')`
/** ORDER BY of every statement: the most frequent first, then the most recent (the limit cuts the rest). */
const ORDER = 'ORDER BY events DESC, last_seen DESC'

const TACACS_AUTHN = `SELECT username, host(nas_ip) AS nas_ip, authen_type, count(*) AS events, count(*) FILTER (WHERE status = 'success') AS permitted,
    max(timestamp) AS last_seen, max(ARRAY[${LAST_TIME}, status, rule_name, profile, result_code, message]) AS last
  FROM aaa_log_tacacs_authn WHERE timestamp > ? AND timestamp <= ?
  GROUP BY username, nas_ip, authen_type ${ORDER} LIMIT ?`

const TACACS_AUTHZ = `SELECT username, host(nas_ip) AS nas_ip, service, command, priv_lvl, arguments, count(*) AS events, count(*) FILTER (WHERE action = 'permit') AS permitted,
    max(timestamp) AS last_seen, max(ARRAY[${LAST_TIME}, action, rule_name, profile, result_code, NULL]) AS last
  FROM aaa_log_tacacs_authz WHERE timestamp > ? AND timestamp <= ?
  GROUP BY username, nas_ip, service, command, priv_lvl, arguments ${ORDER} LIMIT ?`

/**
 * Rows ingested before migration 0008 have no nac_method: their auth_type (PEAP, EAP-TLS, MAB) says it.
 * The MAC is part of an 802.1X/MAB request (the endpoint), not of a device-administration login.
 */
const RADIUS_AUTH = `SELECT username, nas_ip, auth_type, nac_method, nac_user, calling_station_id, nas_port_type, count(*) AS events, count(*) FILTER (WHERE status = 'accept') AS permitted,
    max(timestamp) AS last_seen, max(last) AS last
  FROM (SELECT coalesce(outer_identity, username) AS username, host(nas_ip) AS nas_ip, auth_type, m.nac_method, nac_user,
          CASE WHEN m.nac_method IS NULL THEN NULL ELSE calling_station_id END AS calling_station_id, nas_port_type, status, timestamp,
          ARRAY[${LAST_TIME}, status, rule_name, rule_label, reject_reason, reason] AS last
        FROM aaa_log_radius_auth,
          LATERAL (SELECT coalesce(nac_method, CASE auth_type WHEN 'PEAP' THEN 'peap' WHEN 'EAP-TLS' THEN 'eap-tls' WHEN 'MAB' THEN 'mab' END) AS nac_method) m
       WHERE timestamp > ? AND timestamp <= ?) r
  GROUP BY username, nas_ip, auth_type, nac_method, nac_user, calling_station_id, nas_port_type ${ORDER} LIMIT ?`

const num = (v: string | number | null): number => Number(v ?? 0)
const answer = (l: Last, permitted: boolean): LoggedAnswer => ({ permitted, rule_name: l[2], profile: l[3], result_code: l[4], message: l[5] })
const common = (r: Grouped, passed: string) => ({ events: num(r.events), permitted: num(r.permitted), last_seen: new Date(r.last_seen), last: answer(r.last, r.last[1] === passed) })

type Statement<T> = { sql: string; map: (row: never) => T }

/**
 * Runs the statements one after another on one reader, each bounded by `limit + 1`; stops at the
 * first the budget cancels. Then the most frequent `limit` of them all.
 */
async function distinct<T extends { events: number; last_seen: Date }>(database: DatabaseService, q: ImpactRequestsQuery, statements: Statement<T>[]): Promise<DistinctRequests<T>> {
  const started = Date.now()
  const limit = Math.max(0, Math.min(IMPACT_REQUESTS_MAX, Math.floor(q.limit)))
  if (limit === 0 || !(q.from < q.to)) return { items: [], truncated: false, scan_ms: 0, lag_ms: null }
  const signal = q.signal ?? new AbortController().signal
  let cut = false
  const { items, lag } = await database.read(async (reader: DatabaseReader) => {
    const out: T[] = []
    cut = false
    for (const s of statements) {
      if (signal.aborted) {
        cut = true
        break
      }
      try {
        const rows = await reportStatement<never>({ reader, signal }, s.sql, [q.from.toISOString(), q.to.toISOString(), limit + 1])
        if (rows.length > limit) cut = true
        for (const r of rows) out.push(s.map(r))
      } catch (e) {
        // The budget ran out under this statement: answer what the others grouped.
        if (!signal.aborted) throw e
        cut = true
        break
      }
    }
    return { items: out, lag: reader.lagMs }
  })
  if (statements.length > 1) items.sort((a, b) => b.events - a.events || b.last_seen.getTime() - a.last_seen.getTime())
  if (items.length > limit) {
    cut = true
    items.length = limit
  }
  return { items, truncated: cut, scan_ms: Date.now() - started, lag_ms: lag }
}

type TacacsAuthnRow = Grouped & { username: string; nas_ip: string | null; authen_type: string | null }
type TacacsAuthzRow = Grouped & { username: string; nas_ip: string | null; service: string | null; command: string | null; priv_lvl: number | string | null; arguments: string[] | null }
type RadiusRow = Grouped & Omit<DistinctRadiusRequest, 'events' | 'permitted' | 'last_seen' | 'last'>

export function tacacsImpactRequests(database: DatabaseService, q: ImpactRequestsQuery): Promise<DistinctRequests<DistinctTacacsRequest>> {
  return distinct<DistinctTacacsRequest>(database, q, [
    {
      sql: TACACS_AUTHN,
      map: (r: TacacsAuthnRow) => ({ kind: 'authentication', username: r.username, nas_ip: r.nas_ip, authen_type: r.authen_type, service: null, command: null, priv_lvl: null, arguments: [], ...common(r, 'success') }),
    },
    {
      sql: TACACS_AUTHZ,
      map: (r: TacacsAuthzRow) => ({
        kind: 'authorization',
        username: r.username,
        nas_ip: r.nas_ip,
        authen_type: null,
        service: r.service,
        command: r.command,
        priv_lvl: r.priv_lvl === null ? null : Number(r.priv_lvl),
        arguments: r.arguments ?? [],
        ...common(r, 'permit'),
      }),
    },
  ])
}

export function radiusImpactRequests(database: DatabaseService, q: ImpactRequestsQuery): Promise<DistinctRequests<DistinctRadiusRequest>> {
  return distinct<DistinctRadiusRequest>(database, q, [
    {
      sql: RADIUS_AUTH,
      map: (r: RadiusRow) => ({
        username: r.username,
        nas_ip: r.nas_ip,
        auth_type: r.auth_type,
        nac_method: r.nac_method,
        nac_user: r.nac_user,
        calling_station_id: r.calling_station_id,
        nas_port_type: r.nas_port_type,
        ...common(r, 'accept'),
      }),
    },
  ])
}
