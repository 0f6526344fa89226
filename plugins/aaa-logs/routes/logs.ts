/** /api/v1/aaa/logs/{tacacs|radius}/{kind}: list, export and get-one for each of the five log kinds. */
import type { Knex } from 'knex'
import { CommonErrors, defineRoute, ErrorBody, EXPORT_DOWNLOAD, exportReply, Type, type DownloadDeclaration, type RouteDefinition } from '../../../sdk/index.js'
import { LOGS_READ } from '../permissions.js'
import { entrySchema, listSchema, logExportQuery, logListQuery, LogParams } from '../schemas/logs.js'
import { applyLogFilters, checkLogFilters, exportColumns, KINDS, logRows, rowCount, toEntry, type KindDef, type LogFilters, type LogRow } from '../services/logs.js'
import { listSettingRefs } from '../services/settings.js'
import { COUNT_CAP, cappedCount, pageBound, rollupDimension, rollupTotal, withBudget, type CappedCount, type FilteredTotal, type ReadingDb } from '../services/totals.js'
import type { LogsRouteDeps } from './deps.js'

/** How long a search page may take when its count ran out of time (below the requests' statement timeout). */
const SLOW_PAGE_MS = 4000

/** The most rows one export holds. */
export const EXPORT_CEILING = 10_000

/** A page's row; sorted out of all the matches, it carries their number. */
type PageRow = LogRow & { aaa_matches?: number }
type Rows<R extends {}> = Knex.QueryBuilder<R, R[]>

/**
 * Every match of `filtered`, read once (a materialized CTE, one pass over the
 * search index), each row with the number of all of them: the page is then
 * sorted out of these. knex cannot type a select from a CTE with a window
 * column: this is the one place that says what it returns.
 */
const allMatches = (x: Knex | Knex.Transaction, filtered: Rows<LogRow>): Rows<PageRow> =>
  x.withMaterialized('matches', filtered).from<PageRow, PageRow[]>('matches').select<PageRow[]>('*', x.raw('count(*) over () as aaa_matches'))

const FILTER_DOC =
  'Filters (all optional, combined with AND): `username` (exact), `nas_ip` (exact address), `node_id`, `date_from` / `date_to` (inclusive, UTC), `search` (case-insensitive substring over the kind\'s text fields), and the kind\'s own filters. `sort_order` defaults to `desc`; the id breaks ties so pages are stable. ' +
  `\`total_by_filter\` is exact when the filters name at most one of \`username\`, \`nas_ip\`, \`node_id\` and the kind's text filters, with no \`search\` (any enum filters and dates); otherwise the count stops at ${COUNT_CAP.toLocaleString('en')} matches, or on PostgreSQL after the setting \`aaa-logs.count_budget_ms\` (default ${listSettingRefs.countBudgetMs.default} ms); when it stopped, \`total_by_filter_capped\` is true and \`total_by_filter\` a lower bound (${COUNT_CAP.toLocaleString('en')} when the cap stopped it, and at least the entries up to the end of a full page asked for), and \`pages\` follows it.`

/**
 * One page of a list, with its totals, read through `knex` (the primary's or the read replica's).
 * As sdk paginate, except the totals: `total` is the exact row count kept by migration 0003's
 * triggers, `total_by_filter` comes from migration 0004's rollup or a count that stops at COUNT_CAP
 * or its time budget (services/totals.ts); neither counts a 90-day window row by row.
 */
