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

/**
 * The `only` filter: the caller's users (lower-case) or a NAS address within its prefixes. One
 * JSON array and one inet[] literal as bindings (a list of `?` would be one binding per name).
 */
const onlyFilter = (user: string, only: NonNullable<ImpactRequestsQuery['only']>) =>
  ` AND (lower(${user}) IN (SELECT jsonb_array_elements_text(?::jsonb)) OR nas_ip <<= ANY(?::inet[])${only.usernames.some((u) => /[^\x01-\x7f]/.test(u)) ? NON_ASCII(user) : ''})`
/** lower() lowers ASCII only under the C collation: a name beyond ASCII is kept whatever its case. */
const NON_ASCII = (user: string) => ` OR ${user} ~ '[^\\x01-\\x7f]'`
const onlyBindings = (only: NonNullable<ImpactRequestsQuery['only']>) => [JSON.stringify(only.usernames), `{${only.prefixes.map((p) => `"${p}"`).join(',')}}`]

const tacacsAuthn = (only: string) => `SELECT username, host(nas_ip) AS nas_ip, authen_type, count(*) AS events, count(*) FILTER (WHERE status = 'success') AS permitted,
    max(timestamp) AS last_seen, max(ARRAY[${LAST_TIME}, status, rule_name, profile, result_code, message]) AS last
  FROM aaa_log_tacacs_authn WHERE timestamp > ? AND timestamp <= ?${only}
  GROUP BY username, nas_ip, authen_type ${ORDER} LIMIT ?`

const tacacsAuthz = (only: string) => `SELECT username, host(nas_ip) AS nas_ip, service, command, priv_lvl, arguments, count(*) AS events, count(*) FILTER (WHERE action = 'permit') AS permitted,
    max(timestamp) AS last_seen, max(ARRAY[${LAST_TIME}, action, rule_name, profile, result_code, NULL]) AS last
  FROM aaa_log_tacacs_authz WHERE timestamp > ? AND timestamp <= ?${only}
  GROUP BY username, nas_ip, service, command, priv_lvl, arguments ${ORDER} LIMIT ?`

/** Rows ingested before migration 0008 have no nac_method: their auth_type (PEAP, EAP-TLS, MAB) says it. */
const NAC_METHOD = `coalesce(nac_method, CASE auth_type WHEN 'PEAP' THEN 'peap' WHEN 'EAP-TLS' THEN 'eap-tls' WHEN 'MAB' THEN 'mab' END)`

/** The MAC is part of an 802.1X/MAB request (the endpoint), not of a device-administration login. */
const radiusAuth = (only: string) => `SELECT username, nas_ip, auth_type, nac_method, nac_user, calling_station_id, nas_port_type, count(*) AS events, count(*) FILTER (WHERE status = 'accept') AS permitted,
    max(timestamp) AS last_seen, max(last) AS last
  FROM (SELECT coalesce(outer_identity, username) AS username, host(nas_ip) AS nas_ip, auth_type, m.nac_method, nac_user,
          CASE WHEN m.nac_method IS NULL THEN NULL ELSE calling_station_id END AS calling_station_id, nas_port_type, status, timestamp,
          ARRAY[${LAST_TIME}, status, rule_name, rule_label, reject_reason, reason] AS last
        FROM aaa_log_radius_auth,
          LATERAL (SELECT ${NAC_METHOD} AS nac_method) m
       WHERE timestamp > ? AND timestamp <= ?${only}) r
  GROUP BY username, nas_ip, auth_type, nac_method, nac_user, calling_station_id, nas_port_type ${ORDER} LIMIT ?`

/** The real requests of the window, for the caller to count the ones outside `only` (a count, no grouping). */
const TACACS_EVENTS = `SELECT (SELECT count(*) FROM aaa_log_tacacs_authn WHERE timestamp > ? AND timestamp <= ?)
  + (SELECT count(*) FROM aaa_log_tacacs_authz WHERE timestamp > ? AND timestamp <= ?) AS n`
const RADIUS_EVENTS = `SELECT count(*) AS n FROM aaa_log_radius_auth WHERE timestamp > ? AND timestamp <= ? AND ${NAC_METHOD} IS NULL`

