/**
 * Backup and restore (issue 28): `portcullis backup` and `portcullis restore`
 * on an installation holding 1,000,000 log rows, beside `pg_dump -Fc` and
 * `pg_restore` of the same database (the bound: the engine's own tools, which
 * know nothing of checksums, seals or plugins).
 *
 * Setup. A throwaway PostgreSQL (test/kit startPostgres) and the app started
 * IN PROCESS with the default edition (package.json `portcullis.editions.community`), a
 * silent logger. Data: BENCH_BACKUP_ROWS (1,000,000) log rows by bulk SQL
 * through the log tables' own triggers (so their counters and rollup hold what
 * ingestion would have written): 60% TACACS+ authentication, 40% RADIUS
 * authentication, over the last 90 days (each month its partition, as the
 * ingester makes them), 5,000 user names, 2,000 NAS addresses, messages and
 * reply attributes of ordinary length. Then VACUUM ANALYZE.
 *
 * Measured (BENCH_BACKUP_RUNS, default 3, interleaved; median and min):
 * 1. backup: the archive written to a file by the code `portcullis backup`
 *    runs (BackupService.toFile, in this process: the command's boot is not
 *    counted). Bound: `pg_dump -Fc -f FILE` of the same database.
 * 2. restore: `portcullis restore`'s code (restoreArchive: the whole archive
 *    checked, the schema migrated to the archive's, the rows loaded in one
 *    transaction, indexes rebuilt) into a new database. Bound: `pg_restore -d`
 *    of the dump into a new database (schema, data, indexes, triggers).
 * Sizes: the archive and the dump.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/backup.ts
 */
import { randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import path from 'node:path'
import { pino } from 'pino'
import { startApp, type App } from '../kernel/app.js'
import { restoreArchive } from '../kernel/backup/restore.js'
import { migrationOwners } from '../kernel/cli/backup.js'
import { loadConfig } from '../kernel/config.js'
import { loadPlugins, orderPlugins } from '../kernel/plugins/load.js'
import { packageEditions, projectRoot } from '../kernel/version.js'
import type { Logger } from '../sdk/index.js'
import { ensureMonthlyPartitions } from '../plugins/aaa-logs/ingest/partitions.js'
import { findPgBin, startPostgres } from '../test/kit/postgres.js'
import { atExit, envInt, f2, loadAvg, machine, median, min, removeDir, runAsMain, tempDir } from './lib.js'

interface Timing {
  n: number
  median: number
  min: number
}
const timing = (xs: number[]): Timing => ({ n: xs.length, median: median(xs), min: min(xs) })
const sec = (msv: number) => `${(msv / 1000).toFixed(1)} s`
const fmt = (t: Timing) => `median ${sec(t.median)}, min ${sec(t.min)} (n=${t.n})`
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

function timed(cmd: string, args: string[]): number {
  const t0 = performance.now()
  const r = spawnSync(cmd, args, { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} failed (${r.status}): ${r.stderr}`)
  return performance.now() - t0
}

export async function generate(app: App, rows: number): Promise<number> {
  const t0 = performance.now()
  const knex = app.db.knex
  const log = pino({ level: 'silent' }) as unknown as Logger
  // The months of the 90 days of history, each its own partition, as the ingester keeps them.
  for (let back = 0; back <= 3; back++) {
    const d = new Date()
    d.setUTCMonth(d.getUTCMonth() - back, 15)
    await ensureMonthlyPartitions(knex, log, { now: d, ahead: 0 })
  }
  const tacacs = Math.round(rows * 0.6)
  await knex.transaction(async (trx) => {
    await trx.raw('SET LOCAL statement_timeout = 0')
    await trx.raw(`INSERT INTO aaa_log_tacacs_authn (timestamp, username, nas_ip, node_id, device_name, client_address, session_id, source_file, source_offset, status, rule_name, profile, authen_type, port, message)
      SELECT now() - (random() * interval '90 days'), 'user' || lpad((g % 5000)::text, 5, '0'), ('10.20.' || (g % 2000) / 250 || '.' || (g % 250))::inet, gen_random_uuid(),
             'nas-' || (g % 2000), '192.0.2.' || (g % 200), md5(g::text), '/var/log/portcullis/tacacs/authentication.log', g * 180,
             CASE WHEN g % 10 = 0 THEN 'failure' ELSE 'success' END, 'rule-' || (g % 40), 'profile-' || (g % 30), 'ascii', 'tty' || (g % 4),
             CASE WHEN g % 10 = 0 THEN 'authentication failed: bad password' ELSE 'shell login succeeded' END
        FROM generate_series(1, ${tacacs}) g`)
    await trx.raw(`INSERT INTO aaa_log_radius_auth (timestamp, username, nas_ip, node_id, device_name, source_file, source_offset, status, auth_type, rule_name, calling_station_id, called_station_id, nas_port, nas_identifier, reply_attributes, reason)
      SELECT now() - (random() * interval '90 days'), 'user' || lpad((g % 5000)::text, 5, '0'), ('10.30.' || (g % 2000) / 250 || '.' || (g % 250))::inet, gen_random_uuid(),
             'nas-' || (g % 2000), '/var/log/portcullis/radius/authentication.log', g * 220,
             CASE WHEN g % 12 = 0 THEN 'reject' ELSE 'accept' END, CASE WHEN g % 3 = 0 THEN 'PAP' ELSE 'MS-CHAPv2' END, 'rule-' || (g % 40),
             '00-11-22-' || lpad(to_hex(g % 65536), 4, '0'), 'ap-' || (g % 300), (g % 48)::text, 'switch-' || (g % 2000),
             '[{"name":"Service-Type","value":"Administrative-User"},{"name":"Cisco-AVPair","value":"shell:priv-lvl=15"}]'::jsonb,
             CASE WHEN g % 12 = 0 THEN 'no rule matched' ELSE NULL END
        FROM generate_series(1, ${rows - tacacs}) g`)
  })
  await knex.raw('VACUUM ANALYZE')
  return performance.now() - t0
}

export async function runBackupBench(o: { printMachine?: boolean } = {}) {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  const rows = envInt('BENCH_BACKUP_ROWS', 1_000_000)
  const runs = envInt('BENCH_BACKUP_RUNS', 3)
  const bin = findPgBin()
  if (!bin) throw new Error('no PostgreSQL binaries (pg_dump, pg_restore) under /usr/lib/postgresql/*/bin')
  const loadStart = loadAvg()
  console.log(`\nbackup and restore (issue 28): ${rows.toLocaleString('en')} log rows, ${runs} runs; load average at start: ${loadStart}`)

  const pgc = await startPostgres()
  const stopPg = atExit(() => pgc.destroy())
  const dir = tempDir('portcullis-bench-backup-')
  const masterKey = randomBytes(32).toString('hex')
  const plugins = packageEditions().community
  const silent = pino({ level: 'silent' }) as unknown as Logger
  const databaseUrl = await pgc.createDatabase('benchbackup')
  const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(dir, 'source'), MASTER_KEY: masterKey, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', DB_STATEMENT_TIMEOUT_MS: '3600000' }
  const app = await startApp(loadConfig(env, { plugins }), { log: silent })
  try {
    const generateMs = await generate(app, rows)
    const tableBytes = Number((await app.db.knex.raw(`SELECT sum(pg_total_relation_size(c.oid)) AS b FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'`)).rows[0].b)
    console.log(`  data: ${rows.toLocaleString('en')} rows generated in ${sec(generateMs)}; the database holds ${mib(tableBytes)} (tables and indexes)`)

    const ours = { backup: [] as number[], restore: [] as number[] }
    const bound = { backup: [] as number[], restore: [] as number[] }
    let archiveBytes = 0
    let dumpBytes = 0
    let archiveRows = 0
    for (let i = 0; i < runs; i++) {
      const archive = path.join(dir, `run${i}.tar.gz`)
      let t0 = performance.now()
      const s = await app.backups.toFile(archive)
      ours.backup.push(performance.now() - t0)
      archiveBytes = s.bytes
      archiveRows = s.rows
      const dump = path.join(dir, `run${i}.dump`)
      bound.backup.push(timed(path.join(bin, 'pg_dump'), ['-Fc', '-f', dump, databaseUrl]))
      dumpBytes = statSync(dump).size

      const target = await pgc.createDatabase('benchrestore')
      const config = loadConfig({ ...env, DATA_DIR: path.join(dir, `target${i}`), DATABASE_URL: target }, { plugins })
      const loaded = orderPlugins(await loadPlugins(config.plugins, { root: projectRoot(), codeDir: projectRoot() }))
      t0 = performance.now()
      await restoreArchive({ file: archive, force: false, config, owners: migrationOwners({ config, plugins: loaded, codeDir: projectRoot() }), log: silent, progress: process.env.BENCH_VERBOSE ? (l) => console.log(`    ${sec(performance.now() - t0)} ${l}`) : undefined })
      ours.restore.push(performance.now() - t0)
      const plain = await pgc.createDatabase('benchpgrestore')
      bound.restore.push(timed(path.join(bin, 'pg_restore'), ['-d', plain, dump]))
      console.log(`  run ${i + 1}: backup ${sec(ours.backup[i])} (pg_dump ${sec(bound.backup[i])}), restore ${sec(ours.restore[i])} (pg_restore ${sec(bound.restore[i])})`)
      removeDir(path.join(dir, `target${i}`))
    }
    const result = {
      machine: m.line,
      rows,
      archiveRows,
      generateMs,
      backup: timing(ours.backup),
      pgDump: timing(bound.backup),
      restore: timing(ours.restore),
      pgRestore: timing(bound.restore),
      archiveBytes,
      dumpBytes,
      loadStart,
      loadEnd: loadAvg(),
    }
    console.log(`  backup  (portcullis backup):   ${fmt(result.backup)}; archive ${mib(archiveBytes)} (${archiveRows.toLocaleString('en')} rows of every table)`)
    console.log(`  bound   (pg_dump -Fc):         ${fmt(result.pgDump)}; dump ${mib(dumpBytes)}`)
    console.log(`  backup / bound: ${f2(result.backup.median / result.pgDump.median)}× (median), ${f2(result.backup.min / result.pgDump.min)}× (min)`)
    console.log(`  restore (portcullis restore):  ${fmt(result.restore)}`)
    console.log(`  bound   (pg_restore):          ${fmt(result.pgRestore)}`)
    console.log(`  restore / bound: ${f2(result.restore.median / result.pgRestore.median)}× (median), ${f2(result.restore.min / result.pgRestore.min)}× (min)`)
    console.log(`\nload average at the end: ${result.loadEnd}`)
    return result
  } finally {
    await app.stop()
    stopPg()
    removeDir(dir)
  }
}

runAsMain(import.meta.url, runBackupBench)
