/**
 * Framework overhead: requests/s and latency of the validated plugin JSON
 * route GET /api/v1/greetings/hello?name=bench through the whole stack
 * (request id, version header, access log, envelope, bearer-token gate,
 * query validation, request scope, handler) against a bare node:http server
 * answering the very same bytes, in the same run.
 *
 * Each server runs in its own child process; autocannon runs here, in the
 * parent, on loopback (10 connections, pipelining 1). Durations:
 * BENCH_DURATION (seconds measured, default 10), BENCH_WARMUP (default 2),
 * BENCH_CONNECTIONS (default 10), BENCH_ROUNDS (default 2: every case is
 * measured in turn, round after round, and the best round of each is kept,
 * which spreads outside noise on a shared machine). BENCH_NODE_ARGS adds node flags to the
 * server processes (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile).
 *
 * Runs: bare · a minimal Koa app (the framework's floor) · app with a silent logger · app with the production logger at
 * info (stdout to /dev/null) · app on the same route without auth (a PUBLIC
 * copy of it from bench/fixtures/public-hello). Plus the bound of the gate:
 * one JWT verification, in process.
 *
 * Run alone: node --import tsx bench/framework.ts
 */
import http from 'node:http'
import path from 'node:path'
import { randomBytes, randomUUID } from 'node:crypto'
import type { ChildProcess } from 'node:child_process'
import autocannon from 'autocannon'
import { SignJWT, jwtVerify } from 'jose'
import { startPostgres, type PgCluster } from '../test/kit/postgres.js'
import { adminTokenFor } from '../test/kit/tokens.js'
import { TokenService } from '../kernel/security/tokens.js'
import type { BareResponse, CpuReport, ServerReady } from './framework-server.js'
import { atExit, envInt, envSeconds, firstMessage, isMain, machine, repoRoot, spawnTracked, stopChild, tempDir } from './lib.js'

const ROUTE = '/api/v1/greetings/hello?name=bench'
const PUBLIC_ROUTE = '/api/v1/bench-public/hello?name=bench'

export interface LoadFigures {
  label: string
  rps: number
  requests: number
  p50: number
  p99: number
  /** autocannon's own p99 (whole milliseconds). */
  p99Whole: number
  non2xx: number
  errors: number
  /**
   * The server's own CPU time (user + system) per request over the measured
   * run, from process.cpuUsage() in the server: what the stack costs, less
   * sensitive than req/s to what else the machine runs at the time.
   */
  cpuUs: number
}

export interface FrameworkResult {
  machine: string
  durationS: number
  warmupS: number
  connections: number
  rounds: number
  bare: LoadFigures
  /** A minimal Koa app with one router route: the framework's own floor. */
  koa: LoadFigures
  app: LoadFigures
  appInfoLog: LoadFigures
  appNoAuth: LoadFigures
  ratio: number
  /** Bare's CPU time per request over the app's: the req/s ratio a machine with nothing else to do would show. */
  cpuRatio: number
  /** Per-request server time above bare, from 1/rps (one server core saturated). */
  overheadUs: number
  jwtVerifyUs: { service: number; rawKey: number }
}

function percentile(sorted: Float64Array, p: number): number {
  if (!sorted.length) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** The server's CPU time so far (µs), over IPC. */
function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m !== 'object' || m === null || !('cpuUs' in m)) return
      child.off('message', on)
      resolve((m as CpuReport).cpuUs)
    }
    child.on('message', on)
    child.send('cpu')
  })
}

async function load(label: string, url: string, headers: Record<string, string>, o: { duration: number; warmup: number; connections: number }, server: ChildProcess): Promise<LoadFigures> {
  const base = { url, connections: o.connections, pipelining: 1, headers }
  await autocannon({ ...base, duration: o.warmup })
  const cpu0 = await cpuOf(server)
  // autocannon's histogram keeps whole milliseconds; its response event carries the fraction.
  let lat = new Float64Array(1 << 18)
  let n = 0
  const inst = autocannon({ ...base, duration: o.duration, title: label })
  inst.on('response', (_c, status, _b, t) => {
    if (status < 200 || status >= 300) return
    if (n === lat.length) {
      const bigger = new Float64Array(lat.length * 2)
      bigger.set(lat)
      lat = bigger
    }
    lat[n++] = t
  })
  const r = await inst
  const cpu1 = await cpuOf(server)
  const sorted = lat.subarray(0, n).sort()
  return {
    label,
    rps: r.requests.average,
    requests: r['2xx'] + r.non2xx,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p99Whole: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    cpuUs: (cpu1 - cpu0) / Math.max(1, r['2xx'] + r.non2xx),
  }
}

function get(url: string, headers: Record<string, string>): Promise<BareResponse> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => {
          const h: [string, string][] = []
          for (let i = 0; i < res.rawHeaders.length; i += 2) h.push([res.rawHeaders[i], res.rawHeaders[i + 1]])
          resolve({ status: res.statusCode ?? 0, headers: h, body })
        })
      })
      .on('error', reject)
  })
}

