/**
 * Small helpers the report sources share (sdk/report-sources.ts): time buckets
 * computed by SQL and filled in order, charts, the filters every owner answers
 * the same way, and stopping when the run's budget is spent.
 */
import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { LocalizedText } from './localized-text.js'
import type { ReportChart, ReportQuery } from './report-sources.js'

const DAY_MS = 86_400_000

/** Per UTC day up to three months, per UTC month beyond: a chart of a year has twelve points, not 365. */
export type ReportGrain = 'day' | 'month'

export const reportGrain = (from: Date, to: Date): ReportGrain => (to.getTime() - from.getTime() <= 92 * DAY_MS ? 'day' : 'month')

/** SQL of a timestamp column's bucket label: `YYYY-MM-DD` or `YYYY-MM`, in UTC (the same text on both engines). */
export const bucketSql = (column: string, grain: ReportGrain): string => `to_char(${column} AT TIME ZONE 'UTC', '${grain === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM'}')`

/** SQL of a timestamp column's bucket as a timestamp (the start of its UTC day or month): cheaper to group by than text. */
export const bucketStartSql = (column: string, grain: ReportGrain): string => `date_trunc('${grain}', ${column}, 'UTC')`

/** SQL of the label of a bucket start from bucketStartSql (the same text as bucketSql). */
export const bucketLabelSql = (start: string, grain: ReportGrain): string => bucketSql(start, grain)

/** Every bucket label of [from, to), in order. */
export function bucketLabels(from: Date, to: Date, grain: ReportGrain): string[] {
  const out: string[] = []
  let t = grain === 'day' ? Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()) : Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1)
  while (t < to.getTime() && out.length < 5000) {
    const d = new Date(t)
    out.push(d.toISOString().slice(0, grain === 'day' ? 10 : 7))
    t = grain === 'day' ? t + DAY_MS : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  }
  return out
}

/** A line over every bucket of the range (0 where nothing happened), from counts keyed by bucket label. */
export function timeSeries(title: LocalizedText, counts: ReadonlyMap<string, number>, from: Date, to: Date, grain: ReportGrain): ReportChart {
  return { title, kind: 'line', points: bucketLabels(from, to, grain).map((label) => ({ label, value: counts.get(label) ?? 0 })) }
}

export const barChart = (title: LocalizedText, points: { label: string; value: number }[]): ReportChart => ({ title, kind: 'bar', points })

/** Throws the signal's reason once the run is aborted: sources call it between their statements. */
export function stopIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('The report run was stopped.')
}

/** The longest one statement of a report may run, whatever the run's own budget (which aborts it sooner). */
export const REPORT_STATEMENT_TIMEOUT_MS = 30 * 60_000

/** work_mem of a report's statement (the pool's default is PostgreSQL's 4 MB). */
export const REPORT_WORK_MEM = '64MB'

/**
 * One statement of a source, through the report's reader, that stops when the run does: each
 * statement carries a tag in a leading comment, and an abort cancels the backend running it
 * (pg_cancel_backend on the same server — the replica when the reader is one), so a spent budget
 * frees the server at once instead of when the statement ends. The embedded engine has one
 * connection: there the cancel waits its turn and finds nothing; the run still stops after it.
 */
export async function reportStatement<R>(q: Pick<ReportQuery, 'reader' | 'signal'>, sql: string, bindings: readonly Knex.RawBinding[] = []): Promise<R[]> {
  stopIfAborted(q.signal)
  const tag = `/* portcullis-report ${randomUUID()} */`
  const cancel = () => {
    q.reader.knex
      .raw('SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE ?', [`${tag}%`])
      .catch(() => undefined)
  }
  q.signal.addEventListener('abort', cancel, { once: true })
  try {
    // A month of logs takes longer than the pool's statement_timeout (5 s by default, for requests):
    // a report lifts it for its own transaction, to a cap; the run's budget is the signal's.
    return await q.reader.knex.transaction(async (trx) => {
      await trx.raw(`SET LOCAL statement_timeout = ${REPORT_STATEMENT_TIMEOUT_MS}`)
      // Room for the summaries' hash tables (a user or device per entry): without it the grouping sorts the month.
      await trx.raw(`SET LOCAL work_mem = '${REPORT_WORK_MEM}'`)
      return (await trx.raw<{ rows: R[] }>(`${tag} ${sql}`, [...bindings])).rows
    })
  } catch (e) {
    stopIfAborted(q.signal)
    throw e
  } finally {
    q.signal.removeEventListener('abort', cancel)
  }
}

/** A count as the database answers it (bigint as text on PostgreSQL, a number on the embedded engine). */
export const countOf = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))

/** A timestamp as the database answers it (a Date, or text on the embedded engine), as ISO text. */
export const isoTime = (v: Date | string | null | undefined): string | null => (v === null || v === undefined ? null : new Date(v).toISOString())

/**
 * SQL of the user names of a user group's members (the platform's accounts; `?` is the group id).
 * Members through a directory group mapping are not listed: their accounts are not stored members.
 */
export const USER_GROUP_USERNAMES = 'SELECT u.username FROM users u JOIN user_group_members m ON m.user_id = u.id WHERE m.group_id = ?'
/** SQL of the user ids (as text) of a user group's members (`?` is the group id). */
export const USER_GROUP_USER_IDS = 'SELECT m.user_id::text FROM user_group_members m WHERE m.group_id = ?'

/** What the device-group filter needs of the inventory (its service, structurally). */
export interface ReportInventory {
  groupDescendants(groupId: string, db?: Knex): Promise<string[]>
  listDevices(db?: Knex): Promise<{ id: string; name: string; address: string; device_group_id: string | null }[]>
}

/** The devices of a device group and its descendants, read through the report's reader. */
export async function devicesOfGroup(inventory: ReportInventory, knex: Knex, groupId: string): Promise<{ id: string; name: string; address: string }[]> {
  const groups = new Set(await inventory.groupDescendants(groupId, knex))
  return (await inventory.listDevices(knex)).filter((d) => d.device_group_id !== null && groups.has(d.device_group_id))
}

/** A PostgreSQL array literal of prefixes (`{10.0.0.1/32,10.1.0.0/16}`) for `col <<= ANY(?::cidr[])`; only CIDR text reaches it. */
export const cidrArray = (prefixes: readonly string[]): string => `{${prefixes.filter((p) => /^[0-9a-fA-F:.]+\/\d{1,3}$/.test(p)).join(',')}}`