function listPager(k: KindDef, engine: ReadingDb['engine'], filtered: (q: LogFilters, x: Knex | Knex.Transaction) => Rows<LogRow>, sortColumns: Record<string, string>) {
  return async (knex: Knex, q: ListQuery, budget: number) => {
    const db: ReadingDb = { knex, engine }
    const page = q.page ?? 1
    const perPage = q.per_page ?? 50
    const order = q.sort_order ?? 'asc'
    const offset = (page - 1) * perPage
    const pageOf = <R extends LogRow>(qb: Rows<R>) =>
      qb
        .orderBy(sortColumns[q.sort_by ?? 'timestamp'] ?? 'timestamp', order)
        .orderBy('id', order)
        .limit(perPage)
        .offset(offset)
    /** The page sorted out of all the matches (one pass over the search index), with their number. */
    const fromMatches = (x: Knex | Knex.Transaction = knex) => pageOf(allMatches(x, filtered(q, x)))
    const dim = rollupDimension(k, q)
    let counted: CappedCount
    let rows: PageRow[]
    let total: number
    if (dim) {
      let exact: FilteredTotal
      ;[total, exact, rows] = await Promise.all([rowCount(knex, k), rollupTotal(knex, k, q, dim, (f) => filtered(f, knex)), pageOf(filtered(q, knex))])
      counted = { n: exact.n, stopped: null }
    } else {
      // Count first, within the time budget. It finished: the matches are few, so the page is
      // sorted out of them all rather than walking the time index past every row of the window.
      // It stopped at the cap: they are many, and that walk is short. It ran out of time: the
      // walk is tried within the same budget, then the matches are read whole (exactly counted).
      ;[total, counted] = await Promise.all([rowCount(knex, k), cappedCount(db, filtered(q, knex), budget)])
      if (counted.stopped === null) rows = await fromMatches()
      else if (counted.stopped === 'cap') rows = await pageOf(filtered(q, knex))
      else {
        // Out of time, frequency unknown: the walk (fast for a frequent term) and the read of all
        // the matches (fast for a rare one) race, each within SLOW_PAGE_MS; the first answer wins.
        const within = (ms: number, read: (x: Knex | Knex.Transaction) => Promise<PageRow[]>) =>
          withBudget(db, ms, read).then((r) => (r === 'time' ? Promise.reject(Object.assign(new Error('statement timeout'), { code: '57014' })) : r))
        const walk = (x: Knex | Knex.Transaction) => pageOf(filtered(q, x))
        rows = await within(budget, walk).catch(() =>
          Promise.any([within(SLOW_PAGE_MS, walk), within(SLOW_PAGE_MS, (x) => fromMatches(x))]).catch((e: AggregateError) => {
            throw e.errors[0]
          }),
        )
        if (rows.length && rows[0].aaa_matches !== undefined) counted = { n: Number(rows[0].aaa_matches), stopped: null }
      }
    }
    const { n: totalByFilter, capped } = pageBound(counted, offset, perPage, rows.length)
    return { items: rows.map((row) => toEntry(k, row)), total, total_by_filter: totalByFilter, total_by_filter_capped: capped, page, per_page: perPage, pages: Math.ceil(totalByFilter / perPage) }
  }
}

type ListQuery = LogFilters & { page?: number; per_page?: number; sort_by?: string; sort_order?: 'asc' | 'desc' }

/** Where the exports say how stale their rows are (absent when they were read on the primary). */
export const REPLICA_LAG_HEADER = 'X-Replica-Lag-Ms'

const LOG_EXPORT_DOWNLOAD: DownloadDeclaration = {
  ...EXPORT_DOWNLOAD,
  headers: {
    ...EXPORT_DOWNLOAD.headers,
    [REPLICA_LAG_HEADER]: {
      description:
        'Present when the rows were read on the read replica (DATABASE_READ_URL): how far its data was behind the primary, in ms (0: caught up). Absent when they were read on the primary.',
      schema: Type.Integer({ minimum: 0 }),
    },
  },
}

const LAG_DOC =
  ' Lists, searches and exports read the hot standby of `DATABASE_READ_URL` when one is configured and at most `DATABASE_READ_MAX_LAG_MS` behind (else the primary): `replica_lag_ms` says how stale the answer may be.'