const serverScript = path.join(repoRoot, 'bench', 'framework-server.ts')

async function startServer(kind: 'bare' | 'koa' | 'app', env: Record<string, string>): Promise<{ child: ChildProcess; ready: ServerReady; auth: Record<string, string> }> {
  const { PORTCULLIS_CONFIG: _ignored, ...inherited } = process.env
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawnTracked(process.execPath, [...extra, '--import', 'tsx', serverScript, kind], {
    cwd: repoRoot,
    env: { ...inherited, ...env },
    // stdout is /dev/null: where the info-level access log goes.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  const ready = await firstMessage<ServerReady>(child, `${kind} server`)
  // A real administrator account in the app's database, and a session token signed with its master key.
  const auth: Record<string, string> = kind === 'app' ? { authorization: `Bearer ${await adminTokenFor({ databaseUrl: env.DATABASE_URL, masterKey: env.MASTER_KEY })}` } : {}
  return { child, ready, auth }
}

async function appEnv(pg: PgCluster, plugins: string, logLevel: string): Promise<Record<string, string>> {
  return {
    DATABASE_URL: await pg.createDatabase('bench'),
    MASTER_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: tempDir('portcullis-bench-app-'),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: logLevel,
    PLUGINS: plugins,
    BENCH_LOG: logLevel === 'info' ? 'info' : 'silent',
  }
}

/**
 * The gate's own bound: HS256 verification of a session token, in process,
 * 10 at a time (as under the load above). Also jose handed the raw key bytes,
 * which re-imports the key on every call (what TokenService did before).
 */
async function jwtVerifyUs(): Promise<{ service: number; rawKey: number }> {
  const tokens = new TokenService(randomBytes(32))
  const raw = new Uint8Array(randomBytes(32))
  const { token } = await tokens.issue({ sub: randomUUID(), name: 'bench', purpose: 'session', ttlSeconds: 3600 })
  const rawToken = await new SignJWT({ purpose: 'session', name: 'bench' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(randomUUID()).setIssuer('portcullis').setJti(randomUUID()).setIssuedAt().setExpirationTime('1h').sign(raw)
  const time = async (verify: () => Promise<unknown>) => {
    const batch = () => Promise.all(Array.from({ length: 10 }, verify))
    for (let i = 0; i < 300; i++) await batch()
    let n = 0
    const t0 = performance.now()
    while (performance.now() - t0 < 1000) {
      for (let i = 0; i < 20; i++) await batch()
      n += 200
    }
    return ((performance.now() - t0) * 1000) / n
  }
  const service = await time(() => tokens.verify(token))
  const rawKey = await time(() => jwtVerify(rawToken, raw, { algorithms: ['HS256'], issuer: 'portcullis' }))
  return { service, rawKey }
}

const fmt = (f: LoadFigures) =>
  `${f.label.padEnd(44)} ${Math.round(f.rps).toLocaleString('en-US').padStart(7)} req/s   p50 ${f.p50.toFixed(2)} ms   p99 ${f.p99.toFixed(2)} ms   cpu ${f.cpuUs.toFixed(1)} µs/req   (${f.requests.toLocaleString('en-US')} requests${f.non2xx || f.errors ? `, ${f.non2xx} non-2xx, ${f.errors} errors` : ''})`

export async function runFramework(o: { printMachine?: boolean } = {}): Promise<FrameworkResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  const opts = { duration: envSeconds('BENCH_DURATION', 10), warmup: envSeconds('BENCH_WARMUP', 2), connections: envInt('BENCH_CONNECTIONS', 10) }
  const rounds = envInt('BENCH_ROUNDS', 2)
  console.log(`\n== Framework overhead: GET ${ROUTE} ==`)
  console.log(`autocannon in the parent, each server in its own child process; loopback, ${opts.connections} connections, pipelining 1, ${opts.duration} s measured after ${opts.warmup} s warm-up; ${rounds} interleaved round(s), the best kept`)

  const pg = await startPostgres()
  const stopPg = atExit(() => pg.destroy())
  const check = (f: LoadFigures) => {
    if (f.non2xx || f.errors) throw new Error(`${f.label}: ${f.non2xx} non-2xx responses and ${f.errors} errors; the figures would not mean anything`)
    return f
  }
  const servers: ChildProcess[] = []
  try {
    // The app first: its real response is what the bare server will send.
    const app = await startServer('app', await appEnv(pg, './examples/greetings-plugin', 'silent'))
    servers.push(app.child)
    const sample = await get(app.ready.url + ROUTE, app.auth)
    if (sample.status !== 200) throw new Error(`the app answered ${sample.status}: ${sample.body}`)
    console.log(`response: ${sample.status}, ${sample.headers.length} headers (${sample.headers.map(([k]) => k).join(', ')}), body ${sample.body}`)

    const bare = await startServer('bare', { BENCH_BARE_RESPONSE: JSON.stringify(sample) })
    servers.push(bare.child)
    const bareSample = await get(bare.ready.url + ROUTE, {})
    if (bareSample.body !== sample.body || bareSample.headers.length !== sample.headers.length) throw new Error('the bare server does not answer the same bytes')

    const koa = await startServer('koa', { BENCH_BARE_RESPONSE: JSON.stringify(sample) })
    servers.push(koa.child)
    const koaSample = await get(koa.ready.url + ROUTE, {})
    if (koaSample.body !== sample.body || koaSample.headers.length !== sample.headers.length) throw new Error(`the minimal Koa app does not answer the same response: ${JSON.stringify(koaSample)}`)

    const info = await startServer('app', await appEnv(pg, './examples/greetings-plugin', 'info'))
    servers.push(info.child)
    const pub = await startServer('app', await appEnv(pg, './examples/greetings-plugin,./bench/fixtures/public-hello', 'silent'))
    servers.push(pub.child)
    const probe = await get(pub.ready.url + PUBLIC_ROUTE, {})
    if (probe.status !== 200 || probe.body !== sample.body) throw new Error(`the public copy of the route answered ${probe.status} ${probe.body}`)

    // Idle servers cost nothing; measuring them in turn, round after round, spreads any outside noise.
    const cases = [
      { key: 'bare', label: 'bare node:http, same bytes', url: bare.ready.url + ROUTE, headers: {}, server: bare.child },
      { key: 'koa', label: 'minimal Koa + @koa/router, same response', url: koa.ready.url + ROUTE, headers: {}, server: koa.child },
      { key: 'app', label: 'app, full stack, logger silent', url: app.ready.url + ROUTE, headers: app.auth, server: app.child },
      { key: 'info', label: 'app, access log at info to /dev/null', url: info.ready.url + ROUTE, headers: info.auth, server: info.child },
      { key: 'noauth', label: 'app, same route without auth, silent', url: pub.ready.url + PUBLIC_ROUTE, headers: {}, server: pub.child },
    ] as const
    const best = new Map<string, LoadFigures>()
    for (let r = 1; r <= rounds; r++) {
      if (rounds > 1) console.log(`-- round ${r}/${rounds}`)
      for (const c of cases) {
        const f = check(await load(c.label, c.url, c.headers, opts, c.server))
        console.log(fmt(f))
        const prev = best.get(c.key)
        if (!prev || f.rps > prev.rps) best.set(c.key, f)
      }
    }
    for (const c of servers.splice(0)) await stopChild(c)

    const bareF = best.get('bare')!
    const appF = best.get('app')!
    const infoF = best.get('info')!
    const noAuthF = best.get('noauth')!
    const koaF = best.get('koa')!
    const jwt = await jwtVerifyUs()
    const ratio = appF.rps / bareF.rps
    const cpuRatio = bareF.cpuUs / appF.cpuUs
    const overheadUs = 1e6 / appF.rps - 1e6 / bareF.rps
    if (rounds > 1) {
      console.log('-- best round of each')
      for (const f of [bareF, koaF, appF, infoF, noAuthF]) console.log(fmt(f))
    }
    console.log(`ratio app/bare req/s: ${ratio.toFixed(2)} (target >= 0.5)`)
    console.log(`ratio by server CPU time per request (bare/app): ${cpuRatio.toFixed(2)}; minimal Koa ${(bareF.cpuUs / koaF.cpuUs).toFixed(2)}, without auth ${(bareF.cpuUs / noAuthF.cpuUs).toFixed(2)}`)
    console.log(`p99: app ${appF.p99.toFixed(2)} ms, bare ${bareF.p99.toFixed(2)} ms`)
    console.log(`server time per request above bare (1/rps, one saturated core): ${overheadUs.toFixed(0)} µs`)
    console.log(`minimal Koa: ratio ${(koaF.rps / bareF.rps).toFixed(2)} of bare; the kernel's stack above it (without auth) costs ${(1e6 / noAuthF.rps - 1e6 / koaF.rps).toFixed(0)} µs per request`)
    console.log(`without auth: ratio ${(noAuthF.rps / bareF.rps).toFixed(2)}; the auth gate costs ${(1e6 / appF.rps - 1e6 / noAuthF.rps).toFixed(0)} µs per request (with auth vs without)`)
    console.log(`one JWT verification alone, in process, 10 at a time: ${jwt.service.toFixed(1)} µs (jose handed the raw key bytes, re-imported per call: ${jwt.rawKey.toFixed(1)} µs)`)
    console.log(`access log at info: ${(1e6 / infoF.rps - 1e6 / appF.rps).toFixed(0)} µs per request`)
    return { machine: m.line, durationS: opts.duration, warmupS: opts.warmup, connections: opts.connections, rounds, bare: bareF, koa: koaF, app: appF, appInfoLog: infoF, appNoAuth: noAuthF, ratio, cpuRatio, overheadUs, jwtVerifyUs: jwt }
  } finally {
    for (const c of servers) await stopChild(c)
    stopPg()
  }
}

if (isMain(import.meta.url)) {
  runFramework().then(
    () => process.exit(0),
    (e) => {
      console.error(e)
      process.exit(1)
    },
  )
}
