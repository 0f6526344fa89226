/**
 * The dashboard's figures from the AAA logs.
 *
 * Authentications by bucket and result: the hour buckets (24 h, 7 days) are sums over migration
 * 0004's rollup, dimension `node_id` (every row has one, so its values together are every row),
 * `e1` the status and `e2` the RADIUS auth_type: a few hundred rollup rows, whatever the log's
 * size. The rollup has no minutes, so the minute buckets (15 min, 1 h) are counted from the rows,
 * through the (timestamp) index: an hour's rows at most.
 *
 * NAC is told from device administration by auth_type (PEAP, EAP-TLS, MAB: the ingester sets it
 * from the NAC method), the one column of the request the rollup keeps.
 */
import type { Knex } from 'knex'
import type { STATS_PROTOCOLS, STATS_RANGES } from '../schemas/stats.js'

type Range = (typeof STATS_RANGES)[number]
type Protocol = (typeof STATS_PROTOCOLS)[number]
type Result = 'success' | 'failure'

const MINUTE = 60_000
const HOUR = 3_600_000
const SPAN: Record<Range, { grain: number; n: number }> = { '15m': { grain: MINUTE, n: 15 }, '1h': { grain: MINUTE, n: 60 }, '24h': { grain: HOUR, n: 24 }, '7d': { grain: HOUR, n: 168 } }
const NAC_AUTH_TYPES = ['PEAP', 'EAP-TLS', 'MAB']
const TACACS = 'aaa_log_tacacs_authn'
const RADIUS = 'aaa_log_radius_auth'

/** One (bucket, protocol, result) count, as read from the rollup or the rows. */
interface Cell {
  bucket: Date | string
  table: string
  status: string
  nac: boolean
  n: number | string
}

export interface AuthStats {
  range: Range
  bucket_seconds: number
  from: string
  to: string
  buckets: string[]
  series: { protocol: Protocol; result: Result; counts: number[]; total: number }[]
}

const SUCCESS = new Set(['success', 'accept'])
const FAILURE = new Set(['failure', 'reject'])

/** Authentications per bucket of `range` back from `now`, by protocol and result. */
export async function authenticationStats(knex: Knex, range: Range, now = new Date()): Promise<AuthStats> {
  const { grain, n } = SPAN[range]
  const end = Math.floor(now.getTime() / grain) * grain + grain
  const from = end - n * grain
  const fromIso = new Date(from).toISOString()
  const endIso = new Date(end).toISOString()
  const nacSql = `e2 IN (${NAC_AUTH_TYPES.map(() => '?').join(', ')})`
  let cells: Cell[]
  if (grain === HOUR) {
    cells = await knex('aaa_log_rollup')
      .select('bucket', { table: 'table_name', status: 'e1' }, knex.raw(`(table_name = ? AND ${nacSql}) AS nac`, [RADIUS, ...NAC_AUTH_TYPES]))
      .sum({ n: 'n' })
      .whereIn('table_name', [TACACS, RADIUS])
      .where('dim', 'node_id')
      .where('bucket', '>=', fromIso)
      .where('bucket', '<', endIso)
      .groupBy('bucket', 'table_name', 'e1', 'nac')
  } else {
    // The rows: the same grouping, over date_bin of the timestamp.
    const bin = `date_bin(interval '1 minute', timestamp, TIMESTAMPTZ '1970-01-01 00:00:00+00')`
    const [t, r] = await Promise.all([
      knex(TACACS).select(knex.raw(`${bin} AS bucket`), 'status', knex.raw('false AS nac')).count({ n: '*' }).where('timestamp', '>=', fromIso).where('timestamp', '<', endIso).groupByRaw('1, 2'),
      knex(RADIUS)
        .select(knex.raw(`${bin} AS bucket`), 'status', knex.raw(`coalesce(auth_type IN (${NAC_AUTH_TYPES.map(() => '?').join(', ')}), false) AS nac`, NAC_AUTH_TYPES))
        .count({ n: '*' })
        .where('timestamp', '>=', fromIso)
        .where('timestamp', '<', endIso)
        .groupByRaw('1, 2, 3'),
    ])
    cells = [...(t as unknown as Omit<Cell, 'table'>[]).map((c) => ({ ...c, table: TACACS })), ...(r as unknown as Omit<Cell, 'table'>[]).map((c) => ({ ...c, table: RADIUS }))]
  }
  const buckets = Array.from({ length: n }, (_, i) => new Date(from + i * grain).toISOString())
  const series = (['tacacs', 'radius', 'nac'] as const).flatMap((protocol) =>
    (['success', 'failure'] as const).map((result) => ({ protocol, result, counts: new Array<number>(n).fill(0), total: 0 })),
  )
  for (const c of cells) {
    const result: Result | null = SUCCESS.has(c.status) ? 'success' : FAILURE.has(c.status) ? 'failure' : null
    if (!result) continue
    const protocol: Protocol = c.table === TACACS ? 'tacacs' : c.nac === true ? 'nac' : 'radius'
    const i = Math.round((new Date(c.bucket).getTime() - from) / grain)
    const s = series.find((x) => x.protocol === protocol && x.result === result)
    if (!s || i < 0 || i >= n) continue
    s.counts[i] += Number(c.n)
    s.total += Number(c.n)
  }
  return { range, bucket_seconds: grain / 1000, from: fromIso, to: endIso, buckets, series }
}

export interface TopFailures {
  from: string
  users: { username: string; failures: number }[]
  devices: { nas_ip: string; device_name: string | null; failures: number }[]
}

/**
 * The users and devices with the most failed authentications (TACACS+ failure, RADIUS reject)
 * since `hours` ago: counted from the rows (the rollup's users and devices are whole UTC days),
 * the failures of a day being a small part of its rows.
 */
export async function topFailures(knex: Knex, hours: number, limit: number, now = new Date()): Promise<TopFailures> {
  const from = new Date(now.getTime() - hours * HOUR).toISOString()
  const failed = knex
    .select('username', 'nas_ip', 'device_name', 'timestamp')
    .from(TACACS)
    .where('status', 'failure')
    .where('timestamp', '>=', from)
    .unionAll((u) => u.select('username', 'nas_ip', 'device_name', 'timestamp').from(RADIUS).where('status', 'reject').where('timestamp', '>=', from))
  const [users, devices] = await Promise.all([
    knex.with('failed', failed).from('failed').select('username').count({ n: '*' }).groupBy('username').orderBy([{ column: 'n', order: 'desc' }, { column: 'username', order: 'asc' }]).limit(limit),
    knex
      .with('failed', failed)
      .from('failed')
      .select(knex.raw('host(nas_ip) AS nas_ip'), knex.raw('(array_agg(device_name ORDER BY timestamp DESC) FILTER (WHERE device_name IS NOT NULL))[1] AS device_name'))
      .count({ n: '*' })
      .whereNotNull('nas_ip')
      .groupBy('nas_ip')
      .orderBy([{ column: 'n', order: 'desc' }, { column: 'nas_ip', order: 'asc' }])
      .limit(limit),
  ])
  return {
    from,
    users: (users as unknown as { username: string; n: string | number }[]).map((u) => ({ username: u.username, failures: Number(u.n) })),
    devices: (devices as unknown as { nas_ip: string; device_name: string | null; n: string | number }[]).map((d) => ({ nas_ip: d.nas_ip, device_name: d.device_name, failures: Number(d.n) })),
  }
}
