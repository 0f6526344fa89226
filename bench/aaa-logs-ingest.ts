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
 *   the same lines ingested again (a new node id each time), BENCH_INDEX_ROUNDS
 *   (2) times per stage, first with everything in place, then taking away one
 *   after the other the rollup triggers and each secondary index, down to the
 *   primary key and the row counts: the difference between two stages is what
 *   the thing taken away costs per line.
 */
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { chmodSync, createWriteStream } from 'node:fs'
import type pg from 'pg'
import type { App } from '../kernel/app.js'
import type { Logger } from '../sdk/index.js'
import { createIngester } from '../plugins/aaa-logs/ingest/index.js'
import { ingestSettingRefs } from '../plugins/aaa-logs/ingest/settings.js'
import { cliExclusions, tableSettings } from '../plugins/aaa-logs/test/standalone-deps.js'
import { envInt, tempDir } from './lib.js'

const TABLE = 'aaa_log_tacacs_authz'
const USERS = 20_000
const DEVICES = 5_000
const COMMANDS = ['show running-config', 'show interfaces', 'show ip route', 'show version', 'configure terminal', 'interface', 'ping', 'write memory']

/** Line `i` of tac_plus-ng's authorization log as the rendered configuration writes it (`ts`: its time stamp); 10% from `monitor`. */
export function authorizationLine(i: number, ts: string): string {
  const user = i % 10 === 0 ? 'monitor' : `user${String(Math.floor(USERS * Math.random() ** 3)).padStart(5, '0')}`
  const d = i % DEVICES
  const cmd = COMMANDS[i % COMMANDS.length]
  return (
    [ts, 'authorization', i % 20 === 1 ? 'AUTHZ-FAIL' : 'AUTHZ-PASS', user, `nas-${d}`, `10.20.${Math.floor(d / 250)}.${(d % 250) + 1}`, `tty${i % 16}`, `192.0.2.${(i % 250) + 1}`, `rule-noc-${i % 40}`, `netops-${i % 30}`, i % 20 === 1 ? 'deny' : 'permit', 'shell', '15', `${cmd} ${i}`, `service=shell\\037cmd=${cmd.split(' ')[0]}`, 'priv-lvl=15', '', (i + 1).toString(16)].join('\t') + '\n'
  )
}

