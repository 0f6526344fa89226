/**
 * Identity: what signing in costs, and what the bearer-token gate (token
 * verification + actor lookup + RBAC check) adds to an ordinary request.
 *
 * 1. argon2id alone, in this process, with the product's parameters
 *    (ARGON2_OPTIONS: m=64 MiB, t=3, p=4): hash and verify, sequential.
 * 2. POST /api/v1/auth/login, the real server (kernel/main.ts in a child
 *    process, PostgreSQL, no plugins), a valid user:
 *    a. sequential: BENCH_LOGINS (default 30) logins one after the other.
 *       The route allows 10 a minute per client IP (LOGIN_LIMIT, product
 *       behaviour left as is), so the bench deletes the rate_limit_hits rows
 *       before each call (outside the timed part). Latency median/p99, and
 *       the server's CPU time per login (from /proc/<pid>/stat), from which
 *       the most logins one core can do per second.
 *    b. concurrent: 4 workers for BENCH_LOGIN_DURATION (default 10) seconds,
 *       each request from a different loopback source address
 *       (127.0.0.2–127.0.0.251, Linux routes all of 127/8 to lo), so that no
 *       address exceeds the limit: logins/s and latency under load.
 * 3. GET /api/v1/greetings/hello?name=x (example plugin, permission
 *    greetings.read) with a token of a user holding greetings.read through a
 *    role, and with an administrator's token, against the same handler
 *    mounted as a PUBLIC route by the bench-only plugin
 *    bench/fixtures/public-hello (GET /api/v1/bench-public/hello?name=x), in
 *    the same server and run, interleaved over BENCH_ROUNDS (default 2)
 *    rounds: median/p99 latency at 1 connection, and requests/s and the
 *    server's CPU time per request at 4 connections. Also the gate
 *    alone, in this process: Gate.check with the real TokenService and
 *    ActorCache on the same database.
 *
 * Figures only: nothing fails on a timing. The server logs at warn (no access
 * log); bench/framework.ts measures logging. Run: node --import tsx bench/identity.ts
 */
import http from 'node:http'
import os from 'node:os'
import { execFileSync, type ChildProcess } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import argon2 from 'argon2'
import autocannon from 'autocannon'
import knexFactory from 'knex'
import { pino } from 'pino'
import { ARGON2_OPTIONS, hashPassword } from '../kernel/identity/passwords.js'
import { ActorCache } from '../kernel/identity/actors.js'
import { Gate } from '../kernel/security/gate.js'
import { parseMasterKey } from '../kernel/security/master-key.js'
import { TokenService } from '../kernel/security/tokens.js'
import { jsonText, type Logger, type RouteDefinition } from '../sdk/index.js'
import { freePort, startPostgres } from '../test/kit/postgres.js'
import { atExit, envInt, envSeconds, machine, median, repoRoot, spawnTracked, stopChild, tempDir, runAsMain } from './lib.js'

const GATED = '/api/v1/greetings/hello?name=x'
const PUBLIC_PATH = '/api/v1/bench-public/hello?name=x'

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN
}
const f2 = (x: number) => x.toFixed(2)

export interface IdentityResult {
  machine: string
  argon2: { params: string; hashMs: { median: number; p99: number; n: number; cpu: number }; verifyMs: { median: number; p99: number; n: number; cpu: number } }
  loginSequential: { n: number; medianMs: number; p99Ms: number; serverCpuMsPerLogin: number; maxLoginsPerSecPerCore: number; cpuAboveVerifyMs: number }
  loginConcurrent: { workers: number; seconds: number; logins: number; perSec: number; medianMs: number; p99Ms: number; non200: number } | null
  hello: { label: string; p50: number; p99: number; rps: number; cpuUs: number }[]
  gateOverhead: { p50Ms: number; perRequestUs: number }
  gateInProcessUs: { permitted: number; admin: number }
}

// ---------- helpers ----------

function clkTck(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
}

/** User + system CPU time of a process, in milliseconds (Linux). */
function cpuMs(pid: number, tck: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1000) / tck
}

function post(url: string, body: unknown, o: { agent?: http.Agent | false; localAddress?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body)
    const req = http.request(url, { method: 'POST', agent: o.agent, localAddress: o.localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(data)
  })
}

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await fetch(url, { headers })
  return { status: r.status, body: await r.text() }
}

