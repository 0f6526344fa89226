/**
 * Configuration render and deploy (issue 6): the two daemon renderers and the
 * deploy pipeline on a policy of realistic size, each beside what bounds it.
 *
 * Setup. A throwaway PostgreSQL (test/kit startPostgres) and the app started
 * IN PROCESS (kernel startApp) with the default edition's plugins (package.json
 * `portcullis.editions`), a silent logger. Data from bench/aaa-policy.ts's
 * `generate` (bulk SQL inside every constraint): BENCH_DEPLOY_USERS (20,000)
 * network users in 1–3 of 2,000 groups, BENCH_DEPLOY_DEVICES (10,000) devices
 * in a 500-group tree, each with a TACACS+ key and a RADIUS secret sealed with
 * the app's master key (purposes inventory.tacacs_key / inventory.radius_secret),
 * 200 command sets, 100 TACACS+ and 50 RADIUS profiles, BENCH_DEPLOY_RULES
 * (1,000) rules. Network verifiers are derived ONCE (SHA-512 crypt + NT hash
 * of one fixed password), sealed once with the app's SecretsService and that
 * sealed value copied to every user: each user still costs one decrypt at
 * render time, as in production, but all share one password (fine for timing).
 *
 * Measured (BENCH_DEPLOY_RUNS, default 5; median and min):
 * 1. The full render of both daemons from one repeatable-read snapshot (each
 *    renderer's render() in process, as the deploy calls it), each renderer
 *    timed separately, with its output size and the number of SQL statements
 *    it ran. Bound: the rows the renderers read, one bare SELECT per table in
 *    one repeatable-read transaction through pg (interleaved with the render).
 * 2. POST /api/v1/deploys {} through HTTP with an admin token (render, write
 *    the releases, both checks, record, switch). Bound: the checks alone
 *    (`freeradius -C -d DIR`, `tac_plus-ng -P FILE`) run the way the deploy
 *    runs them (kernel/deploy/check.ts runCheck, the renderers' own check()).
 * 3. FreeRADIUS start on the rendered tree (`freeradius -f -l stdout -d current`
 *    until its "Ready to process requests" line) and tac_plus-ng's parse time.
 *
 * tac_plus-ng: env TAC_PLUS_NG names the binary; unset, its check is skipped
 * (by the deploy too) and so are its timings. Figures only: nothing fails on a
 * timing. Run: TAC_PLUS_NG=/opt/tacplus/sbin/tac_plus-ng node --import tsx bench/deploy.ts
 */
import { spawnSync } from 'node:child_process'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { deriveVerifiers, sealVerifiers } from '../kernel/identity/verifiers.js'
import { runCheck } from '../kernel/deploy/check.js'
import type { ConfigRenderer, RenderedFile } from '../sdk/index.js'
import { SEAL } from '../plugins/inventory/services/inventory.js'
import { tacPlusNgBinary } from '../test/kit/tac-plus-ng.js'
import { generate } from './aaa-policy.js'
import { startBenchApp } from './lib/bench-app.js'
import { envInt, machine, median, min, spawnTracked, stopChild, runAsMain } from './lib.js'