async function writeLines(file: string, n: number): Promise<void> {
  const ts = new Date().toISOString().replace('Z', '000+00:00')
  const w = createWriteStream(file)
  for (let i = 0; i < n; i++) {
    const line = authorizationLine(i, ts)
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
}

export async function measureIngestion(app: App, c: pg.Client, dataDir: string, silent: Logger) {
  const lines = envInt('BENCH_INGEST_LINES', 500_000)
  const indexLines = envInt('BENCH_INDEX_LINES', 200_000)
  const batchSize = envInt('BENCH_INGEST_BATCH', ingestSettingRefs.batchSize.default)
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
      logFolders: () => [{ daemon: 'bench', directory: folder }],
      logger: silent,
      cluster: { nodeId, role: 'primary' },
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

  // Bound: the same stored rows, COPY'd by the server from a CSV file into the same table, with their
  // time-ordered ids (a microsecond later, so (id, timestamp) stays unique) as the ingester writes them;
  // then once more without ids, so the column's random default (gen_random_uuid) applies: what the
  // order of the primary key's inserts costs.
  const cols = 'timestamp, username, nas_ip, node_id, device_name, client_address, session_id, source_file, source_offset, action, rule_name, profile, service, priv_lvl, command, arguments, reply_arguments'
  // Exported first (four files, each a microsecond later than the last), then COPY'd alternately with
  // and without ids, twice (the machine's load moves): the faster of each.
  const files: { csv: string; withIds: boolean }[] = []
  for (let i = 1; i <= 4; i++) {
    const withIds = i % 2 === 1
    const csv = path.join(logDir, `bound-${i}.csv`)
    const sel = `${withIds ? 'id, ' : ''}${cols.replace('timestamp,', `timestamp + interval '${i} microsecond',`)}`
    await c.query(`COPY (SELECT ${sel} FROM ${TABLE} WHERE node_id = '${main.nodeId}') TO '${csv}' (FORMAT csv)`)
    files.push({ csv, withIds })
  }
  const timed: { withIds: boolean; ms: number; rate: number; rows: number }[] = []
  for (const f of files) {
    const t0 = performance.now()
    const r = await c.query(`COPY ${TABLE} (${f.withIds ? 'id, ' : ''}${cols}) FROM '${f.csv}' (FORMAT csv)`)
    const ms = performance.now() - t0
    timed.push({ withIds: f.withIds, ms, rate: lines / (ms / 1000), rows: r.rowCount ?? 0 })
  }
  const fastest = (withIds: boolean) => timed.filter((x) => x.withIds === withIds).sort((x, y) => x.ms - y.ms)[0]
  const bound = fastest(true)
  const boundRandom = fastest(false)
  const copyMs = bound.ms
  const copyRate = bound.rate
  console.log(
    `bound: server-side COPY of the ${bound.rows.toLocaleString('en-US')} stored rows into the same table in ${(bound.ms / 1000).toFixed(2)} s = ${Math.round(bound.rate).toLocaleString('en-US')} lines/s equivalent (random ids instead: ${(boundRandom.ms / 1000).toFixed(2)} s = ${Math.round(boundRandom.rate).toLocaleString('en-US')} lines/s); ingester/bound ${(copyRate / main.rate).toFixed(2)}× slower; target ≥ 50,000 lines/s: ${main.rate >= 50_000 ? 'met' : 'NOT met'}`,
  )

  // What each index and the rollup cost: taken away one after the other (no re-creation: the bench ends
  // here), each stage ingesting the same lines BENCH_INDEX_ROUNDS times under a new node id.
  const costs: IndexCost[] = []
  if (process.env.BENCH_INDEX_COST !== '0') {
    const rounds = envInt('BENCH_INDEX_ROUNDS', 2)
    const costDir = path.join(logDir, 'cost')
    mkdirSync(costDir)
    await writeLines(path.join(costDir, `authorization-${new Date().toISOString().slice(0, 10)}.log`), indexLines)
    const idx = (suffix: string) => `${TABLE}_${suffix}`
    const rollup = (await c.query<{ tgname: string }>(`SELECT tgname FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname LIKE '%_rollup_%'`, [TABLE])).rows.map((r) => r.tgname)
    const stages: [string, () => Promise<unknown>][] = [
      ['as shipped', async () => undefined],
      ['− rollup triggers (migration 0004)', async () => { for (const t of rollup) await c.query(`ALTER TABLE ${TABLE} DISABLE TRIGGER ${t}`) }],
      ['− search_trgm (pg_trgm GIN, search)', () => c.query(`DROP INDEX ${idx('search_trgm')}`)],
      ['− nas_ts (nas_ip, timestamp)', () => c.query(`DROP INDEX ${idx('nas_ts')}`)],
      ['− user_ts (username, timestamp)', () => c.query(`DROP INDEX ${idx('user_ts')}`)],
      ['− ts (timestamp, id): primary key and row counts left', () => c.query(`DROP INDEX ${idx('ts')}`)],
    ]
    console.log(`index costs: ${indexLines.toLocaleString('en-US')} lines, ${rounds} rounds per stage, batch ${batchSize}, each stage without what the ones before took away`)
    for (const [variant, take] of stages) {
      await take()
      const runs: IngestRun[] = []
      for (let i = 0; i < rounds; i++) runs.push(await ingest(costDir, indexLines))
      const ms = runs.map((r) => r.ms).sort((x, y) => x - y)[Math.floor((runs.length - 1) / 2)]
      const rate = indexLines / (ms / 1000)
      costs.push({ variant, rate, ms })
      console.log(`  ${variant.padEnd(52)} ${Math.round(rate).toLocaleString('en-US').padStart(7)} lines/s (${(ms / 1000).toFixed(2)} s; rounds ${runs.map((r) => (r.ms / 1000).toFixed(2)).join(', ')} s)`)
    }
  }
  return { lines, batchSize, main, copyMs, copyRate, boundRandom, costs }
}
