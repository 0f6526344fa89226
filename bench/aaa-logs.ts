/**
 * AAA logs (issue 5): the log lists, search, deep pages, exports and the
 * ingester on tables of realistic size, each beside what bounds it, measured
 * in the same run.
 *
 * Setup. A throwaway PostgreSQL (test/kit startPostgres) and the app started
 * IN PROCESS (kernel startApp, a silent logger) with the plugin aaa-logs, so
 * the server's RSS is this process's (/proc/self/status VmRSS, VmHWM reset
 * through /proc/self/clear_refs before each export). The client is node:http
 * with one keep-alive socket; requests are sequential; a request is timed from
 * the write to the last byte of the answer.
 *
 * Data (bulk SQL, INSERT … SELECT generate_series, one statement per table):
 * BENCH_LOG_ROWS (a scaling factor, default 1) × 10,000,000 rows for TACACS+
 * authorization and RADIUS authentication, × 2,000,000 for the other three.
 * 20,000 user names drawn zipf-ish (index = 20000·u³: user00000 has ~3.7% of
 * the rows), 5,000 devices (NAS 10.20.x.y, nas-NNNN), timestamps uniform over
 * the last 90 days, 95% permit / 92% accept / 90% success, commands from a
 * vocabulary of 24 with arguments, 40 rule names, 30 profiles. The ingester
 * creates this month and the next two (ensureMonthlyPartitions); the bench
 * creates the earlier months covering the 90 days of history before loading,
 * as an operator importing history would. The
 * migrations' indexes are dropped before the load and re-created after it
 * (same definitions, from pg_indexes), then ANALYZE.
 *
 * Measured (BENCH_ITERATIONS, default 30, random users and windows; the route
 * and its bound interleaved iteration by iteration; median, p95, min):
 * 1. list, first page: username + 24 h window + action (authz) / status
 *    (radius auth), exact totals. Bound: the statements the route ran
 *    (captured from knex's query events), replayed through bare pg, all in
 *    parallel on their own connections as the route runs them.
 * 1b. list, first page: a user over 90 days (the rollup's exact total): same bound.
 * 2. search (free text, 90-day window; total capped at 10,000): same bound.
 * 3. deep page: page 500, per_page 50, 90-day window (rollup total): same bound.
 * 4. export of 10,000 rows, xlsx and csv (BENCH_EXPORT_ITERATIONS, default 5):
 *    time, RSS before / peak (VmHWM) / after. Bound: the same rows read
 *    through knex, then sdk writeExport (exceljs / the CSV writer) to a sink.
 * 5. ingestion and what each index costs it: bench/aaa-logs-ingest.ts.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/aaa-logs.ts
 * (BENCH_JSON=file writes the figures as JSON; BENCH_LOG_TABLES=aaa_log_tacacs_authz,…
 * fills only those tables, so a full-size run of one table fits a shorter slot;
 * BENCH_EXPORTS=0 skips the exports).
 */
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { pino } from 'pino'
import { startApp, type App } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import { writeExport, type Logger } from '../sdk/index.js'
import { exportColumns, KINDS, toEntry, applyLogFilters, type KindDef } from '../plugins/aaa-logs/services/logs.js'
import { startPostgres } from '../test/kit/postgres.js'
import { measureIngestion } from './aaa-logs-ingest.js'
import { adminTokenFor } from '../test/kit/tokens.js'
import { captureStatements, replayStatements } from './lib/sql-bound.js'
import { atExit, envInt, machine, median, min, removeDir, tempDir, runAsMain, stats, fmtStats, loadAvg, type Stats, f2 } from './lib.js'

const USERS = 20_000
const DEVICES = 5_000
const DAY = 86_400_000

const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`

function envFactor(name: string, def: number): number {
  const v = process.env[name]
  if (v === undefined || v === '') return def
  const n = Number(v)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${v}"`)
  return n
}

