/**
 * `total_by_filter` of a log list, cheap at any table size:
 * - exact from the rollup of migration 0004 when the filters are the ones it
 *   keeps (at most one of `username`, `nas_ip`, `node_id` and the kind's text
 *   filters, any enum filters except RADIUS `auth_type` with `username` or
 *   `nas_ip`, any date window): whole buckets inside the
 *   window are summed from the rollup, the partial buckets at its two edges
 *   (at most an hour, or a day of one user or device) are counted from the rows;
 * - otherwise (free-text `search`, or two of those filters together) a count
 *   that stops at COUNT_CAP + 1 rows, and on PostgreSQL after a time budget
 *   (setting `aaa-logs.count_budget_ms`): exact when it finished, else the
 *   answer says `total_by_filter_capped: true` with a lower bound (COUNT_CAP,
 *   or what the page read proves: what log tools show as "10,000+").
 */
import type { Knex } from 'knex'
import type { DatabaseService } from '../../../sdk/index.js'
import { countOf, type KindDef, type LogFilters } from './logs.js'

/** Beyond this many matching entries a count the rollup cannot answer stops and says so. */
export const COUNT_CAP = 10_000

const HOUR = 3_600_000
const DAY = 86_400_000
/** The rollup's bucket per dimension (migration 0004): hours for the dimensions of few values, days for users and devices. */
const GRAIN: Record<string, number> = { node_id: HOUR, username: DAY, nas_ip: DAY, rule_name: HOUR, profile: HOUR, service: HOUR }

export interface FilteredTotal {
  n: number
  capped: boolean
}

/** A count that may have stopped: at COUNT_CAP matches, or when its time budget ran out. */
export interface CappedCount {
  n: number
  stopped: 'cap' | 'time' | null
}

type Filtered = (q: LogFilters) => Knex.QueryBuilder

/** The connection a list reads through (the primary's, or the read replica's: DatabaseService.read) and its engine. */
export interface ReadingDb {
  knex: Knex
  engine: DatabaseService['engine']
}

/** The dimension the rollup answers these filters by, or null when it cannot. */
export function rollupDimension(k: KindDef, q: LogFilters): string | null {
  if (q.search?.trim()) return null
  if ([q.date_from, q.date_to].some((d) => d !== undefined && Number.isNaN(parseTime(d)))) return null
  const dims = ['username', 'nas_ip', 'node_id', ...k.textFilters].filter((d) => q[d] !== undefined)
  if (dims.length > 1) return null
  const dim = dims[0] ?? 'node_id'
  // The day-grained dimensions are not split by the kind's second enum (RADIUS auth_type), and none by a third (reject_reason).
  const [, e2, ...beyond] = Object.keys(k.enumFilters)
  if (GRAIN[dim] === DAY && e2 && q[e2] !== undefined) return null
  if (beyond.some((e) => q[e] !== undefined)) return null
  return dim
}

/**
 * The first bucket start at or after `iso` (exact even when `iso` carries
 * microseconds: a bucket is only whole when it starts at or after the instant).
 */
function ceilTo(iso: string, grain: number): number {
  const t = parseTime(iso)
  const floor = Math.floor(t / grain) * grain
  if (floor === t && !/\.\d{3}\d*[1-9]/.test(iso)) return t
  return floor + grain
}

/** The bucket start at or before `iso` (a row at `iso` itself is in the bucket after it: counted from the rows). */
const floorTo = (iso: string, grain: number) => Math.floor(parseTime(iso) / grain) * grain

/** RFC 3339 as the schema accepts it (`t`/`z` in either case); NaN when JavaScript cannot read it. */
const parseTime = (iso: string) => Date.parse(iso.toUpperCase())

