/**
 * Log retention: `aaa-logs.retention_months` (0: keep everything). Once an
 * hour, on a primary node, every monthly partition of the five log tables
 * that lies wholly before the cut-off (now minus that many months, UTC) is
 * detached and dropped: a change of the catalog, whatever the number of rows,
 * where deleting them would write every row to the WAL and through the
 * statement triggers. The default partition is never dropped; its rows older
 * than the cut-off (history replayed into months without a partition) are
 * deleted through the parent in batches. A month still partly inside the
 * retention is kept whole until it is all past.
 *
 * Dropping or detaching a partition bypasses the statement triggers of
 * migrations 0003 (row counts) and 0004 (rollup), so the same transaction
 * takes the partition's rows out of both: its number of rows is the rollup's
 * `node_id` sum over its time range (every row has a node, and a partition
 * holds exactly the rows of its range), and its rollup rows are the buckets
 * inside that range. Those buckets are whole UTC hours and days; a partition
 * whose bounds are not at a UTC midnight (the server runs in another time zone,
 * or an operator made it so) first has its rows of the two partial days at its
 * edges deleted through the parent, so that the triggers account for them.
 *
 * One node at a time: each step holds a transaction-level advisory lock, and a
 * node that does not get it leaves the step to the one that has it. The lock
 * on the parent that DETACH needs is waited for at most 5 s (a long search on
 * the primary must not stall ingestion behind it); a step that times out is
 * tried again next hour. Every drop and every batch delete is audited
 * (actor null: the platform) and logged.
 */
import type { Knex } from 'knex'
import { defineSetting, Type, type AuditService, type ClusterInfo, type DatabaseService, type Logger, type SettingsService } from '../../../sdk/index.js'
import { LOG_TABLE, type LogTable } from '../api.js'

export const retentionMonths = defineSetting(
  'aaa-logs.retention_months',
  Type.Integer({ minimum: 0, maximum: 1200 }),
  0,
  'How many months of AAA log entries to keep; 0 keeps everything. Once an hour the primary drops each monthly partition that lies wholly before now minus this many months (UTC), and deletes the older entries of the default partition.',
  // Shortening it destroys evidence of what users did on the devices: an administrator's decision.
  { security: true },
)

const LOCK_KEY = 'aaa-logs.retention'
const DAY = 86_400_000

export interface DroppedPartition {
  table: LogTable
  partition: string
  from: string
  to: string
  rows: number
}

export interface RetentionRun {
  /** Entries before this instant are past the retention; null when retention is off. */
  cutoff: string | null
  dropped: DroppedPartition[]
  /** Rows deleted from each table's default partition (and from the partial edge days of unaligned partitions). */
  deleted: Partial<Record<LogTable, number>>
  /** Steps another node was doing, or that waited too long for their lock: tried again next run. */
  skipped: string[]
}

/** `now` minus `months` calendar months, UTC, the day clamped to the month's length (31 March − 1 → 28/29 February). */
export function monthsBefore(now: Date, months: number): Date {
  const y = now.getUTCFullYear()
  const m = now.getUTCMonth() - months
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  return new Date(Date.UTC(y, m, Math.min(now.getUTCDate(), last), now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds(), now.getUTCMilliseconds()))
}

export interface RetentionDeps {
  database: DatabaseService
  settings: SettingsService
  audit: AuditService
  logger: Logger
}

interface Bounded {
  partition: string
  from: Date
  to: Date
}

/** The partitions of `table` with a FROM … TO range ending at or before `cutoff` (never the default one, never an unbounded one). */
async function partitionsBefore(knex: Knex, table: LogTable, cutoff: Date): Promise<Bounded[]> {
  const r = (await knex.raw(
    `SELECT name, lo::timestamptz AS "from", hi::timestamptz AS "to" FROM (
       SELECT c.oid::regclass::text AS name, m[1] AS lo, m[2] AS hi
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)') AS m
       WHERE i.inhparent = ?::regclass
     ) p WHERE hi IS NOT NULL AND hi::timestamptz <= ? ORDER BY 2`,
    [table, cutoff.toISOString()],
  )) as { rows: { name: string; from: Date | string; to: Date | string }[] }
  return r.rows.map((x) => ({ partition: x.name, from: new Date(x.from), to: new Date(x.to) }))
}