async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const { PORTCULLIS_CONFIG: _ignored, ...inherited } = process.env
  const child = spawnTracked(process.execPath, ['--import', 'tsx', 'kernel/main.ts'], {
    cwd: repoRoot,
    env: { ...inherited, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)))
  const url = `http://127.0.0.1:${port}`
  const t0 = Date.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})\n${stderr}`)
    try {
      if ((await get(`${url}/ready`)).status === 200) return { child, url }
    } catch {
      /* not listening yet */
    }
    if (Date.now() - t0 > 90_000) throw new Error(`the server was not ready within 90 s\n${stderr}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Latency with fractional milliseconds (autocannon's histogram keeps whole ones) and requests/s. */
async function load(url: string, headers: Record<string, string>, connections: number, duration: number, server: { pid: number; tck: number }) {
  const lat: number[] = []
  let bad = 0
  const c0 = cpuMs(server.pid, server.tck)
  const inst = autocannon({ url, connections, pipelining: 1, duration, headers })
  inst.on('response', (_c, status, _b, t) => {
    if (status !== 200) bad++
    else lat.push(t)
  })
  const r = await inst
  const cpu = cpuMs(server.pid, server.tck) - c0
  if (bad || r.errors) throw new Error(`${url}: ${bad} non-200 answers, ${r.errors} errors`)
  // Server CPU per request holds up on a busy machine, where req/s mostly measures the neighbours.
  return { p50: median(lat), p99: pct(lat, 99), rps: r.requests.average, cpuUs: (cpu * 1000) / lat.length }
}

// ---------- the benchmark ----------

export async function runIdentity(o: { printMachine?: boolean } = {}): Promise<IdentityResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (figures are only comparable on an otherwise idle machine)`)
  const logins = envInt('BENCH_LOGINS', 30)
  const loginSeconds = envSeconds('BENCH_LOGIN_DURATION', 10)
  const duration = envSeconds('BENCH_DURATION', 5)
  const rounds = envInt('BENCH_ROUNDS', 2)

  // 1. argon2id alone.
  console.log(`\n== argon2id alone (in process): m=${ARGON2_OPTIONS.memoryCost / 1024} MiB, t=${ARGON2_OPTIONS.timeCost}, p=${ARGON2_OPTIONS.parallelism} ==`)
  const pw = 'Bench-Password-For-Login-1'
  await hashPassword(pw) // warm-up
  // CPU time (all threads of this process, argon2's included) holds up on a busy machine; wall time does not.
  const cpuNow = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  const hashT: number[] = []
  const h0 = cpuNow()
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now()
    await hashPassword(pw)
    hashT.push(performance.now() - t0)
  }
  const hashCpu = (cpuNow() - h0) / 10
  const stored = await hashPassword(pw)
  const verifyT: number[] = []
  const v0 = cpuNow()
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now()
    if (!(await argon2.verify(stored, pw))) throw new Error('argon2.verify failed')
    verifyT.push(performance.now() - t0)
  }
  const verifyCpu = (cpuNow() - v0) / 20
  const a2 = {
    params: `m=${ARGON2_OPTIONS.memoryCost} KiB, t=${ARGON2_OPTIONS.timeCost}, p=${ARGON2_OPTIONS.parallelism}`,
    hashMs: { median: median(hashT), p99: pct(hashT, 99), n: hashT.length, cpu: hashCpu },
    verifyMs: { median: median(verifyT), p99: pct(verifyT, 99), n: verifyT.length, cpu: verifyCpu },
  }
  console.log(`hash:   median ${f2(a2.hashMs.median)} ms, p99 ${f2(a2.hashMs.p99)} ms wall; ${f2(hashCpu)} ms CPU each (n=${a2.hashMs.n})`)
  console.log(`verify: median ${f2(a2.verifyMs.median)} ms, p99 ${f2(a2.verifyMs.p99)} ms wall; ${f2(verifyCpu)} ms CPU each (n=${a2.verifyMs.n})`)

  const pg = await startPostgres()
  const stopPg = atExit(() => pg.destroy())
  const databaseUrl = await pg.createDatabase('benchid')
  const masterKey = randomBytes(32).toString('hex')
  const server = await startServer({
    DATABASE_URL: databaseUrl,
    MASTER_KEY: masterKey,
    DATA_DIR: tempDir('portcullis-bench-identity-'),
    LOG_LEVEL: 'warn',
    PLUGINS: './examples/greetings-plugin,./bench/fixtures/public-hello',
    ADMIN_PASSWORD: 'Bench-Root-Passphrase-9',
  })
  const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 4 } })
  const stopAll = async () => {
    await stopChild(server.child)
    await knex.destroy()
    stopPg()
  }
  try {
    const tck = clkTck()
    const username = 'bench-login'
    await knex('users').insert({ username, password_hash: stored, source: 'local', password_changed_at: new Date() })
    const loginUrl = `${server.url}/api/v1/auth/login`
    const body = { username, password: pw }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

    // 2a. sequential logins.
    console.log(`\n== POST /api/v1/auth/login, sequential (${logins} logins; rate_limit_hits deleted before each, untimed) ==`)
    for (let i = 0; i < 3; i++) {
      await knex('rate_limit_hits').delete()
      const r = await post(loginUrl, body, { agent })
      if (r.status !== 200) throw new Error(`login answered ${r.status}: ${r.body}`)
    }
    const seq: number[] = []
    let cpu = 0
    for (let i = 0; i < logins; i++) {
      await knex('rate_limit_hits').delete()
      const c0 = cpuMs(server.child.pid!, tck)
      const t0 = performance.now()
      const r = await post(loginUrl, body, { agent })
      seq.push(performance.now() - t0)
      cpu += cpuMs(server.child.pid!, tck) - c0
      if (r.status !== 200) throw new Error(`login answered ${r.status}: ${r.body}`)
    }
    agent.destroy()
    const cpuPer = cpu / logins
    const loginSequential = {
      n: logins,
      medianMs: median(seq),
      p99Ms: pct(seq, 99),
      serverCpuMsPerLogin: cpuPer,
      maxLoginsPerSecPerCore: 1000 / cpuPer,
      /** Server CPU of a login beyond one argon2 verify: the rest of the stack (lookup, rate limit, token). */
      cpuAboveVerifyMs: cpuPer - a2.verifyMs.cpu,
    }
    console.log(`latency: median ${f2(loginSequential.medianMs)} ms, p99 ${f2(loginSequential.p99Ms)} ms; argon2 verify alone: median ${f2(a2.verifyMs.median)} ms`)
    console.log(`server CPU per login: ${f2(cpuPer)} ms (user+system, /proc, ${1000 / tck} ms ticks; ${f2(loginSequential.cpuAboveVerifyMs)} ms above one argon2 verify) → at most ~${loginSequential.maxLoginsPerSecPerCore.toFixed(1)} logins/s per core`)

    // 2b. concurrent logins from distinct loopback addresses.
    let loginConcurrent: IdentityResult['loginConcurrent'] = null
    const addr = (i: number) => `127.0.0.${2 + (i % 250)}`
    const canBind = await post(loginUrl, body, { agent: false, localAddress: addr(0) }).then(
      (r) => r.status === 200 || r.status === 429,
      () => false,
    )
    if (!canBind) console.log('\n(concurrent logins skipped: cannot bind loopback source addresses other than 127.0.0.1 here)')
    else {
      await knex('rate_limit_hits').delete()
      const workers = 4
      console.log(`\n== POST /api/v1/auth/login, ${workers} concurrent workers for ${loginSeconds} s, each request from its own loopback address ==`)
      const lat: number[] = []
      let next = 1
      let non200 = 0
      const end = performance.now() + loginSeconds * 1000
      const t0 = performance.now()
      await Promise.all(
        Array.from({ length: workers }, async () => {
          while (performance.now() < end) {
            const s = performance.now()
            const r = await post(loginUrl, body, { agent: false, localAddress: addr(next++) })
            if (r.status === 200) lat.push(performance.now() - s)
            else non200++
          }
        }),
      )
      const secs = (performance.now() - t0) / 1000
      loginConcurrent = { workers, seconds: secs, logins: lat.length, perSec: lat.length / secs, medianMs: median(lat), p99Ms: pct(lat, 99), non200 }
      console.log(`${lat.length} logins in ${secs.toFixed(1)} s: ${loginConcurrent.perSec.toFixed(1)} logins/s; latency median ${f2(loginConcurrent.medianMs)} ms, p99 ${f2(loginConcurrent.p99Ms)} ms${non200 ? `; ${non200} non-200` : ''}`)
    }

    // 3. the gate on an ordinary request.
    const master = parseMasterKey(masterKey, 'masterKey')
    const tokens = new TokenService(master)
    const mk = async (admin: boolean, permissions: string[]) => {
      const id = randomUUID()
      await knex('users').insert({ id, username: `bench-${id.slice(0, 8)}`, is_admin: admin, source: 'local' })
      if (permissions.length) {
        const [role] = await knex('roles').insert({ name: `bench-${id.slice(0, 8)}`, permissions: jsonText(permissions) }).returning('id')
        await knex('user_roles').insert({ user_id: id, role_id: role.id })
      }
      return (await tokens.issue({ sub: id, name: 'bench', purpose: 'session', ttlSeconds: 3600 })).token
    }
    const permitted = await mk(false, ['greetings.read'])
    const admin = await mk(true, [])
    const runs: { label: string; url: string; headers: Record<string, string> }[] = [
      { label: `GET ${GATED}, user with greetings.read`, url: server.url + GATED, headers: { authorization: `Bearer ${permitted}` } },
      { label: `GET ${GATED}, administrator`, url: server.url + GATED, headers: { authorization: `Bearer ${admin}` } },
      { label: `GET ${PUBLIC_PATH}, PUBLIC, no token`, url: server.url + PUBLIC_PATH, headers: {} },
    ]
    const samples = await Promise.all(runs.map((r) => get(r.url, r.headers)))
    for (const [i, s] of samples.entries()) if (s.status !== 200) throw new Error(`${runs[i].label}: ${s.status} ${s.body}`)
    if (new Set(samples.map((s) => s.body)).size !== 1) throw new Error(`the routes answer different bodies: ${samples.map((s) => s.body).join(' / ')}`)
    console.log(`\n== Gate overhead: same handler, gated vs PUBLIC; body ${samples[0].body}; ${rounds} interleaved rounds of ${duration} s at 1 connection (latency) and ${duration} s at 4 connections (req/s), 1 s warm-up each ==`)
    const srv = { pid: server.child.pid!, tck }
    const per = runs.map(() => ({ p50: [] as number[], p99: [] as number[], rps: [] as number[], cpuUs: [] as number[] }))
    for (let round = 0; round < rounds; round++) {
      for (const [i, r] of runs.entries()) {
        await load(r.url, r.headers, 1, 1, srv)
        const one = await load(r.url, r.headers, 1, duration, srv)
        const four = await load(r.url, r.headers, 4, duration, srv)
        per[i].p50.push(one.p50)
        per[i].p99.push(one.p99)
        per[i].rps.push(four.rps)
        per[i].cpuUs.push(four.cpuUs)
      }
    }
    const hello = runs.map((r, i) => ({ label: r.label, p50: median(per[i].p50), p99: median(per[i].p99), rps: median(per[i].rps), cpuUs: median(per[i].cpuUs) }))
    for (const h of hello) console.log(`${h.label.padEnd(66)} p50 ${f2(h.p50)} ms  p99 ${f2(h.p99)} ms  ${Math.round(h.rps).toLocaleString('en-US').padStart(6)} req/s  server CPU ${h.cpuUs.toFixed(0)} µs/request`)
    const gateOverhead = {
      p50Ms: hello[0].p50 - hello[2].p50,
      perRequestUs: hello[0].cpuUs - hello[2].cpuUs,
    }
    console.log(`auth + RBAC add: ${(gateOverhead.p50Ms * 1000).toFixed(0)} µs to the median latency (1 connection), ${gateOverhead.perRequestUs.toFixed(0)} µs of server CPU per request (4 connections); target < 300 µs median`)

    // The gate alone, in process: Gate.check with the real token service and actor cache.
    const silent = pino({ level: 'silent' }) as unknown as Logger
    const actors = new ActorCache(knex, silent)
    await actors.start()
    const gate = new Gate(tokens, (c) => actors.resolve(c))
    const route = { method: 'GET', path: '/greetings/hello', permission: 'greetings.read' } as unknown as RouteDefinition
    /** Median over 7 batches of 5,000 sequential checks, in µs per check. */
    const timeGate = async (token: string) => {
      const h = `Bearer ${token}`
      for (let i = 0; i < 2000; i++) await gate.check(route, h)
      const batches: number[] = []
      for (let b = 0; b < 7; b++) {
        const t0 = performance.now()
        for (let i = 0; i < 5000; i++) await gate.check(route, h)
        batches.push(((performance.now() - t0) * 1000) / 5000)
      }
      return median(batches)
    }
    const gateInProcessUs = { permitted: await timeGate(permitted), admin: await timeGate(admin) }
    actors.stop()
    console.log(`Gate.check alone (in process, verify + cached actor + permission): ${gateInProcessUs.permitted.toFixed(1)} µs (user with the permission), ${gateInProcessUs.admin.toFixed(1)} µs (administrator)`)
    console.log(`\nload average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)

    return { machine: m.line, argon2: a2, loginSequential, loginConcurrent, hello, gateOverhead, gateInProcessUs }
  } finally {
    await stopAll()
  }
}

runAsMain(import.meta.url, runIdentity)