/** The exact total from the rollup (and the rows of the window's partial edge buckets); `dim` from rollupDimension. */
export async function rollupTotal(knex: Knex, k: KindDef, q: LogFilters, dim: string, filtered: Filtered): Promise<FilteredTotal> {
  const grain = GRAIN[dim]
  // Whole buckets: [from, to) where from/to are bucket starts (null: unbounded).
  const from = q.date_from !== undefined ? ceilTo(q.date_from, grain) : null
  const to = q.date_to !== undefined ? floorTo(q.date_to, grain) : null
  if (from !== null && to !== null && from >= to) return { n: await countOf(filtered(q)), capped: false }

  const iso = (ms: number) => new Date(ms).toISOString()
  const rollup = knex('aaa_log_rollup').where({ table_name: k.table, dim }).sum({ n: 'n' })
  if (dim !== 'node_id' || q.node_id !== undefined) {
    rollup.whereRaw(dim === 'nas_ip' ? 'val = (?::inet)::text' : 'val = ?', [String(q[dim])])
  }
  const [e1, e2] = Object.keys(k.enumFilters)
  if (e1 && q[e1] !== undefined) rollup.where('e1', String(q[e1]))
  if (e2 && q[e2] !== undefined) rollup.where('e2', String(q[e2]))
  if (from !== null) rollup.where('bucket', '>=', iso(from))
  if (to !== null) rollup.where('bucket', '<', iso(to))

  // The partial buckets at the edges, from the rows: [date_from, from) and [to, date_to].
  const edges: Promise<number>[] = []
  if (from !== null) {
    const qb = filtered({ ...q, date_to: undefined }).where('timestamp', '<', iso(from))
    edges.push(countOf(qb))
  }
  if (to !== null) edges.push(countOf(filtered({ ...q, date_from: undefined }).where('timestamp', '>=', iso(to))))
  const [sum, ...parts] = await Promise.all([rollup.first().then((r) => Number(r?.n ?? 0)), ...edges])
  return { n: parts.reduce((a, b) => a + b, sum), capped: false }
}

/**
 * A count that stops after COUNT_CAP + 1 rows and, on PostgreSQL, after
 * `budgetMs` (statement_timeout in its own transaction; PGlite cannot cut a
 * statement, so there only the cap applies).
 */
export async function cappedCount(db: ReadingDb, qb: Knex.QueryBuilder, budgetMs: number): Promise<CappedCount> {
  const r = await withBudget(db, budgetMs, async (x) => {
    const inner = qb.clearSelect().select(x.raw('1')).limit(COUNT_CAP + 1)
    return countOf(x.from(inner.as('capped')))
  })
  if (r === 'time') return { n: 0, stopped: 'time' }
  return r > COUNT_CAP ? { n: COUNT_CAP, stopped: 'cap' } : { n: r, stopped: null }
}

/**
 * Run `fn` with at most `ms` for its statements (statement_timeout in its own
 * transaction on PostgreSQL); 'time' when they were cut. PGlite cannot cut a
 * statement: there `fn` runs to its end.
 */
export async function withBudget<T>(db: ReadingDb, ms: number, fn: (x: Knex | Knex.Transaction) => Promise<T>): Promise<T | 'time'> {
  if (db.engine !== 'postgres') return fn(db.knex)
  try {
    return await db.knex.transaction(async (trx) => {
      await trx.raw(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(ms))}`)
      return fn(trx)
    })
  } catch (e) {
    if ((e as { code?: unknown }).code === '57014') return 'time'
    throw e
  }
}

/**
 * The capped bound, sharpened by the page just read: a page of `rows` entries
 * at `offset` proves at least offset + rows entries, and a short non-empty page
 * is the last one, so the total is then known exactly.
 */
export function pageBound(t: CappedCount, offset: number, perPage: number, rows: number): FilteredTotal {
  if (t.stopped === null) return { n: t.n, capped: false }
  if (rows > 0 && rows < perPage) return { n: offset + rows, capped: false }
  if (rows === 0 && offset === 0) return { n: 0, capped: false } // not one match
  // A full page proves offset + rows; an empty page past the end proves nothing more.
  return { n: rows ? Math.max(t.n, offset + rows) : t.n, capped: true }
}
