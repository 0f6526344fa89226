/**
 * Changes not yet deployed (issue 12): what a UI pays to poll GET /api/v1/aaa/policy/status and
 * the `deploy` of system info, on the policy of bench/deploy.ts (bench/aaa-policy.ts `generate`).
 *
 * Setup. A throwaway PostgreSQL and the app IN PROCESS with the default edition's plugins, as
 * bench/deploy.ts: BENCH_PENDING_USERS (20,000) network users, BENCH_PENDING_DEVICES (10,000)
 * devices, BENCH_PENDING_RULES (1,000) rules; deploy.allow_unchecked on (the checks are not
 * what is measured), one deploy.
 *
 * Measured (median, p95, max of BENCH_PENDING_POLLS, default 200, or BENCH_PENDING_RUNS, 5):
 * 1. A poll with nothing written since the last render (the snapshot is the cached one):
 *    DeployService.pending() in process, and GET /api/v1/aaa/policy/status over HTTP.
 * 2. A poll after a write nothing audits (a rate-limit row, as sign-ins and log ingestion write):
 *    the cached render answers (one more round trip for the audit mark).
 * 3. A poll after a change through the API (a rule's description, audited): one full render of
 *    every daemon, then the comparison. Bound: the deploy's own render (bench/deploy.ts figure 1).
 * 4. GET /api/v1/dashboard/system-info over HTTP, nothing changed.
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/pending.ts
 */
import http from 'node:http'
import os from 'node:os'
import { deriveVerifiers, sealVerifiers } from '../kernel/identity/verifiers.js'
import { SEAL } from '../plugins/inventory/services/inventory.js'
import { generate } from './aaa-policy.js'
import { startBenchApp } from './lib/bench-app.js'
import { envInt, machine, runAsMain } from './lib.js'

const loadAvg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ')
const f2 = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  return { n: s.length, median: at(0.5), p95: at(0.95), max: s[s.length - 1] }
}
const fmt = (t: ReturnType<typeof stats>) => `median ${f2(t.median)} ms, p95 ${f2(t.p95)} ms, max ${f2(t.max)} ms (n=${t.n})`

function get(base: string, token: string, method: string, p: string, body?: unknown): Promise<{ status: number; ms: number; text: string }> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, accept: 'application/json' }
  if (data) Object.assign(headers, { 'content-type': 'application/json', 'content-length': data.length })
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = http.request(base + p, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(data)
  })
}

