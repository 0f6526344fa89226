/**
 * Figure 5 of bench/aaa-logs.ts: the ingester on a loaded table, and what each
 * index and the rollup triggers cost it.
 *
 * - Main figure: BENCH_INGEST_LINES (500,000) tac_plus-ng authorization lines in
 *   one file, 10% from a user an exclusion rule drops, through createIngester
 *   (pollOnce; COPY FROM STDIN per batch on PostgreSQL) into the loaded table.
 *   Bound: a server-side COPY of the same stored rows (CSV file) into the same
 *   table: the database's own cost of taking these rows, with no client at all.
 * - Index costs (BENCH_INDEX_COST=0 skips them): BENCH_INDEX_LINES (200,000) of
 *   the same lines ingested again (a new node id each time) with everything in
 *   place, then with one secondary index dropped (re-created after, its build
 *   time noted), with the rollup triggers disabled, and finally with neither
 *   secondary indexes nor rollup (only the primary key and the row counts).
 */
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { chmodSync, createWriteStream } from 'node:fs'
import type pg from 'pg'
import type { App } from '../kernel/app.js'
import type { Logger } from '../sdk/index.js'
import { createIngester } from '../plugins/aaa-logs/ingest/index.js'
import { cliExclusions, envOptions, tableSettings } from '../plugins/aaa-logs/test/standalone-deps.js'
import { envInt, tempDir } from './lib.js'

const TABLE = 'aaa_log_tacacs_authz'
const USERS = 20_000
const DEVICES = 5_000
const COMMANDS = ['show running-config', 'show interfaces', 'show ip route', 'show version', 'configure terminal', 'interface', 'ping', 'write memory']

async function writeLines(file: string, n: number): Promise<void> {
  const ts = new Date().toISOString().replace('Z', '000+00:00')
  const w = createWriteStream(file)
  for (let i = 0; i < n; i++) {
    const user = i % 10 === 0 ? 'monitor' : `user${String(Math.floor(USERS * Math.random() ** 3)).padStart(5, '0')}`
    const d = i % DEVICES
    const cmd = COMMANDS[i % COMMANDS.length]
    const line =
      [ts, 'authorization', i % 20 === 1 ? 'AUTHZ-FAIL' : 'AUTHZ-PASS', user, `nas-${d}`, `10.20.${Math.floor(d / 250)}.${(d % 250) + 1}`, `tty${i % 16}`, `192.0.2.${(i % 250) + 1}`, `rule-noc-${i % 40}`, `netops-${i % 30}`, i % 20 === 1 ? 'deny' : 'permit', 'shell', '15', `${cmd} ${i}`, `service=shell\\037cmd=${cmd.split(' ')[0]}`, 'priv-lvl=15', '', (i + 1).toString(16)].join('\t') + '\n'
    if (!w.write(line)) await new Promise<void>((r) => w.once('drain', () => r()))
  }
  await new Promise<void>((r) => w.end(() => r()))
}

export interface IngestRun {
  lines: number
  ms: number
  rate: number
  stored: number
  dropped: number
  parseMs: number
  dbMs: number
  copied: number
}

export interface IndexCost {
  variant: string
  rate: number
  ms: number
  /** Build time of what was dropped, re-created after the run (ms). */
  rebuildMs: number | null
}

