/**
 * Log retention (issue 28): dropping a month of log entries as a partition
 * (what `aaa-logs.retention_months` does, services/retention.ts) against
 * deleting the same number of rows (the bound: what keeping a retention
 * without partitions would cost).
 *
 * Setup. A throwaway PostgreSQL (test/kit startPostgres: fsync and
 * synchronous_commit off, so the DELETE's WAL is written but never waited
 * for: the figures favour the DELETE) and the app in process (aaa-logs, no
 * background jobs). Two months of TACACS+ authorization entries, 14 and 13
 * months ago, each BENCH_RETENTION_ROWS (10,000,000) rows, generated as
 * bench/aaa-logs.ts does (20,000 users zipf-ish, 5,000 devices, 24 commands)
 * through the parent in statements of 1,000,000 rows, so the row-count and
 * rollup triggers (migrations 0003, 0004) keep the totals as ingestion does.
 * The B-tree indexes are dropped before the load and re-created after it;
 * the trigram search index is not re-created (a DELETE does not touch
 * indexes, a DROP removes one file more).
 *
 * Measured, once each (figures only: nothing fails on a timing):
 * 1. `applyRetention` with `aaa-logs.retention_months` = 13: drops the older
 *    month (DETACH, counts and rollup adjusted, DROP, audit) — time, WAL
 *    written, disk space freed at once;
 * 2. the bound: `DELETE FROM aaa_log_tacacs_authz WHERE timestamp` in the
 *    other month (one statement, the triggers adjusting the counts and the
 *    rollup) — time, WAL written, space freed (none until VACUUM), and the
 *    VACUUM that makes it reusable (BENCH_RETENTION_VACUUM=0 skips it).
 * Both leave the lists' totals exact; the bench checks that.
 *
 * Run: node --import tsx bench/log-retention.ts (BENCH_JSON=file writes the figures).
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { pino } from 'pino'
import { startApp } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import { coreServices, type Logger } from '../sdk/index.js'
import { applyRetention, retentionMonths } from '../plugins/aaa-logs/services/retention.js'
import { startPostgres } from '../test/kit/postgres.js'
import { generateSql } from './aaa-logs.js'
import { atExit, envInt, loadAvg, machine, removeDir, runAsMain, tempDir } from './lib.js'

const TABLE = 'aaa_log_tacacs_authz'
const CHUNK = 1_000_000

const monthStart = (ago: number) => {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - ago, 1))
}
const suffix = (d: Date) => `y${d.getUTCFullYear()}m${String(d.getUTCMonth() + 1).padStart(2, '0')}`
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`
const s = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`

export async function runLogRetention(o: { printMachine?: boolean } = {}) {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average at start: ${loadAvg()}`)
  const rows = envInt('BENCH_RETENTION_ROWS', 10_000_000)
  const cluster = await startPostgres()
  atExit(() => cluster.destroy())
  const dataDir = tempDir('portcullis-bench-retention-')
  const databaseUrl = await cluster.createDatabase('retention')
  const silent = pino({ level: 'silent' }) as unknown as Logger
  const app = await startApp(loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, MASTER_KEY: randomBytes(32).toString('hex'), PLUGINS: 'aaa-logs', DB_STATEMENT_TIMEOUT_MS: '0' }), {
    log: silent,
    background: false,
  })
  const c = new pg.Client({ connectionString: databaseUrl })
  await c.connect()
  const q = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await c.query<R>(sql, params)).rows
  const wal = async () => BigInt('0x' + (await q<{ l: string }>(`SELECT pg_current_wal_insert_lsn()::text AS l`))[0].l.split('/').map((x) => x.padStart(8, '0')).join(''))
  const size = async (rel: string) => Number((await q<{ n: string }>(`SELECT pg_total_relation_size($1::regclass) AS n`, [rel]))[0].n)
  const countOf = async () => Number((await q<{ n: string }>(`SELECT count(*) AS n FROM ${TABLE}`))[0].n)
  const counted = async () => Number((await q<{ n: string }>(`SELECT n FROM aaa_log_row_counts WHERE table_name = $1`, [TABLE]))[0].n)
  const rolled = async () => Number((await q<{ n: string | null }>(`SELECT sum(n) AS n FROM aaa_log_rollup WHERE table_name = $1 AND dim = 'node_id'`, [TABLE]))[0].n ?? 0)

  try {
    const old = monthStart(14)
    const kept = monthStart(13)
    const after = monthStart(12)
    for (const [from, to] of [[old, kept], [kept, after]]) {
      await q(`CREATE TABLE ${TABLE}_${suffix(from)} PARTITION OF ${TABLE} FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`)
    }
    const defs = await q<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1 AND indexname NOT LIKE '%_pkey'`, [TABLE])
    for (const d of defs) await q(`DROP INDEX ${d.indexname}`)
    console.log(`loading ${rows.toLocaleString('en-US')} rows into each of two months (${suffix(old)}, ${suffix(kept)}), through the triggers…`)
    const t0 = performance.now()
    for (const [from, to] of [[old, kept], [kept, after]]) {
      for (let done = 0; done < rows; done += CHUNK) {
        const sql = generateSql(TABLE, Math.min(CHUNK, rows - done))
        const spread = `TIMESTAMPTZ '${from.toISOString()}' + random() * (TIMESTAMPTZ '${to.toISOString()}' - TIMESTAMPTZ '${from.toISOString()}' - interval '1 millisecond')`
        if (!sql.includes(`now() - random() * interval '90 days'`)) throw new Error('generateSql changed: its time expression is not where this bench expects it')
        await q(sql.replace(`now() - random() * interval '90 days'`, spread))
      }
    }
    const loadMs = performance.now() - t0
    const t1 = performance.now()
    await q(`SET maintenance_work_mem = '512MB'`)
    for (const d of defs.filter((x) => !x.indexname.endsWith('_search_trgm'))) await q(d.indexdef.replace(' ON ONLY ', ' ON '))
    await q(`ANALYZE ${TABLE}`)
    await q('CHECKPOINT')
    console.log(`  loaded in ${s(loadMs)}, B-tree indexes and ANALYZE in ${s(performance.now() - t1)}`)
    const oldPart = `${TABLE}_${suffix(old)}`
    const keptPart = `${TABLE}_${suffix(kept)}`
    const oldSize = await size(oldPart)
    const keptSize = await size(keptPart)
    console.log(`  ${oldPart}: ${mb(oldSize)}, ${keptPart}: ${mb(keptSize)} (table and indexes)`)

    // 1. The partition drop, as the hourly job does it.
    const deps = { ...app.resolveDeps('aaa-logs', { database: coreServices.database, settings: coreServices.settings, audit: coreServices.audit }), logger: silent }
    await deps.settings.set(retentionMonths, 13)
    const w0 = await wal()
    const d0 = performance.now()
    const run = await applyRetention(deps)
    const dropMs = performance.now() - d0
    const dropWal = Number((await wal()) - w0)
    const dropped = run.dropped.find((x) => x.partition === oldPart)
    if (!dropped || dropped.rows !== rows) throw new Error(`the drop did not take the month whole: ${JSON.stringify(run)}`)
    const exactAfterDrop = (await counted()) === rows && (await rolled()) === rows && (await countOf()) === rows
    console.log(`drop: ${oldPart}, ${dropped.rows.toLocaleString('en-US')} rows, in ${dropMs.toFixed(0)} ms; WAL ${(dropWal / 1024).toFixed(0)} KiB; ${mb(oldSize)} freed at once; totals exact: ${exactAfterDrop}`)

    // 2. The bound: the same number of rows deleted.
    await q('CHECKPOINT')
    const w1 = await wal()
    const e0 = performance.now()
    const del = await c.query(`DELETE FROM ${TABLE} WHERE timestamp >= $1 AND timestamp < $2`, [kept.toISOString(), after.toISOString()])
    const deleteMs = performance.now() - e0
    const deleteWal = Number((await wal()) - w1)
    const sizeAfterDelete = await size(keptPart)
    const exactAfterDelete = (await counted()) === 0 && (await rolled()) === 0
    console.log(
      `bound: DELETE of ${(del.rowCount ?? 0).toLocaleString('en-US')} rows in ${s(deleteMs)} (${Math.round((del.rowCount ?? 0) / (deleteMs / 1000)).toLocaleString('en-US')} rows/s); WAL ${mb(deleteWal)}; disk freed: ${mb(keptSize - sizeAfterDelete)}; totals exact: ${exactAfterDelete}`,
    )
    let vacuumMs: number | null = null
    let sizeAfterVacuum: number | null = null
    if (process.env.BENCH_RETENTION_VACUUM !== '0') {
      const v0 = performance.now()
      await q(`VACUUM ${keptPart}`)
      vacuumMs = performance.now() - v0
      sizeAfterVacuum = await size(keptPart)
      console.log(`  VACUUM of the month afterwards (space reusable, not returned): ${s(vacuumMs)}; size ${mb(sizeAfterVacuum)}`)
    }
    const ratio = deleteMs / dropMs
    console.log(`delete/drop: ${ratio.toFixed(0)}× (drop ${dropMs.toFixed(0)} ms, delete ${s(deleteMs)}${vacuumMs !== null ? `, + VACUUM ${s(vacuumMs)}` : ''})`)
    console.log(`load average at the end: ${loadAvg()}`)
    return {
      machine: m,
      rows,
      loadMs,
      partitionBytes: oldSize,
      drop: { ms: dropMs, walBytes: dropWal, freedBytes: oldSize, exact: exactAfterDrop },
      delete: { ms: deleteMs, rows: del.rowCount, walBytes: deleteWal, freedBytes: keptSize - sizeAfterDelete, exact: exactAfterDelete, vacuumMs, sizeAfterVacuum },
      ratio,
    }
  } finally {
    await c.end()
    await app.stop()
    cluster.destroy()
    removeDir(dataDir)
  }
}

runAsMain(import.meta.url, () => runLogRetention())