export async function runPendingBench(): Promise<Record<string, unknown>> {
  console.log(machine().line)
  console.log(`load average at start: ${loadAvg()}`)
  const users = envInt('BENCH_PENDING_USERS', 20_000)
  const devices = envInt('BENCH_PENDING_DEVICES', 10_000)
  const rules = envInt('BENCH_PENDING_RULES', 1_000)
  const polls = envInt('BENCH_PENDING_POLLS', 200)
  const runs = envInt('BENCH_PENDING_RUNS', 5)

  const b = await startBenchApp('pending')
  const { app, client: c, token, secrets } = b
  try {
    const call = (method: string, p: string, body?: unknown) => get(app.url, token, method, p, body)
    const ok = async (method: string, p: string, body?: unknown, want = 200) => {
      const r = await call(method, p, body)
      if (r.status !== want) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 500)}`)
      return r
    }
    await ok('PUT', '/api/v1/settings/deploy.allow_unchecked', { value: true })
    const g0 = performance.now()
    await generate(c, { users, devices, rules, sealedKey: secrets.encrypt(SEAL.tacacs_key, 'bench-tacacs-key'), sealedSecret: secrets.encrypt(SEAL.radius_secret, 'bench-radius-secret') })
    await c.query('UPDATE users SET network_verifiers = $1 WHERE network_login', [sealVerifiers(secrets, deriveVerifiers('Bench-password-1'))])
    await c.query('VACUUM (ANALYZE)')
    console.log(`data: ${users} users, ${devices} devices, ${rules} rules, generated in ${((performance.now() - g0) / 1000).toFixed(1)} s`)
    const d0 = performance.now()
    await ok('POST', '/api/v1/deploys', {}, 201)
    console.log(`deploy: ${f2(performance.now() - d0)} ms`)
    // What keeping the policy test's inputs adds to every render (and so to a deploy and a pending check).
    const inputsMs: number[] = []
    const inputsBytes: Record<string, number> = {}
    for (let i = 0; i < runs; i++) {
      await app.db.transaction(
        async (snapshot) => {
          const t0 = performance.now()
          for (const { renderer } of app.deploys.d.renderers().filter((r) => r.renderer.id.startsWith('aaa-policy.'))) {
            for (const f of await renderer.render(snapshot)) inputsBytes[renderer.daemon] = Buffer.byteLength(f.content)
          }
          inputsMs.push(performance.now() - t0)
        },
        { isolation: 'repeatable read' },
      )
    }
    const inputs = stats(inputsMs)
    console.log(`policy-test inputs renderers (both daemons): ${fmt(inputs)}; ${Object.entries(inputsBytes).map(([d, b]) => `${d} ${(b / 1024 / 1024).toFixed(2)} MiB`).join(', ')}`)
    const tracker = app.deploys.pendingTracker
    const first0 = performance.now()
    const first = await app.deploys.pending()
    console.log(`first poll after the deploy (a render): ${f2(performance.now() - first0)} ms; pending: ${first.daemons.map((d) => `${d.daemon}=${d.pending}`).join(', ')}`)

    const time = async (n: number, fn: () => Promise<unknown>) => {
      const xs: number[] = []
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        await fn()
        xs.push(performance.now() - t0)
      }
      return stats(xs)
    }
    const renders0 = tracker.renders
    console.log(`\n== 1. Poll, nothing written since (load ${loadAvg()}) ==`)
    const hitInProcess = await time(polls, () => app.deploys.pending())
    console.log(`  DeployService.pending() in process: ${fmt(hitInProcess)}`)
    const hitHttp = await time(polls, () => ok('GET', '/api/v1/aaa/policy/status'))
    console.log(`  GET /api/v1/aaa/policy/status: ${fmt(hitHttp)}`)
    const info = await time(Math.min(polls, 50), () => ok('GET', '/api/v1/dashboard/system-info'))
    console.log(`  GET /api/v1/dashboard/system-info: ${fmt(info)}`)
    const rendersHit = tracker.renders - renders0

    console.log(`\n== 2. Poll after a write nothing audits (a rate-limit row) ==`)
    const xs: number[] = []
    for (let k = 0; k < polls; k++) {
      await c.query('INSERT INTO rate_limit_hits (bucket, client, hits, last_at) VALUES ($1, $2, ARRAY[$3::bigint], $3)', ['bench-pending', `c${k}`, k])
      const t0 = performance.now()
      await app.deploys.pending()
      xs.push(performance.now() - t0)
    }
    const unaudited = stats(xs)
    console.log(`  poll after each write: ${fmt(unaudited)}; renders: ${tracker.renders - renders0 - rendersHit}`)

    console.log(`\n== 3. Poll after an audited change (PUT a rule's description): one render ==`)
    const ruleId = (JSON.parse((await ok('GET', '/api/v1/aaa/policy/rules')).text) as { id: string }[])[0].id
    const miss: number[] = []
    for (let i = 0; i < runs; i++) {
      await ok('PUT', `/api/v1/aaa/policy/rules/${ruleId}`, { description: `bench ${i}` })
      const t0 = performance.now()
      const s = await app.deploys.pending()
      miss.push(performance.now() - t0)
      if (i === 0) console.log(`  pending after the change: ${s.daemons.map((d) => `${d.daemon}=${d.pending}`).join(', ')}`)
    }
    const missStats = stats(miss)
    console.log(`  poll after the change: ${fmt(missStats)}`)
    console.log(`load average at end: ${loadAvg()}`)
    return { users, devices, rules, inputs, inputsBytes, hitInProcess, hitHttp, info, rendersHit, unaudited, miss: missStats }
  } finally {
    await b.stop()
  }
}

runAsMain(import.meta.url, runPendingBench)