const num = (v: string | number | null): number => Number(v ?? 0)
const answer = (l: Last, permitted: boolean): LoggedAnswer => ({ permitted, rule_name: l[2], profile: l[3], result_code: l[4], message: l[5] })
const common = (r: Grouped, passed: string) => ({ events: num(r.events), permitted: num(r.permitted), last_seen: new Date(r.last_seen), last: answer(r.last, r.last[1] === passed) })

type Statement<T> = { sql: (only: string) => string; user: string; map: (row: never) => T }

/**
 * Runs the statements one after another on one reader, each bounded by `limit + 1`; stops at the
 * first the budget cancels. Then the most frequent `limit` of them all.
 */
async function distinct<T extends { events: number; last_seen: Date }>(database: DatabaseService, q: ImpactRequestsQuery, statements: Statement<T>[], windowEvents: string): Promise<DistinctRequests<T>> {
  const started = Date.now()
  const limit = Math.max(0, Math.min(IMPACT_REQUESTS_MAX, Math.floor(q.limit)))
  if (limit === 0 || !(q.from < q.to)) return { items: [], truncated: false, scan_ms: 0, lag_ms: null, window_events: q.only ? 0 : null }
  const signal = q.signal ?? new AbortController().signal
  const window = [q.from.toISOString(), q.to.toISOString()]
  let cut = false
  let events: number | null = null
  const { items, lag } = await database.read(async (reader: DatabaseReader) => {
    const out: T[] = []
    cut = false
    events = null
    for (const s of statements) {
      if (signal.aborted) {
        cut = true
        break
      }
      try {
        const sql = s.sql(q.only ? onlyFilter(s.user, q.only) : '')
        const rows = await reportStatement<never>({ reader, signal }, sql, [...window, ...(q.only ? onlyBindings(q.only) : []), limit + 1])
        if (rows.length > limit) cut = true
        for (const r of rows) out.push(s.map(r))
      } catch (e) {
        // The budget ran out under this statement: answer what the others grouped.
        if (!signal.aborted) throw e
        cut = true
        break
      }
    }
    if (q.only && !cut && !signal.aborted) {
      try {
        const [row] = await reportStatement<{ n: string | number }>({ reader, signal }, windowEvents, windowEvents === TACACS_EVENTS ? [...window, ...window] : window)
        events = num(row?.n ?? 0)
      } catch (e) {
        if (!signal.aborted) throw e
        cut = true
      }
    }
    return { items: out, lag: reader.lagMs }
  })
  if (statements.length > 1) items.sort((a, b) => b.events - a.events || b.last_seen.getTime() - a.last_seen.getTime())
  if (items.length > limit) {
    cut = true
    items.length = limit
  }
  return { items, truncated: cut, scan_ms: Date.now() - started, lag_ms: lag, window_events: cut ? null : events }
}

type TacacsAuthnRow = Grouped & { username: string; nas_ip: string | null; authen_type: string | null }
type TacacsAuthzRow = Grouped & { username: string; nas_ip: string | null; service: string | null; command: string | null; priv_lvl: number | string | null; arguments: string[] | null }
type RadiusRow = Grouped & Omit<DistinctRadiusRequest, 'events' | 'permitted' | 'last_seen' | 'last'>

export function tacacsImpactRequests(database: DatabaseService, q: ImpactRequestsQuery): Promise<DistinctRequests<DistinctTacacsRequest>> {
  return distinct<DistinctTacacsRequest>(database, q, [
    {
      sql: tacacsAuthn,
      user: 'username',
      map: (r: TacacsAuthnRow) => ({ kind: 'authentication', username: r.username, nas_ip: r.nas_ip, authen_type: r.authen_type, service: null, command: null, priv_lvl: null, arguments: [], ...common(r, 'success') }),
    },
    {
      sql: tacacsAuthz,
      user: 'username',
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
  ], TACACS_EVENTS)
}

export function radiusImpactRequests(database: DatabaseService, q: ImpactRequestsQuery): Promise<DistinctRequests<DistinctRadiusRequest>> {
  return distinct<DistinctRadiusRequest>(database, q, [
    {
      sql: radiusAuth,
      user: 'coalesce(outer_identity, username)',
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
  ], RADIUS_EVENTS)
}