const loadAvg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ')
const f2 = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
const kb = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`)

export interface Timing {
  n: number
  median: number
  min: number
}
const timing = (xs: number[]): Timing => ({ n: xs.length, median: median(xs), min: min(xs) })
const fmt = (t: Timing) => `median ${f2(t.median)} ms, min ${f2(t.min)} ms (n=${t.n})`

function httpJson(base: string, token: string, method: string, p: string, body?: unknown): Promise<{ status: number; ms: number; text: string }> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, accept: 'application/json' }
  if (data) Object.assign(headers, { 'content-type': 'application/json', 'content-length': data.length })
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = http.request(base + p, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(data)
  })
}

/** Bare reads of the rows each renderer needs: one SELECT per table. */
const BARE: Record<string, string[]> = {
  'tac_plus-ng': [
    'SELECT id, name, parent_id FROM inventory_device_groups',
    'SELECT id, name, address, device_group_id, enabled, tacacs_key_sealed FROM inventory_devices',
    'SELECT id, name FROM user_groups',
    'SELECT id, username, network_verifiers FROM users WHERE enabled AND network_login',
    'SELECT user_id, group_id FROM user_group_members',
    'SELECT * FROM tacacs_profiles',
    'SELECT * FROM tacacs_profile_command_sets',
    'SELECT * FROM tacacs_command_sets',
    'SELECT * FROM aaa_policy_rules',
  ],
  freeradius: [
    'SELECT id, name, parent_id FROM inventory_device_groups',
    'SELECT id, name, address, device_group_id, enabled, radius_secret_sealed FROM inventory_devices',
    'SELECT id, username, network_verifiers FROM users WHERE enabled AND network_login',
    'SELECT user_id, group_id FROM user_group_members',
    'SELECT * FROM radius_profiles',
    'SELECT * FROM aaa_policy_rules',
  ],
}

function freeUdpPort(): Promise<number> {
  return import('node:dgram').then(
    ({ createSocket }) =>
      new Promise<number>((resolve) => {
        const s = createSocket('udp4')
        s.bind(0, '127.0.0.1', () => {
          const { port } = s.address()
          s.close(() => resolve(port))
        })
      }),
  )
}

/** `freeradius -f -l stdout -d DIR` until "Ready to process requests"; ms, or null (with the output) when it never says so. */
async function freeradiusStart(dir: string, timeoutMs = 120_000): Promise<{ ms: number | null; output: string }> {
  const t0 = performance.now()
  const child = spawnTracked('freeradius', ['-f', '-l', 'stdout', '-d', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const ms = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs)
    const on = (b: Buffer) => {
      out += b.toString()
      if (out.includes('Ready to process requests')) {
        clearTimeout(timer)
        resolve(performance.now() - t0)
      }
    }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve(null)
    })
  })
  await stopChild(child, 5000)
  return { ms, output: out.slice(-2000) }
}

export interface DeployBenchResult {
  machine: string
  loadStart: string
  loadEnd: string
  sizes: Record<string, number>
  generateMs: number
  render: { total: Timing; perRenderer: Record<string, { ms: Timing; bytes: number; files: number; statements: number }>; bare: Record<string, Timing>; bareTotal: Timing }
  deploy: { api: Timing; checks: Record<string, Timing | null> }
  freeradiusStart: Timing | null
  tacPlusNgParse: Timing | null
  notes: string[]
}

export async function runDeployBench(o: { printMachine?: boolean } = {}): Promise<DeployBenchResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  const loadStart = loadAvg()
  console.log(`load average at start: ${loadStart} (a 2-core machine; other benchmarks may run beside: figures are only comparable on an otherwise idle machine)`)
  const users = envInt('BENCH_DEPLOY_USERS', 20_000)
  const devices = envInt('BENCH_DEPLOY_DEVICES', 10_000)
  const rules = envInt('BENCH_DEPLOY_RULES', 1_000)
  const runs = envInt('BENCH_DEPLOY_RUNS', 5)
  const notes: string[] = []
  const tacBin = tacPlusNgBinary()
  if (!tacBin) notes.push('TAC_PLUS_NG unset (or no file): the tac_plus-ng check is skipped by the deploy and its timings here')

  const b = await startBenchApp('deploy')
  const { app, config, dataDir, client: c, token, secrets } = b
  try {
    const renderers: ConfigRenderer[] = app.deploys.d.renderers().map((r) => r.renderer)
    console.log(`plugins: ${config.plugins.join(', ')}; renderers: ${renderers.map((r) => r.id).join(', ')}`)

    // Listen on free ports, so the FreeRADIUS start below does not meet another server on 1812.
    const call = (method: string, p: string, body?: unknown) => httpJson(app.url, token, method, p, body)
    for (const [key, value] of [['radius.auth_port', await freeUdpPort()], ['radius.acct_port', await freeUdpPort()], ['radius.listen_address', '127.0.0.1']] as const) {
      const r = await call('PUT', `/api/v1/settings/${key}`, { value })
      if (r.status !== 200) throw new Error(`PUT setting ${key}: ${r.status} ${r.text.slice(0, 300)}`)
    }

    console.log(`\n== Data: ${users.toLocaleString('en-US')} users, ${devices.toLocaleString('en-US')} devices, ${rules.toLocaleString('en-US')} rules (bench/aaa-policy.ts generate) ==`)
    const g0 = performance.now()
    const { data } = await generate(c, {
      users,
      devices,
      rules,
      sealedKey: secrets.encrypt(SEAL.tacacs_key, 'bench-tacacs-key'),
      sealedSecret: secrets.encrypt(SEAL.radius_secret, 'bench-radius-secret'),
    })
    // One verifier pair, derived and sealed once, copied to every network user.
    const sealed = sealVerifiers(secrets, deriveVerifiers('Bench-password-1'))
    const upd = await c.query('UPDATE users SET network_verifiers = $1 WHERE network_login', [sealed])
    await c.query('VACUUM (ANALYZE) users')
    const generateMs = performance.now() - g0
    const sizes = { ...data.counts, users_with_verifiers: upd.rowCount ?? 0 }
    console.log(`generated in ${(generateMs / 1000).toFixed(1)} s; ${Object.entries(sizes).map(([t, k]) => `${t} ${k.toLocaleString('en-US')}`).join(', ')}`)

    // 1. Render from one snapshot, each renderer separately; the bare reads interleaved.
    console.log(`\n== 1. Full render of every daemon from one repeatable-read snapshot (${runs} runs; load ${loadAvg()}) ==`)
    const knex = app.db.knex
    const per: Record<string, number[]> = {}
    const bytes: Record<string, number> = {}
    const fileCount: Record<string, number> = {}
    const statements: Record<string, number> = {}
    const totals: number[] = []
    const bare: Record<string, number[]> = {}
    const bareTotals: number[] = []
    let counting: string | null = null
    const onQuery = () => {
      if (counting) statements[counting] = (statements[counting] ?? 0) + 1
    }
    for (let i = 0; i <= runs; i++) {
      const first = i === 0 // a warm-up run, where the statements are counted
      if (first) knex.on('query', onQuery)
      const t0 = performance.now()
      const rendered: Record<string, RenderedFile[]> = {}
      await app.db.transaction(
        async (snapshot) => {
          for (const r of renderers) {
            counting = first ? r.daemon : null
            const r0 = performance.now()
            rendered[r.daemon] = await r.render(snapshot)
            if (!first) (per[r.daemon] ??= []).push(performance.now() - r0)
          }
        },
        { isolation: 'repeatable read' },
      )
      const total = performance.now() - t0
      counting = null
      if (first) knex.removeListener('query', onQuery)
      for (const [d, files] of Object.entries(rendered)) {
        bytes[d] = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0)
        fileCount[d] = files.length
      }
      if (first) continue
      totals.push(total)
      const b0 = performance.now()
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ')
      for (const [d, sqls] of Object.entries(BARE)) {
        const s0 = performance.now()
        for (const sql of sqls) await c.query(sql)
        ;(bare[d] ??= []).push(performance.now() - s0)
      }
      await c.query('COMMIT')
      bareTotals.push(performance.now() - b0)
    }
    const render = {
      total: timing(totals),
      perRenderer: Object.fromEntries(Object.entries(per).map(([d, xs]) => [d, { ms: timing(xs), bytes: bytes[d], files: fileCount[d], statements: statements[d] ?? 0 }])),
      bare: Object.fromEntries(Object.entries(bare).map(([d, xs]) => [d, timing(xs)])),
      bareTotal: timing(bareTotals),
    }
    for (const [d, r] of Object.entries(render.perRenderer)) {
      const b = render.bare[d]
      console.log(`  ${d.padEnd(12)} render ${fmt(r.ms)}; ${r.files} file(s), ${kb(r.bytes)}; ${r.statements.toLocaleString('en-US')} SQL statements`)
      if (b) console.log(`  ${''.padEnd(12)} bound: bare reads (${BARE[d].length} SELECTs) ${fmt(b)}; render/bound ${(r.ms.median / b.median).toFixed(1)}×`)
    }
    console.log(`  both, one snapshot: ${fmt(render.total)}; target < 2000 ms: ${render.total.median < 2000 ? 'met' : 'NOT met'}; bound (all bare reads) ${fmt(render.bareTotal)}, ratio ${(render.total.median / render.bareTotal.median).toFixed(1)}×`)

    // 2. The deploy through HTTP, and the checks alone on the release it made current.
    console.log(`\n== 2. POST /api/v1/deploys {} (render + write + checks + activate; ${runs} runs; load ${loadAvg()}) ==`)
    const deployMs: number[] = []
    const checkMs: Record<string, number[]> = {}
    const checkSkipped = new Set<string>()
    for (let i = 0; i < runs; i++) {
      const r = await call('POST', '/api/v1/deploys', {})
      if (r.status !== 201) {
        // A failed check: say why, in the daemon's debug words, before giving up.
        const m = /freeradius -C -d (\S+):/.exec(r.text)
        if (m) {
          const x = spawnSync('/usr/sbin/freeradius', ['-XC', '-d', m[1]], { encoding: 'utf8', env: {}, maxBuffer: 1 << 30 })
          console.error(`${x.error ?? ''}\n${x.stdout ?? ''}${x.stderr ?? ''}`.split('\n').slice(-30).join('\n'))
        }
        throw new Error(`deploy: ${r.status} ${r.text.slice(0, 2000)}`)
      }
      deployMs.push(r.ms)
      if (i === 0) {
        const answer = JSON.parse(r.text) as { deploys: { daemon: string; checked: boolean | null; check_output: string | null; files: { size: number }[] }[] }
        for (const d of answer.deploys) console.log(`  ${d.daemon}: checked ${d.checked}${d.checked === null ? ` (${d.check_output})` : ''}, ${d.files.length} file(s)`)
      }
      for (const rd of renderers) {
        const dir = path.join(dataDir, 'releases', rd.daemon, 'current')
        const check = (await rd.check?.()) ?? null
        const t0 = performance.now()
        const out = await runCheck(check, dir)
        const t = performance.now() - t0
        if (out.checked === null) {
          checkSkipped.add(`${rd.daemon}: ${out.output}`)
          continue
        }
        if (!out.ok) throw new Error(`${rd.daemon} check failed: ${out.output.slice(0, 2000)}`)
        ;(checkMs[rd.daemon] ??= []).push(t)
      }
    }
    const deploy = {
      api: timing(deployMs),
      checks: Object.fromEntries(renderers.map((r) => [r.daemon, checkMs[r.daemon] ? timing(checkMs[r.daemon]) : null])) as Record<string, Timing | null>,
    }
    for (const s of checkSkipped) notes.push(`check skipped: ${s}`)
    const checkSum = Object.values(deploy.checks).reduce((n, t) => n + (t?.median ?? 0), 0)
    for (const [d, t] of Object.entries(deploy.checks)) console.log(`  check ${d.padEnd(12)} ${t ? fmt(t) : 'skipped'}`)
    console.log(`  deploy: ${fmt(deploy.api)}; target < 5000 ms: ${deploy.api.median < 5000 ? 'met' : 'NOT met'}; bound (the checks, summed medians) ${f2(checkSum)} ms, ratio ${(deploy.api.median / checkSum).toFixed(1)}×`)

    // 3. Daemon start / parse on the current release.
    console.log(`\n== 3. FreeRADIUS start and tac_plus-ng parse on the deployed tree (load ${loadAvg()}) ==`)
    const frDir = path.join(dataDir, 'releases', 'freeradius', 'current')
    const starts: number[] = []
    for (let i = 0; i < Math.min(runs, 3); i++) {
      const s = await freeradiusStart(frDir)
      if (s.ms === null) {
        notes.push(`freeradius did not print "Ready to process requests": ${s.output.slice(-400)}`)
        break
      }
      starts.push(s.ms)
    }
    const frStart = starts.length ? timing(starts) : null
    console.log(`  freeradius -f -l stdout -d current, until "Ready to process requests": ${frStart ? fmt(frStart) : 'n/a'}`)
    const tacParse = deploy.checks['tac_plus-ng'] ?? null
    console.log(`  tac_plus-ng -P (parse of the whole file): ${tacParse ? fmt(tacParse) : 'skipped (TAC_PLUS_NG unset)'}`)

    const loadEnd = loadAvg()
    console.log(`\nload average at the end: ${loadEnd}`)
    for (const n of notes) console.log(`note: ${n}`)
    return { machine: m.line, loadStart, loadEnd, sizes, generateMs, render, deploy, freeradiusStart: frStart, tacPlusNgParse: tacParse, notes }
  } finally {
    await b.stop()
  }
}

runAsMain(import.meta.url, runDeployBench)
