/**
 * Log searches on a read replica (issue 28): the same log searches answered
 * by a node that reads a hot standby (DATABASE_READ_URL) and by a node that
 * reads the primary, while the primary takes a steady ingestion load, and
 * with the primary idle for reference.
 *
 * Setup. A throwaway PostgreSQL (test/kit startPostgres) holding
 * BENCH_REPLICA_ROWS (2,000,000) TACACS+ authorization entries over 90 days
 * (bench/aaa-logs.ts `generate`: monthly partitions, every index), then a hot
 * standby of it (test/kit/standby.ts, pg_basebackup -R, streaming). Two nodes
 * in this process on the same database: node P (no DATABASE_READ_URL: reads
 * the primary) and node R (DATABASE_READ_URL = the standby). The load: the
 * real ingester in a child process (bench/lib/ingest-load.ts), tailing a file
 * it appends tac_plus-ng lines to at BENCH_REPLICA_INGEST_RATE (5,000) lines
 * a second, into the primary.
 *
 * Measured (BENCH_ITERATIONS, default 40, per node and phase; P and R
 * alternate request by request, so both see the same load): a free-text
 * search over the 90 days (a device name, count capped at 10,000 within
 * `aaa-logs.count_budget_ms`) and a user's last 24 hours with the exact
 * total; time from request to last byte, p50 and p95; and R's
 * `replica_lag_ms` under the load. Figures only: nothing fails on a timing.
 *
 * Everything runs on one machine: the primary, the standby, both nodes and
 * the ingester share its cores, so the standby adds no CPU. What the figures
 * show is what moving the searches off the primary costs or spares when
 * both servers compete for the same CPU; on separate machines the standby
 * brings its own.
 *
 * Run: node --import tsx bench/log-replica.ts (BENCH_JSON=file writes the figures).
 */
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import pg from 'pg'
import { pino } from 'pino'
import { startApp, type App } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import type { Logger } from '../sdk/index.js'
import { startPostgres } from '../test/kit/postgres.js'
import { startStandby } from '../test/kit/standby.js'
import { adminTokenFor } from '../test/kit/tokens.js'
import { generate } from './aaa-logs.js'
import { atExit, envInt, firstMessage, fmtStats, loadAvg, machine, pct, removeDir, repoRoot, runAsMain, stats, stopChild, tempDir, track, type Stats } from './lib.js'

const TABLE = 'aaa_log_tacacs_authz'

function get(agent: http.Agent, url: string, token: string): Promise<{ ms: number; status: number; body: { replica_lag_ms?: number | null } }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = http.request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { replica_lag_ms?: number | null } }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

interface Phase {
  primary: Stats
  replica: Stats
  ratioP95: number
  lagMs: { median: number; p95: number; max: number } | null
  ingested?: { written: number; stored: number; rate: number }
}