function kindRoutes(d: LogsRouteDeps, k: KindDef): RouteDefinition[] {
  const knex = d.database.knex
  const engine = d.database.engine
  const base = `/aaa/logs/${k.path}`
  const sortColumns = Object.fromEntries(k.sortBy.map((s) => [s, s]))
  const columns = exportColumns(k)
  const entry = (row: LogRow) => toEntry(k, row)
  const filtered = (q: LogFilters, x: Knex | Knex.Transaction) => {
    const qb = logRows(x, k)
    applyLogFilters(k, qb, q)
    return qb
  }
  const listPage = listPager(k, engine, filtered, sortColumns)
  const ordered = (q: LogFilters & { sort_by?: string; sort_order?: 'asc' | 'desc' }, x: Knex) => {
    const order = q.sort_order ?? 'desc'
    return filtered(q, x)
      .orderBy(sortColumns[q.sort_by ?? 'timestamp'] ?? 'timestamp', order)
      .orderBy('id', order)
  }
  return [
    defineRoute({
      method: 'GET',
      path: base,
      permission: LOGS_READ,
      summary: `List the ${k.summary}`,
      description: `${FILTER_DOC} Kind filters: ${[...Object.keys(k.enumFilters), ...k.textFilters].map((f) => `\`${f}\``).join(', ') || 'none'}.${LAG_DOC}`,
      tags: ['aaa-logs'],
      schema: { query: logListQuery(k), response: { 200: listSchema(k), 422: ErrorBody } },
      handler: async ({ query: q }) => {
        checkLogFilters(q)
        const budget = await d.settings.get(listSettingRefs.countBudgetMs)
        // Stale-tolerant: the read replica when it is fit (and the primary again if it fails midway).
        return d.database.read(async ({ knex: reader, lagMs }) => ({ ...(await listPage(reader, q, budget)), replica_lag_ms: lagMs }))
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/export`,
      permission: LOGS_READ,
      summary: `Export the ${k.summary}`,
      description: `The list's filters and sort, as a file: \`format\` \`xlsx\` (default) or \`csv\`. With \`page\` (and \`per_page\`, default 50) that page only; without, the whole filtered set up to ${EXPORT_CEILING.toLocaleString('en')} rows, and a cut export says so in \`X-Service-Export-Truncated: true\`. \`X-Service-Export-Rows\` gives the number of rows in the file; \`Content-Disposition\` names it \`${k.fileBase}-YYYYMMDD-HHMMSS.<format>\` (UTC). CSV is RFC 4180 (UTF-8 with BOM, CRLF); a text cell starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a CR is prefixed with \`'\` so spreadsheet programs do not evaluate it. XLSX cells are plain values, never formulas. Times are ISO-8601 UTC. Read on the hot standby of \`DATABASE_READ_URL\` when one is configured and fit, and then \`${REPLICA_LAG_HEADER}\` gives how far behind the primary it was (ms); absent when read on the primary.`,
      tags: ['aaa-logs'],
      download: LOG_EXPORT_DOWNLOAD,
      schema: { query: logExportQuery(k), response: { 200: 'file', 422: ErrorBody } },
      handler: async ({ query: q }) => {
        checkLogFilters(q)
        const { rows, truncated, lagMs } = await d.database.read(async ({ knex: reader, lagMs }) => {
          const qb = ordered(q, reader)
          if (q.page !== undefined || q.per_page !== undefined) {
            const per = q.per_page ?? 50
            return { rows: await qb.limit(per).offset(((q.page ?? 1) - 1) * per), truncated: false, lagMs }
          }
          const all = await qb.limit(EXPORT_CEILING + 1)
          const cut = all.length > EXPORT_CEILING
          if (cut) all.length = EXPORT_CEILING
          return { rows: all, truncated: cut, lagMs }
        })
        const r = exportReply({
          rows: rows.map(entry),
          columns,
          format: q.format ?? 'xlsx',
          fileBase: k.fileBase,
          rowCount: rows.length,
          truncated,
          sheetName: k.summary,
        })
        if (lagMs !== null) r.headers = { ...r.headers, [REPLICA_LAG_HEADER]: String(lagMs) }
        return r
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/{log_id}`,
      permission: LOGS_READ,
      summary: `Get one ${k.summary} entry`,
      description: 'Every column of the entry, with the raw line reference (`source_file`, `source_offset`).',
      tags: ['aaa-logs'],
      schema: { params: LogParams, response: { 200: entrySchema(k, false), 404: ErrorBody } },
      handler: async ({ params }) => {
        // The primary: an entry opened from a list read on the replica is there too, and may be newer than it.
        const row = await logRows(knex, k).where({ id: params.log_id }).first()
        if (!row) throw CommonErrors.notFound({ field: 'log_id' })
        return entry(row)
      },
    }),
  ]
}

export const logKindRoutes = (d: LogsRouteDeps): RouteDefinition[] => KINDS.flatMap((k) => kindRoutes(d, k))
