/**
 * Sizing the log tables (issue 28, docs/cluster.md "When one primary is not
 * enough for the logs"): for each of the five log kinds, lines as the
 * rendered daemons write them go through the real ingester (createIngester,
 * COPY per batch, the row-count and rollup triggers, every index of the
 * migrations, the trigram search index) into a fresh table, and the bench
 * measures:
 * - rows/s of the ingester, one kind at a time, single node;
 * - bytes on disk per row: the kind's partitions (table, TOAST, every index),
 *   and the rollup rows the kind added (migration 0004), after VACUUM ANALYZE;
 * - WAL bytes per row written during the ingestion (what a standby replays).
 *
 * Lines (BENCH_SIZING_LINES per kind, default 200,000, one day): TACACS+
 * authentication, authorization (commands with arguments) and accounting
 * (start/stop); RADIUS authentication (802.1X and MAB, 92% accepts with a
 * VLAN in three reply attributes, rejects with a reason) and accounting
 * (Start, Interim-Update, Stop with counters, framed address, port type).
 * BENCH_SIZING_USERS (50,000) users or endpoints, 2,000 devices: the rollup's
 * share depends on how many distinct (user, day) and (device, day) pairs the
 * day holds, so it is given apart.
 *
 * Figures only. Run: node --import tsx bench/log-sizing.ts (BENCH_JSON=file).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { createWriteStream, mkdirSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { pino } from 'pino'
import { startApp } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import type { Logger } from '../sdk/index.js'
import { LOG_TABLE, type LogKind } from '../plugins/aaa-logs/api.js'
import { createIngester } from '../plugins/aaa-logs/ingest/index.js'
import { cliExclusions, tableSettings } from '../plugins/aaa-logs/test/standalone-deps.js'
import { atExit, envInt, loadAvg, machine, removeDir, runAsMain, tempDir } from './lib.js'
import { startPostgres } from '../test/kit/postgres.js'

const DEVICES = 2000
const CMDS = ['show running-config', 'show interfaces status', 'show ip route 10.0.0.0', 'configure terminal', 'interface GigabitEthernet1/0/12', 'switchport access vlan 120', 'write memory', 'show logging | include LINK']

function tacacsLine(kind: 'authentication' | 'authorization' | 'accounting', i: number, ts: string, user: string): string {
  const d = i % DEVICES
  const dev = [`sw-${String(d).padStart(4, '0')}`, `10.${20 + (d >> 8)}.${d & 255}.1`, `tty${i % 8}`, `192.0.2.${(i % 250) + 1}`]
  const sid = (0x10000 + i).toString(16)
  const cmd = CMDS[i % CMDS.length]
  if (kind === 'authentication') {
    const ok = i % 10 !== 0
    return [ts, kind, ok ? 'AUTHC-PASS' : 'AUTHC-FAIL', user, ...dev, 'noc-admins', 'netops-15', ok ? 'permit' : 'deny', 'ascii', 'login', 'login', ok ? 'succeeded' : 'failed', sid].join('\t') + '\n'
  }
  if (kind === 'authorization') {
    const ok = i % 20 !== 1
    return [ts, kind, ok ? 'AUTHZ-PASS' : 'AUTHZ-FAIL', user, ...dev, 'noc-admins', 'netops-15', ok ? 'permit' : 'deny', 'shell', '15', cmd, `service=shell\\037cmd=${cmd.split(' ')[0]}\\037cmd-arg=${cmd.split(' ').slice(1).join(' ')}`, ok ? 'priv-lvl=15' : '', '', sid].join('\t') + '\n'
  }
  return [ts, kind, 'ACCT', user, ...dev, i % 2 ? 'stop' : 'start', 'shell', '15', cmd, `task_id=${i}\\037service=shell\\037elapsed_time=${i % 3600}`, '', sid].join('\t') + '\n'
}

const mac = (n: number) => ['00', '1b', '63', (n >> 16) & 255, (n >> 8) & 255, n & 255].map((x) => (typeof x === 'number' ? x.toString(16).padStart(2, '0') : x)).join('-').toUpperCase()

function radiusLine(kind: 'auth' | 'acct', i: number, secs: number, user: number): string {
  const d = i % DEVICES
  const common = { v: 1, kind, ts: String(secs), us: String((i * 7919) % 1_000_000), src: `10.${40 + (d >> 8)}.${d & 255}.2`, client: `sw-${String(d).padStart(4, '0')}` }
  const mab = user % 3 === 0
  const name = mab ? mac(user).replace(/-/g, '').toLowerCase() : `user${String(user).padStart(6, '0')}@corp.example`
  const request = {
    'User-Name': name,
    'Calling-Station-Id': mac(user),
    'Called-Station-Id': `${mac(d + 1_000_000)}:corp`,
    'NAS-Port': String(50_000 + (i % 48)),
    'NAS-IP-Address': common.src,
    'NAS-Identifier': common.client,
  }
  const profiling = { 'NAS-Port-Type': 'Ethernet', 'NAS-Port-Id': `GigabitEthernet1/0/${(i % 48) + 1}` }
  if (kind === 'auth') {
    const accept = i % 12 !== 0
    return (
      JSON.stringify({
        ...common,
        result: accept ? 'accept' : 'reject',
        request: accept ? request : { ...request, 'Module-Failure-Message': 'mschap: MS-CHAP2-Response is incorrect' },
        control: { 'Auth-Type': mab ? 'PAP' : 'eap', 'Tmp-String-0': mab ? 'printers-mab' : 'corp-dot1x', 'Tmp-String-1': mab ? 'vlan-printers' : 'vlan-staff', ...(accept ? {} : { 'Tmp-String-2': 'wrong_password' }) },
        profiling,
        replies: accept ? [{ name: 'Tunnel-Type', value: 'VLAN' }, { name: 'Tunnel-Medium-Type', value: 'IEEE-802' }, { name: 'Tunnel-Private-Group-Id', value: mab ? '310' : '120' }] : [],
      }) + '\n'
    )
  }
  const status = ['Start', 'Interim-Update', 'Interim-Update', 'Stop'][i % 4]
  return (
    JSON.stringify({
      ...common,
      request: {
        ...request,
        'Acct-Status-Type': status,
        'Acct-Session-Id': (0x1000000 + user).toString(16).toUpperCase(),
        'Framed-IP-Address': `172.${16 + ((user >> 16) & 15)}.${(user >> 8) & 255}.${user & 255}`,
        ...(status === 'Start' ? {} : { 'Acct-Session-Time': String(i % 86400), 'Acct-Input-Octets': String(i * 1543), 'Acct-Output-Octets': String(i * 9173), 'Acct-Input-Gigawords': '0', 'Acct-Output-Gigawords': '0' }),
      },
      profiling,
    }) + '\n'
  )
}

const FILE: Record<LogKind, (day: string) => string> = {
  tacacs_authentication: (d) => `authentication-${d}.log`,
  tacacs_authorization: (d) => `authorization-${d}.log`,
  tacacs_accounting: (d) => `accounting-${d}.log`,
  radius_authentication: (d) => `radius-auth-${d}.jsonl`,
  radius_accounting: (d) => `radius-acct-${d}.jsonl`,
}

async function writeKind(file: string, kind: LogKind, n: number, users: number): Promise<number> {
  const w = createWriteStream(file)
  let bytes = 0
  const day0 = Math.floor(Date.now() / 86_400_000) * 86_400 // today 00:00 UTC, seconds
  for (let i = 0; i < n; i++) {
    const secs = day0 + Math.floor((i / n) * 86_399)
    const u = Math.floor(users * Math.random() ** 2)
    const ts = new Date(secs * 1000).toISOString().replace('Z', '000+00:00')
    const line =
      kind === 'radius_authentication' ? radiusLine('auth', i, secs, u) : kind === 'radius_accounting' ? radiusLine('acct', i, secs, u) : tacacsLine(kind.slice('tacacs_'.length) as 'authentication', i, ts, `admin${String(u % 2000).padStart(4, '0')}`)
    bytes += Buffer.byteLength(line)
    if (!w.write(line)) await new Promise<void>((r) => w.once('drain', () => r()))
  }
  await new Promise<void>((r) => w.end(() => r()))
  return bytes
}

export interface KindSize {
  kind: LogKind
  rows: number
  ingestMs: number
  rowsPerSecond: number
  lineBytes: number
  tableBytesPerRow: number
  rollupBytesPerRow: number
  walBytesPerRow: number
}

export async function runLogSizing(o: { printMachine?: boolean } = {}) {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average at start: ${loadAvg()}`)
  const n = envInt('BENCH_SIZING_LINES', 200_000)
  const users = envInt('BENCH_SIZING_USERS', 50_000)
  const silent = pino({ level: 'silent' }) as unknown as Logger
  const cluster = await startPostgres()
  atExit(() => cluster.destroy())
  const databaseUrl = await cluster.createDatabase('sizing')
  const dataDir = tempDir('portcullis-bench-sizing-')
  const app = await startApp(loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, MASTER_KEY: randomBytes(32).toString('hex'), PLUGINS: 'aaa-logs' }), { log: silent, background: false })
  const c = new pg.Client({ connectionString: databaseUrl })
  await c.connect()
  const q = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await c.query<R>(sql, params)).rows
  const lsn = async () => (await q<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l'))[0].l
  const walSince = async (from: string) => Number((await q<{ n: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn) AS n', [from]))[0].n)
  const tableBytes = async (table: string) => Number((await q<{ n: string }>(`SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) AS n FROM pg_inherits WHERE inhparent = $1::regclass`, [table]))[0].n)
  const rollupBytes = async () => Number((await q<{ n: string }>(`SELECT pg_total_relation_size('aaa_log_rollup') AS n`))[0].n)
  const out: KindSize[] = []
  try {
    // This month's partitions, as the ingester makes them at start.
    const { ensureMonthlyPartitions } = await import('../plugins/aaa-logs/ingest/partitions.js')
    await ensureMonthlyPartitions(app.db.knex, silent)
    for (const kind of Object.keys(FILE) as LogKind[]) {
      const folder = path.join(dataDir, kind)
      mkdirSync(folder)
      const lineBytes = await writeKind(path.join(folder, FILE[kind](new Date().toISOString().slice(0, 10))), kind, n, users)
      await q('VACUUM ANALYZE aaa_log_rollup')
      const rollup0 = await rollupBytes()
      const wal0 = await lsn()
      const ing = createIngester({
        database: app.db,
        settings: tableSettings(app.db.knex, { 'aaa-logs.ingest_enabled': true }),
        logFolders: () => [{ daemon: 'bench', directory: folder }],
        logger: silent,
        cluster: { nodeId: randomUUID(), role: 'primary' },
        loadExclusions: cliExclusions(),
      })
      const t0 = performance.now()
      await ing.pollOnce()
      const ingestMs = performance.now() - t0
      const wal = await walSince(wal0)
      const table = LOG_TABLE[kind]
      const rows = Number((await q<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0].n)
      await q(`VACUUM ANALYZE ${table}`)
      await q('VACUUM ANALYZE aaa_log_rollup')
      const size: KindSize = {
        kind,
        rows,
        ingestMs,
        rowsPerSecond: rows / (ingestMs / 1000),
        lineBytes: lineBytes / n,
        tableBytesPerRow: (await tableBytes(table)) / rows,
        rollupBytesPerRow: Math.max(0, (await rollupBytes()) - rollup0) / rows,
        walBytesPerRow: wal / rows,
      }
      out.push(size)
      console.log(
        `${kind}: ${rows.toLocaleString('en-US')} rows in ${(ingestMs / 1000).toFixed(1)} s = ${Math.round(size.rowsPerSecond).toLocaleString('en-US')} rows/s; line ${size.lineBytes.toFixed(0)} B; on disk ${size.tableBytesPerRow.toFixed(0)} B/row (table, TOAST, indexes) + rollup ${size.rollupBytesPerRow.toFixed(0)} B/row; WAL ${size.walBytesPerRow.toFixed(0)} B/row`,
      )
    }
    console.log(`load average at the end: ${loadAvg()}`)
    return { machine: m, lines: n, users, kinds: out }
  } finally {
    await c.end()
    await app.stop()
    cluster.destroy()
    removeDir(dataDir)
  }
}

runAsMain(import.meta.url, () => runLogSizing())