/** Run `fn` in a transaction holding the retention lock; 'busy' when another node holds it or the lock on a table took too long. */
async function exclusive<T>(db: DatabaseService, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T | 'busy'> {
  try {
    return await db.transaction(async (trx) => {
      const got = (await trx.raw('SELECT pg_try_advisory_xact_lock(hashtext(?)) AS ok', [LOCK_KEY])) as { rows: { ok: boolean }[] }
      if (!got.rows[0].ok) return 'busy' as const
      if (db.engine === 'postgres') {
        await trx.raw(`SET LOCAL lock_timeout = '5s'`)
        // A drop or a batch may take longer than a request may: the pooled connection's statement timeout is lifted.
        await trx.raw(`SET LOCAL statement_timeout = '10min'`)
      }
      return fn(trx)
    })
  } catch (e) {
    if ((e as { code?: string }).code === '55P03') return 'busy' // lock_not_available
    throw e
  }
}

/** Delete, through the parent (so the triggers keep the counts and the rollup), the rows of `where`, in batches. */
async function deleteInBatches(d: RetentionDeps, table: LogTable, source: string, range: { from?: Date; to: Date }, batch: number, run: RetentionRun): Promise<number> {
  let total = 0
  for (;;) {
    const n = await exclusive(d.database, async (trx) => {
      const params: string[] = [range.to.toISOString()]
      let inRange = 'timestamp < ?'
      if (range.from) {
        inRange += ' AND timestamp >= ?'
        params.push(range.from.toISOString())
      }
      const r = (await trx.raw(
        `DELETE FROM ${table} WHERE ${inRange} AND (id, timestamp) IN (SELECT id, timestamp FROM ${source} WHERE ${inRange} LIMIT ${batch})`,
        [...params, ...params],
      )) as { rowCount: number }
      if (r.rowCount > 0) {
        await d.audit.record(
          { action: 'aaa_log_rows.delete', resourceType: 'aaa_log_partition', resourceId: source, before: { table, partition: source, before: range.to.toISOString(), from: range.from?.toISOString() ?? null, rows: r.rowCount } },
          { actor: null, trx },
        )
      }
      return r.rowCount
    })
    if (n === 'busy') {
      run.skipped.push(`${source}: delete`)
      return total
    }
    total += n
    if (n < batch) return total
  }
}

const atUtcMidnight = (t: Date) => t.getTime() % DAY === 0
const nextUtcMidnight = (t: Date) => new Date(Math.ceil(t.getTime() / DAY) * DAY)
const prevUtcMidnight = (t: Date) => new Date(Math.floor(t.getTime() / DAY) * DAY)

async function dropPartition(d: RetentionDeps, table: LogTable, p: Bounded, batch: number, run: RetentionRun): Promise<void> {
  // The rollup's buckets are UTC hours and days: rows of a partial day at an edge go through the triggers first.
  let from = p.from
  let to = p.to
  if (!atUtcMidnight(from)) {
    from = nextUtcMidnight(from)
    run.deleted[table] = (run.deleted[table] ?? 0) + (await deleteInBatches(d, table, p.partition, { from: p.from, to: from }, batch, run))
  }
  if (!atUtcMidnight(to)) {
    to = prevUtcMidnight(to)
    run.deleted[table] = (run.deleted[table] ?? 0) + (await deleteInBatches(d, table, p.partition, { from: to, to: p.to }, batch, run))
  }
  const done = await exclusive(d.database, async (trx) => {
    const exists = (await trx.raw('SELECT to_regclass(?) AS r', [p.partition])) as { rows: { r: string | null }[] }
    if (!exists.rows[0].r) return null // another node dropped it
    const sum = (await trx('aaa_log_rollup')
      .where({ table_name: table, dim: 'node_id' })
      .where('bucket', '>=', from.toISOString())
      .where('bucket', '<', to.toISOString())
      .sum({ n: 'n' })
      .first()) as { n: number | string | null } | undefined
    const rows = Number(sum?.n ?? 0)
    await trx.raw(`ALTER TABLE ${table} DETACH PARTITION ${p.partition}`)
    await trx('aaa_log_row_counts').where({ table_name: table }).decrement('n', rows)
    await trx('aaa_log_rollup').where({ table_name: table }).where('bucket', '>=', from.toISOString()).where('bucket', '<', to.toISOString()).delete()
    await trx.raw(`DROP TABLE ${p.partition}`)
    const dropped: DroppedPartition = { table, partition: p.partition, from: p.from.toISOString(), to: p.to.toISOString(), rows }
    await d.audit.record({ action: 'aaa_log_partition.drop', resourceType: 'aaa_log_partition', resourceId: p.partition, before: dropped }, { actor: null, trx })
    return dropped
  })
  if (done === 'busy') run.skipped.push(`${p.partition}: drop`)
  else if (done) run.dropped.push(done)
}

/** The default partition of a log table (never dropped). */
async function defaultPartition(knex: Knex, table: LogTable): Promise<string | null> {
  const r = (await knex.raw('SELECT partdefid::regclass::text AS name FROM pg_partitioned_table WHERE partrelid = ?::regclass AND partdefid <> 0', [table])) as { rows: { name: string }[] }
  return r.rows[0]?.name ?? null
}

/** One pass: drop the months past the retention, delete the default partition's old rows. */
export async function applyRetention(d: RetentionDeps, opts: { now?: Date; batchSize?: number } = {}): Promise<RetentionRun> {
  const months = await d.settings.get(retentionMonths)
  const run: RetentionRun = { cutoff: null, dropped: [], deleted: {}, skipped: [] }
  if (months === 0) return run
  const cutoff = monthsBefore(opts.now ?? new Date(), months)
  run.cutoff = cutoff.toISOString()
  const batch = opts.batchSize ?? 10_000
  for (const table of Object.values(LOG_TABLE)) {
    for (const p of await partitionsBefore(d.database.knex, table, cutoff)) await dropPartition(d, table, p, batch, run)
    const def = await defaultPartition(d.database.knex, table)
    if (def) {
      const n = await deleteInBatches(d, table, def, { to: cutoff }, batch, run)
      if (n) run.deleted[table] = (run.deleted[table] ?? 0) + n
    }
  }
  if (run.dropped.length || Object.keys(run.deleted).length) {
    d.logger.info({ cutoff: run.cutoff, retention_months: months, dropped: run.dropped, deleted: run.deleted }, 'aaa-logs: log entries past the retention removed')
  }
  if (run.skipped.length) d.logger.info({ skipped: run.skipped }, 'aaa-logs: retention steps left to another node or the next run')
  return run
}

/**
 * The hourly job: a minute after start, then every hour, on a primary node (a ROLE=replica node
 * serves reads; its database may be a standby). Returns its stop function.
 */
export function startRetention(d: RetentionDeps & { cluster: ClusterInfo }, everyMs = 3_600_000): () => Promise<void> {
  if (d.cluster.role !== 'primary') return async () => undefined
  let running: Promise<unknown> = Promise.resolve()
  const tick = () => {
    running = applyRetention(d).catch((e: unknown) => d.logger.warn({ err: (e as Error).message }, 'aaa-logs: log retention failed; tried again next hour'))
  }
  let timer = setTimeout(function again() {
    tick()
    timer = setTimeout(again, everyMs).unref()
  }, Math.min(60_000, everyMs)).unref()
  return async () => {
    clearTimeout(timer)
    await running
  }
}
