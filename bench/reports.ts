/**
 * Reports (issue 32): a month of TACACS+ logs summarized by the `aaa-logs.tacacs-activity` report
 * source (figures, charts, detail rows up to the row limit), beside what bounds it, in the same run.
 *
 * Setup. A throwaway PostgreSQL (test/kit startPostgres) and the app started IN PROCESS (kernel
 * startApp, a silent logger) with the plugin aaa-logs. Data as bench/aaa-logs.ts makes it
 * (generate(): INSERT … SELECT generate_series, indexes re-created after the load, ANALYZE), but
 * over the last 30 days: BENCH_REPORT_ROWS (default 10,000,000) TACACS+ rows, 80% authorization
 * (commands) and 20% authentication (logins), the two tables the source reads. The tables' own
 * triggers (row counts, rollup) are off during the load: nothing here reads what they keep.
 *
 * Measured (BENCH_ITERATIONS, default 5, after one warm-up; interleaved iteration by iteration):
 * - source: `run()` of the source over [now − 30 days, now) with BENCH_ROW_LIMIT rows (default
 *   10,000), through a reader from `database.read`, including building the section in JS;
 * - bound: the statements the source ran (captured from knex's query events), replayed one after
 *   the other through bare pg: the SQL aggregate it is built on;
 * - floor: the barest aggregate of the same month, one count per kind
 *   (`count(*) FILTER (…)` over each table): what any summary of the month must at least read.
 * Ratio source/bound is the issue's target (≤ 1.5×); source/floor says what grouping by day, user
 * and device costs over counting alone.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/reports.ts
 * (BENCH_JSON=file writes the figures as JSON).
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { pino } from 'pino'
import { startApp, type App } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import { coreServices, REPORT_WORK_MEM, type Logger, type ReportSection } from '../sdk/index.js'
import { startPostgres } from '../test/kit/postgres.js'
import { generate } from './aaa-logs.js'
import { atExit, envInt, f2, fmtStats, loadAvg, machine, removeDir, runAsMain, stats, tempDir, type Stats } from './lib.js'

const DAY = 86_400_000

export async function runReports(o: { printMachine?: boolean } = {}) {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  const loadStart = loadAvg()
  console.log(`load average at start: ${loadStart} (figures are only comparable on an otherwise idle machine)`)
  const total = envInt('BENCH_REPORT_ROWS', 10_000_000)
  const n = envInt('BENCH_ITERATIONS', 5)
  const rowLimit = envInt('BENCH_ROW_LIMIT', 10_000)
  const sizes = { aaa_log_tacacs_authz: Math.round(total * 0.8), aaa_log_tacacs_authn: Math.round(total * 0.2) }

  const pgc = await startPostgres()
  const stopPg = atExit(() => pgc.destroy())
  const databaseUrl = await pgc.createDatabase('benchreports')
  const dataDir = tempDir('portcullis-bench-reports-')
  const silent = pino({ level: 'silent' }) as unknown as Logger
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, MASTER_KEY: randomBytes(32).toString('hex'), DATABASE_URL: databaseUrl, PLUGINS: 'aaa-logs', LOG_LEVEL: 'silent' })
  let app: App | null = null
  const client = new pg.Client({ connectionString: databaseUrl })
  try {
    app = await startApp(config, { log: silent })
    await client.connect()
    console.log(`\n== Data: ${total.toLocaleString('en-US')} TACACS+ rows over the last 30 days (authorization ${sizes.aaa_log_tacacs_authz.toLocaleString('en-US')}, authentication ${sizes.aaa_log_tacacs_authn.toLocaleString('en-US')}) ==`)
    // The report reads the log tables only: the row-count and rollup triggers (migrations 0003, 0004) are off for
    // the load, which they would make five to eight times longer (docs/benchmarks.md, issue 11), for nothing read here.
    for (const t of Object.keys(sizes)) await client.query(`ALTER TABLE ${t} DISABLE TRIGGER USER`)
    const data = await generate(client, sizes, { days: 30 })
    console.log(`  generation ${(data.totalMs / 1000).toFixed(1)} s in all (indexes ${(data.indexMs / 1000).toFixed(1)} s, ANALYZE ${(data.analyzeMs / 1000).toFixed(1)} s)`)
    for (const t of data.tables) console.log(`  ${t.table}: ${t.rows.toLocaleString('en-US')} rows, table ${t.heap}, indexes ${t.indexes}, total ${t.total}`)

    const source = app.resolveDeps('aaa-logs', { rs: coreServices.reportSources }).rs.get('aaa-logs.tacacs-activity')
    if (!source) throw new Error('aaa-logs.tacacs-activity is not registered')
    const to = new Date()
    const from = new Date(to.getTime() - 30 * DAY)
    const actor = { id: '00000000-0000-4000-8000-000000000001', username: 'bench', isAdmin: true, permissions: new Set<string>() }
    const knex = app.db.knex
    const statements: { sql: string; bindings: unknown[] }[] = []
    const onQuery = (q: { sql: string; bindings?: unknown[] }) => {
      if (q.sql.includes('aaa_log_tacacs')) statements.push({ sql: q.sql, bindings: q.bindings ?? [] })
    }
    const runSource = async (): Promise<{ ms: number; section: ReportSection }> => {
      const t0 = performance.now()
      const section = await app!.db.read((reader) => source.run({ reader, from, to, deviceGroupId: null, userGroupId: null, rowLimit, signal: new AbortController().signal, actor }))
      return { ms: performance.now() - t0, section }
    }
    const replay = async (st: { sql: string; bindings: unknown[] }[]) => {
      const t0 = performance.now()
      for (const s of st) await client.query(s.sql, s.bindings)
      return performance.now() - t0
    }
    const floorSql = `SELECT (SELECT count(*) FILTER (WHERE status = 'success') FROM aaa_log_tacacs_authn WHERE timestamp >= $1 AND timestamp < $2) AS logins,
        (SELECT count(*) FILTER (WHERE status <> 'success') FROM aaa_log_tacacs_authn WHERE timestamp >= $1 AND timestamp < $2) AS failed,
        (SELECT count(*) FROM aaa_log_tacacs_authz WHERE timestamp >= $1 AND timestamp < $2 AND command <> '') AS commands`
    const floor = async () => {
      const t0 = performance.now()
      await client.query(floorSql, [from.toISOString(), to.toISOString()])
      return performance.now() - t0
    }

    // The bound runs with the work_mem a report's statement gets (sdk/report-kit.ts), as the source does.
    await client.query(`SET work_mem = '${REPORT_WORK_MEM}'`)
    // Warm-up (the month's pages into the cache, as a second report of the day finds them), capturing the statements.
    knex.on('query', onQuery)
    const warm = await runSource()
    knex.removeListener('query', onQuery)
    await replay(statements)
    await floor()
    const fig = Object.fromEntries(warm.section.figures.map((f) => [f.label.en, f.value]))
    console.log(`\n== The report: ${statements.length} statements; figures ${JSON.stringify(fig)}; ${warm.section.charts.length} charts (${warm.section.charts.map((c) => c.points.length).join('/')} points); ${warm.section.rows.length.toLocaleString('en-US')} rows, truncated ${warm.section.truncated}, total ${warm.section.totalRows?.toLocaleString('en-US')} ==`)

    const src: number[] = []
    const bnd: number[] = []
    const flr: number[] = []
    for (let i = 0; i < n; i++) {
      src.push((await runSource()).ms)
      bnd.push(await replay(statements))
      flr.push(await floor())
    }
    const s: Stats = stats(src)
    const b: Stats = stats(bnd)
    const f: Stats = stats(flr)
    console.log(`  source (figures + charts + ${rowLimit.toLocaleString('en-US')} rows): ${fmtStats(s)}`)
    console.log(`  bound (its statements through bare pg): ${fmtStats(b)}; source/bound ${(s.median / b.median).toFixed(2)}× (median); target ≤ 1.5×: ${s.median / b.median <= 1.5 ? 'met' : 'NOT met'}`)
    console.log(`  floor (one count per kind over the month): ${fmtStats(f)}; source/floor ${(s.median / f.median).toFixed(2)}× (median)`)
    const loadEnd = loadAvg()
    console.log(`load average at the end: ${loadEnd}`)
    return { machine: m, loadStart, loadEnd, rows: total, rowLimit, statements: statements.length, source: s, bound: b, floor: f, ratio: s.median / b.median, ratioFloor: s.median / f.median, medianMs: f2(s.median) }
  } finally {
    await client.end().catch(() => undefined)
    if (app) await app.stop().catch(() => undefined)
    stopPg()
    removeDir(dataDir)
  }
}

runAsMain(import.meta.url, () => runReports())