export async function runLogReplica(o: { printMachine?: boolean } = {}) {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average at start: ${loadAvg()}`)
  const rows = envInt('BENCH_REPLICA_ROWS', 2_000_000)
  const n = envInt('BENCH_ITERATIONS', 40)
  const rate = envInt('BENCH_REPLICA_INGEST_RATE', 5000)
  const silent = pino({ level: 'silent' }) as unknown as Logger
  const cluster = await startPostgres()
  atExit(() => cluster.destroy())
  const databaseUrl = await cluster.createDatabase('replica')
  const masterKey = randomBytes(32).toString('hex')
  const dirs = [tempDir('portcullis-bench-replica-p-'), tempDir('portcullis-bench-replica-r-'), tempDir('portcullis-bench-replica-load-')]
  const env = (dataDir: string, extra: Record<string, string> = {}) =>
    loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, MASTER_KEY: masterKey, PLUGINS: 'aaa-logs', ...extra })
  const apps: App[] = []
  let standby: Awaited<ReturnType<typeof startStandby>> | null = null
  try {
    const p = await startApp(env(dirs[0]), { log: silent, background: false })
    apps.push(p)
    const c = new pg.Client({ connectionString: databaseUrl })
    await c.connect()
    console.log(`generating ${rows.toLocaleString('en-US')} authorization entries over 90 days…`)
    const g = await generate(c, { [TABLE]: rows })
    console.log(`  ${(g.totalMs / 1000).toFixed(0)} s (${g.tables[0].total})`)
    await c.end()
    const s0 = performance.now()
    standby = await startStandby(cluster)
    await standby.waitCaughtUp(600_000)
    console.log(`standby (pg_basebackup -R) ready in ${((performance.now() - s0) / 1000).toFixed(0)} s`)
    const r = await startApp(env(dirs[1], { DATABASE_READ_URL: standby.urlFor(databaseUrl) }), { log: silent, background: false })
    apps.push(r)
    const token = await adminTokenFor({ databaseUrl, masterKey })
    await standby.waitCaughtUp()
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const devices = Array.from({ length: n }, (_, i) => `nas-${String((i * 997) % 5000).padStart(4, '0')}`)
    const users = Array.from({ length: n }, (_, i) => `user${String((i * 379) % 20000).padStart(5, '0')}`)
    const day = new Date(Date.now() - 86_400_000).toISOString()
    const queries = (i: number) => [`search=${devices[i]}`, `username=${users[i]}&date_from=${encodeURIComponent(day)}`]

    async function phase(label: string): Promise<Phase> {
      const times = { primary: [] as number[], replica: [] as number[] }
      const lags: number[] = []
      for (let i = 0; i < n; i++) {
        for (const qs of queries(i)) {
          const order: ['primary' | 'replica', App][] = i % 2 ? [['replica', r], ['primary', p]] : [['primary', p], ['replica', r]]
          for (const [who, app] of order) {
            const a = await get(agent, `${app.url}/api/v1/aaa/logs/tacacs/authorization?${qs}`, token)
            if (a.status !== 200) throw new Error(`${who}: ${a.status} ${JSON.stringify(a.body)}`)
            times[who].push(a.ms)
            if (who === 'replica') {
              if (typeof a.body.replica_lag_ms !== 'number') throw new Error(`node R did not read the standby (replica_lag_ms ${a.body.replica_lag_ms})`)
              lags.push(a.body.replica_lag_ms)
            } else if (a.body.replica_lag_ms !== null) throw new Error('node P read a replica')
          }
        }
      }
      const primary = stats(times.primary)
      const replica = stats(times.replica)
      const out: Phase = { primary, replica, ratioP95: replica.p95 / primary.p95, lagMs: lags.length ? { median: pct(lags, 50), p95: pct(lags, 95), max: Math.max(...lags) } : null }
      console.log(`${label}:`)
      console.log(`  primary (node P): ${fmtStats(primary)}`)
      console.log(`  replica (node R): ${fmtStats(replica)}; replica/primary p95 ${out.ratioP95.toFixed(2)}×`)
      if (out.lagMs) console.log(`  replica_lag_ms: median ${out.lagMs.median}, p95 ${out.lagMs.p95}, max ${out.lagMs.max}`)
      return out
    }

    const idle = await phase('primary idle')
    const child = track(fork(`${repoRoot}/bench/lib/ingest-load.ts`, [], { execArgv: ['--import', 'tsx'], env: { ...process.env, DATABASE_URL: databaseUrl, INGEST_RATE: String(rate), INGEST_DIR: dirs[2] }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }))
    await firstMessage(child, 'ingest load')
    await new Promise((res) => setTimeout(res, 3000)) // let the load settle
    const loaded = await phase(`ingesting ${rate.toLocaleString('en-US')} lines/s on the primary`)
    const done = firstMessage<{ written: number; stored: number; ms: number }>(child, 'ingest load stop', 120_000)
    child.send('stop')
    const ing = await done
    await stopChild(child)
    loaded.ingested = { written: ing.written, stored: ing.stored, rate: ing.stored / (ing.ms / 1000) }
    console.log(`  the load: ${ing.written.toLocaleString('en-US')} lines written, ${ing.stored.toLocaleString('en-US')} stored, ${Math.round(loaded.ingested.rate).toLocaleString('en-US')} rows/s over the phase`)
    console.log(`load average at the end: ${loadAvg()}`)
    agent.destroy()
    return { machine: m, rows, iterations: n, rate, idle, loaded }
  } finally {
    for (const a of apps.reverse()) await a.stop()
    await standby?.destroy()
    cluster.destroy()
    for (const d of dirs) removeDir(d)
  }
}

runAsMain(import.meta.url, () => runLogReplica())