export async function measureIngestion(app: App, c: pg.Client, dataDir: string, silent: Logger) {
  const lines = envInt('BENCH_INGEST_LINES', 500_000)
  const indexLines = envInt('BENCH_INDEX_LINES', 200_000)
  const batchSize = envInt('BENCH_INGEST_BATCH', 2000)
  const knex = app.db.knex
  await knex('aaa_log_exclusions').insert({ name: 'bench-monitor', protocol: 'tacacs', match_type: 'username', match_value: 'monitor' })
  const logDir = tempDir('portcullis-bench-ingest-')
  chmodSync(logDir, 0o777)

  /** Ingest `file` (in its own folder) under a new node id. */
  const ingest = async (folder: string, n: number): Promise<IngestRun & { nodeId: string }> => {
    const nodeId = randomUUID()
    const ing = createIngester({
      database: app.db,
      settings: tableSettings(knex, { 'aaa-logs.ingest_enabled': true, 'aaa-logs.batch_size': batchSize }),
      serverOptions: envOptions({ 'aaa-logs.tacacs_log_directory': folder, 'aaa-logs.radius_log_directory': folder }),
      logger: silent,
      cluster: { nodeId, role: 'primary' },
      platform: { version: 'bench', dataDir, startedAt: new Date() },
      loadExclusions: cliExclusions(),
    })
    const t0 = performance.now()
    await ing.pollOnce()
    const ms = performance.now() - t0
    const stored = Number((await c.query(`SELECT count(*) n FROM ${TABLE} WHERE node_id = $1`, [nodeId])).rows[0].n)
    const dropped = Number((await c.query(`SELECT coalesce(sum(dropped), 0) n FROM aaa_log_exclusion_drops WHERE node_id = $1`, [nodeId])).rows[0].n)
    const s = ing.core.stats
    return { nodeId, lines: n, ms, rate: n / (ms / 1000), stored, dropped, parseMs: s.parseMs, dbMs: s.dbMs, copied: s.copied }
  }

  const mainDir = path.join(logDir, 'main')
  const { mkdirSync } = await import('node:fs')
  mkdirSync(mainDir)
  await writeLines(path.join(mainDir, `authorization-${new Date().toISOString().slice(0, 10)}.log`), lines)
  const main = await ingest(mainDir, lines)
  console.log(
    `ingester: ${lines.toLocaleString('en-US')} lines in ${(main.ms / 1000).toFixed(2)} s = ${Math.round(main.rate).toLocaleString('en-US')} lines/s; stored ${main.stored.toLocaleString('en-US')} (${main.copied.toLocaleString('en-US')} through COPY), dropped ${main.dropped.toLocaleString('en-US')} (batch ${batchSize}; parse+exclude+encode ${Math.round(main.parseMs)} ms, database ${Math.round(main.dbMs)} ms)`,
  )

  // Bound: the same stored rows, COPY'd by the server from a CSV file into the same table.
  const cols = 'timestamp, username, nas_ip, node_id, device_name, client_address, session_id, source_file, source_offset, action, rule_name, profile, service, priv_lvl, command, arguments, reply_arguments'
  const csvPath = path.join(logDir, 'bound.csv')
  await c.query(`COPY (SELECT ${cols} FROM ${TABLE} WHERE node_id = '${main.nodeId}') TO '${csvPath}' (FORMAT csv)`)
  const tc = performance.now()
  const copied = await c.query(`COPY ${TABLE} (${cols}) FROM '${csvPath}' (FORMAT csv)`)
  const copyMs = performance.now() - tc
  const copyRate = lines / (copyMs / 1000)
  console.log(
    `bound: server-side COPY of the ${copied.rowCount?.toLocaleString('en-US')} stored rows into the same table in ${(copyMs / 1000).toFixed(2)} s = ${Math.round(copyRate).toLocaleString('en-US')} lines/s equivalent; ingester/bound ${(copyRate / main.rate).toFixed(2)}× slower; target ≥ 50,000 lines/s: ${main.rate >= 50_000 ? 'met' : 'NOT met'}`,
  )

  const costs: IndexCost[] = []
  if (process.env.BENCH_INDEX_COST !== '0') {
    const costDir = path.join(logDir, 'cost')
    mkdirSync(costDir)
    await writeLines(path.join(costDir, `authorization-${new Date().toISOString().slice(0, 10)}.log`), indexLines)
    const defs = (await c.query<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1 AND indexname NOT LIKE '%_pkey' ORDER BY indexname`, [TABLE])).rows
    const rollup = (await c.query<{ tgname: string }>(`SELECT tgname FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname LIKE '%_rollup_%'`, [TABLE])).rows.map((r) => r.tgname)
    const run = async (variant: string, rebuild: () => Promise<number | null>) => {
      const r = await ingest(costDir, indexLines)
      const rebuildMs = await rebuild()
      costs.push({ variant, rate: r.rate, ms: r.ms, rebuildMs })
      console.log(`  ${variant.padEnd(46)} ${Math.round(r.rate).toLocaleString('en-US').padStart(7)} lines/s (${(r.ms / 1000).toFixed(2)} s)${rebuildMs !== null ? `; re-created in ${(rebuildMs / 1000).toFixed(1)} s` : ''}`)
    }
    const recreate = async (def: string) => {
      const t0 = performance.now()
      await c.query(`SET maintenance_work_mem = '512MB'`)
      await c.query(def.replace(' ON ONLY ', ' ON '))
      return performance.now() - t0
    }
    const triggers = async (on: boolean) => {
      for (const t of rollup) await c.query(`ALTER TABLE ${TABLE} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${t}`)
    }
    console.log(`index costs: ${indexLines.toLocaleString('en-US')} lines each, batch ${batchSize}, a new node id per run`)
    await run('everything (as shipped)', async () => null)
    await triggers(false)
    await run('without the rollup triggers', async () => (await triggers(true), null))
    for (const d of defs) {
      await c.query(`DROP INDEX ${d.indexname}`)
      await run(`without ${d.indexname}`, () => recreate(d.indexdef))
    }
    await run('everything again', async () => null)
    for (const d of defs) await c.query(`DROP INDEX ${d.indexname}`)
    await triggers(false)
    // Last: the bench ends here, so nothing is rebuilt.
    await run('primary key only, no rollup', async () => null)
  }
  return { lines, batchSize, main, copyMs, copyRate, costs }
}