/** VmRSS / VmHWM of this process, in KiB. */
function memKb(): { rss: number; hwm: number } {
  const s = readFileSync('/proc/self/status', 'utf8')
  const get = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN)
  return { rss: get('VmRSS'), hwm: get('VmHWM') }
}
/** Reset VmHWM to the current RSS (Linux ≥ 4.0); false when not allowed. */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
    return true
  } catch {
    return false
  }
}

interface HttpAnswer {
  status: number
  ms: number
  bytes: number
  text: string
  headers: http.IncomingHttpHeaders
}

function httpGet(agent: http.Agent, base: string, token: string, p: string, keepBody = true): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = http.request(base + p, { method: 'GET', agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = []
      let bytes = 0
      res.on('data', (c: Buffer) => {
        bytes += c.length
        if (keepBody) chunks.push(c)
      })
      res.on('end', () => {
        const ms = performance.now() - t0
        resolve({ status: res.statusCode ?? 0, ms, bytes, text: keepBody ? Buffer.concat(chunks).toString('utf8') : '', headers: res.headers })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}


// ---------- data ----------

const COMMANDS = [
  'show running-config', 'show interfaces', 'show ip route', 'show version', 'show logging', 'show vlan brief', 'show ip bgp summary',
  'configure terminal', 'interface', 'shutdown', 'no shutdown', 'ping', 'traceroute', 'write memory', 'copy running-config startup-config',
  'reload', 'clear counters', 'terminal length', 'exit', 'end', 'ip route', 'vlan', 'switchport access vlan', 'description',
]
const sqlArr = (xs: string[]) => `ARRAY[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(',')}]`
/** 1-based pick from a SQL array by a [0,1) expression. */
const pick = (arr: string, r: string, n: number) => `(${arr})[1 + floor(${r} * ${n})::int]`
const USER = (u: string) => `'user' || lpad(${u}::text, 5, '0')`
const NAS = (d: string) => `('10.20.' || (${d} / 250) || '.' || (${d} % 250 + 1))::inet`
const COMMON_COLS = 'timestamp, username, nas_ip, node_id, device_name, client_address, session_id, source_file, source_offset'
const commonVals = (file: string) =>
  `ts, ${USER('u')}, ${NAS('d')}, '00000000-0000-4000-8000-00000000b001'::uuid, 'nas-' || lpad(d::text, 4, '0'), '192.0.2.' || (g % 250 + 1), lpad(to_hex(g), 8, '0'), '${file}-' || to_char(ts, 'YYYY-MM-DD') || '.log', g * 180`
/** One row per g: u (user, zipf-ish), d (device), ts (the last `days` days, 90 unless told), r1..r4 uniform. */
const base = (n: number, days = 90) =>
  `FROM (SELECT g, floor(${USERS} * power(random(), 3))::int AS u, floor(random() * ${DEVICES})::int AS d,
          now() - random() * interval '${days} days' AS ts, random() AS r1, random() AS r2, random() AS r3, random() AS r4
        FROM generate_series(1, ${n}) g) x`

const RULES = sqlArr(Array.from({ length: 40 }, (_, i) => `rule-${['noc', 'core', 'edge', 'dc', 'wifi'][i % 5]}-${String(i).padStart(2, '0')}`))
const PROFILES = sqlArr(Array.from({ length: 30 }, (_, i) => `${['netops', 'readonly', 'helpdesk', 'admin', 'audit'][i % 5]}-${i}`))

export function generateSql(table: string, n: number, days = 90): string {
  switch (table) {
    case 'aaa_log_tacacs_authz':
      return `INSERT INTO ${table} (${COMMON_COLS}, action, rule_name, profile, service, priv_lvl, command, arguments, reply_arguments)
        SELECT ${commonVals('authorization')}, CASE WHEN r1 < 0.95 THEN 'permit' ELSE 'deny' END, ${pick(RULES, 'r2', 40)}, ${pick(PROFILES, 'r3', 30)}, 'shell',
          CASE WHEN r3 < 0.3 THEN 15 ELSE 1 END, c, ARRAY['service=shell', 'cmd=' || split_part(c, ' ', 1)] || CASE WHEN c LIKE '% %' THEN ARRAY['cmd-arg=' || split_part(c, ' ', 2)] ELSE ARRAY[]::text[] END,
          CASE WHEN r1 < 0.95 THEN ARRAY['priv-lvl=15'] ELSE ARRAY[]::text[] END
        FROM (SELECT *, ${pick(sqlArr(COMMANDS), 'r4', COMMANDS.length)} || CASE WHEN r4 < 0.4 THEN ' GigabitEthernet0/' || (g % 48) WHEN r4 < 0.6 THEN ' 10.' || (g % 200) || '.' || (g % 97) || '.1' ELSE '' END AS c ${base(n, days)}) y`
    case 'aaa_log_tacacs_authn':
      return `INSERT INTO ${table} (${COMMON_COLS}, status, rule_name, profile, authen_type, port, message)
        SELECT ${commonVals('authentication')}, CASE WHEN r1 < 0.9 THEN 'success' ELSE 'failure' END, ${pick(RULES, 'r2', 40)}, ${pick(PROFILES, 'r3', 30)},
          CASE WHEN r4 < 0.8 THEN 'ascii' ELSE 'pap' END, 'tty' || (g % 16), CASE WHEN r1 < 0.9 THEN NULL WHEN r1 < 0.97 THEN 'password incorrect' ELSE 'user unknown' END
        ${base(n, days)}`
    case 'aaa_log_tacacs_acct':
      return `INSERT INTO ${table} (${COMMON_COLS}, action, service, command, arguments, port)
        SELECT ${commonVals('accounting')}, CASE WHEN r1 < 0.45 THEN 'start' WHEN r1 < 0.9 THEN 'stop' ELSE 'watchdog' END, 'shell',
          ${pick(sqlArr(COMMANDS), 'r4', COMMANDS.length)}, ARRAY['task_id=' || g, 'service=shell'], 'tty' || (g % 16)
        ${base(n, days)}`
    case 'aaa_log_radius_auth':
      return `INSERT INTO ${table} (${COMMON_COLS}, status, auth_type, rule_name, rule_label, calling_station_id, called_station_id, nas_port, nas_identifier, reply_attributes, reason)
        SELECT ${commonVals('radius-auth')}, CASE WHEN r1 < 0.92 THEN 'accept' ELSE 'reject' END,
          CASE WHEN r2 < 0.5 THEN 'PAP' WHEN r2 < 0.8 THEN 'MS-CHAPv2' WHEN r2 < 0.9 THEN 'CHAP' ELSE NULL END,
          ${pick(RULES, 'r3', 40)}, 'label-' || floor(r3 * 40)::int,
          upper(concat_ws('-', lpad(to_hex(g % 256), 2, '0'), lpad(to_hex((g / 256) % 256), 2, '0'), '5E', '00', lpad(to_hex(d % 256), 2, '0'), '01')),
          'AP-' || (d % 400) || ':corp-wifi', (g % 4096)::text, 'nas-' || lpad(d::text, 4, '0'),
          CASE WHEN r1 < 0.92 THEN jsonb_build_array(jsonb_build_object('name', 'Filter-Id', 'value', 'vlan' || (d % 50))) ELSE '[]'::jsonb END,
          CASE WHEN r1 < 0.92 THEN NULL WHEN r4 < 0.7 THEN 'invalid password' ELSE 'no matching rule' END
        ${base(n, days)}`
    case 'aaa_log_radius_acct':
      return `INSERT INTO ${table} (${COMMON_COLS}, acct_status_type, acct_session_id, calling_station_id, framed_ip, session_time, input_octets, output_octets, nas_port)
        SELECT ${commonVals('radius-acct')}, CASE WHEN r1 < 0.3 THEN 'Start' WHEN r1 < 0.6 THEN 'Stop' ELSE 'Interim-Update' END, upper(lpad(to_hex(g), 10, '0')),
          upper(concat_ws('-', lpad(to_hex(g % 256), 2, '0'), '5E', '00', lpad(to_hex(d % 256), 2, '0'))), ('172.16.' || (g % 256) || '.' || (g / 256 % 254 + 1))::inet,
          floor(r2 * 36000)::bigint, floor(r3 * 1e9)::bigint, floor(r4 * 1e10)::bigint, (g % 4096)::text
        ${base(n, days)}`
  }
  throw new Error(table)
}

interface TableInfo {
  table: string
  rows: number
  genMs: number
  heap: string
  indexes: string
  total: string
}

/** What generate() needs of a connection: pg.Client, or the embedded engine through a small adapter (bench/ui-interactive.ts). */
export interface Queryable {
  query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>
}

export async function generate(c: Queryable, sizes: Record<string, number>, o: { maintenanceWorkMem?: string; days?: number } = {}): Promise<{ tables: TableInfo[]; partitions: number; indexMs: number; analyzeMs: number; totalMs: number }> {
  const t0 = performance.now()
  // Monthly partitions covering the 90 days (and the current month for the ingestion).
  const first = new Date(Date.now() - ((o.days ?? 90) + 1) * DAY)
  let partitions = 0
  for (const table of Object.keys(sizes)) {
    for (let y = first.getUTCFullYear(), m = first.getUTCMonth(); ; ) {
      const from = new Date(Date.UTC(y, m, 1))
      if (from.getTime() > Date.now() + 31 * DAY) break
      const to = new Date(Date.UTC(y, m + 1, 1))
      const name = `${table}_p${from.getUTCFullYear()}${String(from.getUTCMonth() + 1).padStart(2, '0')}`
      // The ingester creates this month and the next two itself (ensureMonthlyPartitions): skip those.
      const covered = await c.query(
        `SELECT 1 FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = $1::regclass AND pg_get_expr(p.relpartbound, p.oid) LIKE $2`,
        [table, `%FROM ('${from.toISOString().slice(0, 10)}%`],
      )
      if (covered.rowCount === 0) {
        await c.query(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`)
        partitions++
      }
      m++
      if (m === 12) {
        m = 0
        y++
      }
    }
  }
  // Load without the secondary indexes (the migrations' own definitions, re-created after).
  const defs = (
    await c.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY($1) AND indexname NOT LIKE '%_pkey'`,
      [Object.keys(sizes)],
    )
  ).rows
  for (const d of defs) await c.query(`DROP INDEX ${d.indexname}`)
  await c.query(`SELECT setseed(0.5)`)
  const tables: TableInfo[] = []
  for (const [table, n] of Object.entries(sizes)) {
    const t1 = performance.now()
    await c.query(generateSql(table, n, o.days))
    tables.push({ table, rows: n, genMs: performance.now() - t1, heap: '', indexes: '', total: '' })
    console.log(`  ${table}: ${n.toLocaleString('en-US')} rows in ${((performance.now() - t1) / 1000).toFixed(1)} s`)
  }
  const t2 = performance.now()
  await c.query(`SET maintenance_work_mem = '${o.maintenanceWorkMem ?? '512MB'}'`)
  for (const d of defs) await c.query(d.indexdef.replace(' ON ONLY ', ' ON '))
  const indexMs = performance.now() - t2
  console.log(`  indexes re-created (${defs.length}) in ${(indexMs / 1000).toFixed(1)} s`)
  const t3 = performance.now()
  for (const table of Object.keys(sizes)) await c.query(`ANALYZE ${table}`)
  await c.query('ANALYZE aaa_log_rollup')
  const analyzeMs = performance.now() - t3
  const ru = (await c.query(`SELECT count(*) n, pg_size_pretty(pg_total_relation_size('aaa_log_rollup')) size FROM aaa_log_rollup`)).rows[0] as { n: string; size: string }
  console.log(`  rollup (migration 0004, filled by its triggers during the load): ${Number(ru.n).toLocaleString('en-US')} rows, ${ru.size}`)
  for (const t of tables) {
    const r = (
      await c.query(
        `SELECT pg_size_pretty(sum(pg_table_size(i.inhrelid))) heap, pg_size_pretty(sum(pg_indexes_size(i.inhrelid))) idx, pg_size_pretty(sum(pg_total_relation_size(i.inhrelid))) total
         FROM pg_inherits i WHERE i.inhparent = $1::regclass`,
        [t.table],
      )
    ).rows[0]
    Object.assign(t, { heap: r.heap, indexes: r.idx, total: r.total })
  }
  return { tables, partitions, indexMs, analyzeMs, totalMs: performance.now() - t0 }
}

// ---------- figures ----------

interface Figure {
  label: string
  api: Stats
  bound: Stats
  boundLabel: string
  targetMs: number | null
  /** Which statistic the target applies to. */
  on: 'p95' | 'median'
  notes: string[]
}

const met = (f: Figure) => (f.targetMs === null ? '' : f[f.on === 'p95' ? 'api' : 'api'][f.on] < f.targetMs ? 'met' : 'NOT met')

function printFigure(f: Figure) {
  console.log(f.label)
  console.log(`  route:  ${fmtStats(f.api)}${f.targetMs !== null ? `; target ${f.on} < ${f.targetMs} ms: ${met(f)}` : ''}`)
  console.log(`  bound:  ${fmtStats(f.bound)}  ← ${f.boundLabel}; route/bound ${(f.api.median / f.bound.median).toFixed(1)}× (median)`)
  for (const n of f.notes) console.log(`  ${n}`)
}

export async function runAaaLogs(o: { printMachine?: boolean } = {}) {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  const loadStart = loadAvg()
  console.log(`load average at start: ${loadStart} (figures are only comparable on an otherwise idle machine)`)
  const factor = envFactor('BENCH_LOG_ROWS', 1)
  const n = envInt('BENCH_ITERATIONS', 30)
  const nExport = process.env.BENCH_EXPORTS === '0' ? 0 : envInt('BENCH_EXPORT_ITERATIONS', 5)
  const big = Math.round(10_000_000 * factor)
  const small = Math.round(2_000_000 * factor)
  const sizes: Record<string, number> = {
    aaa_log_tacacs_authz: big,
    aaa_log_radius_auth: big,
    aaa_log_tacacs_authn: small,
    aaa_log_tacacs_acct: small,
    aaa_log_radius_acct: small,
  }
  // BENCH_LOG_TABLES=aaa_log_tacacs_authz,…: fill only these (a full-size run of one table fits a shorter slot).
  const only = process.env.BENCH_LOG_TABLES?.split(',').filter(Boolean)
  if (only?.length) for (const t of Object.keys(sizes)) if (!only.includes(t)) delete sizes[t]

  const pgc = await startPostgres()
  const stopPg = atExit(() => pgc.destroy())
  const databaseUrl = await pgc.createDatabase('benchlogs')
  const masterKey = randomBytes(32).toString('hex')
  const dataDir = tempDir('portcullis-bench-logs-')
  const silent = pino({ level: 'silent' }) as unknown as Logger
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, MASTER_KEY: masterKey, DATABASE_URL: databaseUrl, PLUGINS: 'aaa-logs', LOG_LEVEL: 'silent' })
  let app: App | null = null
  const clients = [0, 1, 2].map(() => new pg.Client({ connectionString: databaseUrl }))
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    app = await startApp(config, { log: silent })
    for (const c of clients) await c.connect()
    const c = clients[0]
    const token = await adminTokenFor({ databaseUrl, masterKey })
    const knex = app.db.knex
    const baseUrl = `${app.url.replace(/\/$/, '')}/api/v1`

    console.log(`\n== Data: factor ${factor}: ${big.toLocaleString('en-US')} rows for tacacs authorization and radius authentication, ${small.toLocaleString('en-US')} for the other three ==`)
    const data = await generate(c, sizes)
    console.log(`  ${data.partitions} monthly partitions created by the bench; generation ${(data.totalMs / 1000).toFixed(1)} s in all (indexes ${(data.indexMs / 1000).toFixed(1)} s, ANALYZE ${(data.analyzeMs / 1000).toFixed(1)} s)`)
    for (const t of data.tables) console.log(`  ${t.table}: ${t.rows.toLocaleString('en-US')} rows, table ${t.heap}, indexes ${t.indexes}, total ${t.total}`)

    const authz = KINDS.find((k) => k.kind === 'tacacs_authorization')!
    const rauth = KINDS.find((k) => k.kind === 'radius_authentication')!
    const measured = [authz, rauth].filter((k) => k.table in sizes)
    // The log tables and what the list reads beside them (row counts, rollup): the bound replays them all.
    const tables = [...KINDS.map((k) => k.table), 'aaa_log_row_counts', 'aaa_log_rollup']
    const now = Date.now()
    const zipfUser = () => `user${String(Math.floor(USERS * Math.random() ** 3)).padStart(5, '0')}`
    const windowEnd = () => now - Math.random() * 89 * DAY

    /** One route + bound measurement loop; `params` picks fresh random parameters each iteration. */
    const measure = async (label: string, targetMs: number, kinds: KindDef[], params: (k: KindDef, i: number) => Record<string, string | number>) => {
      const api: number[] = []
      const bound: number[] = []
      let rowsSeen = 0
      let capped = 0
      let totals = ''
      const run = async (i: number, record: boolean) => {
        const k = kinds[i % kinds.length]
        const qs = new URLSearchParams(Object.entries(params(k, i)).map(([a, b]) => [a, String(b)])).toString()
        let ans: HttpAnswer | null = null
        const st = await captureStatements(knex, tables, async () => (ans = await httpGet(agent, baseUrl, token, `/aaa/logs/${k.path}?${qs}`)))
        const a = ans as unknown as HttpAnswer
        if (a.status !== 200) throw new Error(`${label}: ${a.status} ${a.text.slice(0, 300)}`)
        const b = await replayStatements(clients, st)
        if (record) {
          api.push(a.ms)
          bound.push(b)
          const body = JSON.parse(a.text) as { items: unknown[]; total: number; total_by_filter: number; total_by_filter_capped: boolean }
          rowsSeen += body.items.length
          if (body.total_by_filter_capped) capped++
          if (!totals) totals = `e.g. ${k.kind}?${qs} → total ${body.total}, total_by_filter ${body.total_by_filter}${body.total_by_filter_capped ? ' (capped)' : ''}, ${body.items.length} items; statements: ${st.map((s) => s.sql.replace(/\s+/g, ' ').slice(0, 90)).join(' | ')}`
        }
      }
      for (let i = 0; i < 3; i++) await run(i, false)
      for (let i = 0; i < n; i++) await run(i, true)
      const f: Figure = {
        label,
        api: stats(api),
        bound: stats(bound),
        boundLabel: 'the same COUNT(s) and SELECT … LIMIT through bare pg, in parallel',
        targetMs,
        on: 'p95',
        notes: [`${(rowsSeen / n).toFixed(1)} items per answer on average; total_by_filter capped in ${capped} of ${n}`, totals],
      }
      printFigure(f)
      return f
    }

    const figures: Figure[] = []
    console.log('\n== 1. list, first page: username + 24 h + action/status, exact totals ==')
    figures.push(
      await measure('list: user + 24 h + action/status (authz, radius auth alternately)', 100, measured, (k) => {
        const end = windowEnd()
        const status = Math.random() < 0.7 ? 0 : 1
        return {
          username: zipfUser(),
          date_from: new Date(end - DAY).toISOString(),
          date_to: new Date(end).toISOString(),
          ...(k === authz ? { action: ['permit', 'deny'][status] } : { status: ['accept', 'reject'][status] }),
        }
      }),
    )
    console.log('\n== 1b. list, first page: a user over 90 days (rollup total) ==')
    figures.push(
      await measure('list: user over 90 days (authz, radius auth alternately)', 100, measured, () => ({
        username: zipfUser(),
        date_from: new Date(now - 90 * DAY - Math.random() * DAY).toISOString(),
      })),
    )
    console.log('\n== 2. free-text search over 90 days ==')
    figures.push(
      await measure('search over 90 days (a user name or a device name)', 300, measured, (_k, i) => ({
        search: i % 2 ? zipfUser() : `nas-${String(Math.floor(Math.random() * DEVICES)).padStart(4, '0')}`,
        date_from: new Date(now - 90 * DAY).toISOString(),
      })),
    )
    console.log('\n== 3. deep page: page 500, per_page 50 ==')
    figures.push(
      await measure('deep page 500 × 50, 90-day window', 200, measured, () => ({
        page: 500,
        per_page: 50,
        date_from: new Date(now - 90 * DAY - Math.random() * DAY).toISOString(),
      })),
    )

    console.log('\n== 4. export of 10,000 rows ==')
    const exportFigures: { format: string; api: Stats; bound: Stats; boundDb: Stats; rssBefore: number; peakGrowth: number; rssAfter: number; bytes: number; target: number }[] = []
    const canResetPeak = resetPeak()
    for (const format of nExport > 0 ? (['xlsx', 'csv'] as const) : []) {
      const api: number[] = []
      const bound: number[] = []
      const boundDb: number[] = []
      let peakGrowth = 0
      let rssBefore = 0
      let rssAfter = 0
      let bytes = 0
      for (let i = 0; i < nExport + 1; i++) {
        const from = new Date(now - 90 * DAY).toISOString()
        const qs = `format=${format}&date_from=${encodeURIComponent(from)}`
        if (global.gc) global.gc()
        const before = memKb()
        resetPeak()
        const a = await httpGet(agent, baseUrl, token, `/aaa/logs/${authz.path}/export?${qs}`, false)
        const after = memKb()
        if (a.status !== 200 || a.headers['x-service-export-rows'] !== '10000') throw new Error(`export: ${a.status} rows ${String(a.headers['x-service-export-rows'])}`)
        // Bound: the same rows through knex, then the export writer alone to a sink.
        const t0 = performance.now()
        const qb = knex(authz.table)
        applyLogFilters(authz, qb, { date_from: from })
        const rows = (await qb.orderBy('timestamp', 'desc').orderBy('id', 'desc').limit(10_001)) as Record<string, unknown>[]
        rows.length = 10_000
        const t1 = performance.now()
        const file = writeExport(rows.map((r) => toEntry(authz, r)), exportColumns(authz), format, { sheetName: authz.summary })
        let n2 = 0
        await pipeline(file.stream, new Writable({ write: (ch: Buffer, _e, cb) => ((n2 += ch.length), cb()) }))
        const t2 = performance.now()
        if (i === 0) continue
        api.push(a.ms)
        bound.push(t2 - t0)
        boundDb.push(t1 - t0)
        rssBefore = Math.max(rssBefore, before.rss)
        rssAfter = Math.max(rssAfter, after.rss)
        peakGrowth = Math.max(peakGrowth, (canResetPeak ? after.hwm : after.rss) - before.rss)
        bytes = a.bytes
        void n2
      }
      const target = format === 'xlsx' ? 2000 : 500
      const e = { format, api: stats(api), bound: stats(bound), boundDb: stats(boundDb), rssBefore, peakGrowth, rssAfter, bytes, target }
      exportFigures.push(e)
      console.log(`export ${format} (10,000 rows of tacacs authorization, ${(bytes / 1024 / 1024).toFixed(2)} MiB)`)
      console.log(`  route:  ${fmtStats(e.api)}; target < ${target} ms: ${e.api.p95 < target ? 'met' : 'NOT met'} (p95)`)
      console.log(`  bound:  ${fmtStats(e.bound)}  ← the same SELECT through knex + writeExport to a sink (of which the SELECT: median ${f2(e.boundDb.median)} ms); route/bound ${(e.api.median / e.bound.median).toFixed(1)}×`)
      console.log(`  RSS: before ≤ ${mib(rssBefore)}, peak growth ≤ ${mib(peakGrowth)} (${canResetPeak ? 'VmHWM after a clear_refs reset' : 'VmRSS after; VmHWM could not be reset'}), after ≤ ${mib(rssAfter)}; target < 150 MiB: ${peakGrowth < 150 * 1024 ? 'met' : 'NOT met'}`)
    }

    console.log(`\n== 5. ingestion: tac_plus-ng authorization lines, 10% excluded ==`)
    const ingest = await measureIngestion(app, c, dataDir, silent)
    const { rate, copyRate } = { rate: ingest.main.rate, copyRate: ingest.copyRate }
    // Per stage: µs per line, and what the thing taken away cost (the previous stage's µs minus this one's).
    ingest.costs.forEach((x, i) => {
      const us = 1e6 / x.rate
      const saved = i ? 1e6 / ingest.costs[i - 1].rate - us : 0
      console.log(`| ingest, ${x.variant} | ${Math.round(x.rate).toLocaleString('en-US')} lines/s | ${us.toFixed(1)} µs/line | ${i ? `${saved.toFixed(1)} µs/line (${((100 * saved) / (1e6 / ingest.costs[0].rate)).toFixed(0)}% of as shipped)` : ''} |`)
    })

    const loadEnd = loadAvg()
    console.log(`\nload average at the end: ${loadEnd}`)
    console.log('\n| Figure | route median / p95 / min | bound median | route/bound | target |')
    console.log('|---|---|---|---|---|')
    for (const f of figures) console.log(`| ${f.label} | ${f2(f.api.median)} / ${f2(f.api.p95)} / ${f2(f.api.min)} ms | ${f2(f.bound.median)} ms | ${(f.api.median / f.bound.median).toFixed(1)}× | p95 < ${f.targetMs} ms: ${met(f)} |`)
    for (const e of exportFigures)
      console.log(`| export ${e.format} 10,000 rows | ${f2(e.api.median)} / ${f2(e.api.p95)} / ${f2(e.api.min)} ms | ${f2(e.bound.median)} ms | ${(e.api.median / e.bound.median).toFixed(1)}× | < ${e.target} ms: ${e.api.p95 < e.target ? 'met' : 'NOT met'}; peak RSS growth ${mib(e.peakGrowth)} (< 150 MiB: ${e.peakGrowth < 150 * 1024 ? 'met' : 'NOT met'}) |`)
    console.log(`| ingestion, lines/s | ${Math.round(rate).toLocaleString('en-US')} | ${Math.round(copyRate).toLocaleString('en-US')} (COPY) | ${(copyRate / rate).toFixed(1)}× | ≥ 50,000: ${rate >= 50_000 ? 'met' : 'NOT met'} |`)
    return { machine: m.line, loadStart, loadEnd, factor, data, figures, exports: exportFigures, ingest }
  } finally {
    agent.destroy()
    for (const c of clients) await c.end().catch(() => undefined)
    if (app) await app.stop().catch(() => undefined)
    stopPg()
    removeDir(dataDir)
  }
}

runAsMain(import.meta.url, runAaaLogs)
