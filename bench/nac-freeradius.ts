/**
 * Issue 16: 802.1X and MAB through the rendered FreeRADIUS tree at scale, against the same FreeRADIUS
 * with a minimal one-rule NAC tree, in the same run, measured from outside.
 *
 * Trees (renderers/config.ts buildFreeradiusConfig, the pure renderer: the NAC part does not read the
 * database beyond the source's compile and endpoints, which are generated here):
 * - rendered: BENCH_NAC_ENDPOINTS (100,000) endpoints spread over 499 endpoint groups (a tenth also
 *   with a device type), BENCH_NAC_RULES (500) rules: 499 "MAB or PEAP, endpoint group g<k>" (every
 *   20th also with a device type or a NAS-Port-Type; no deny: a reject waits security.reject_delay, 1 s), then
 *   "PEAP, user group staff", then the default. A MAB request of an endpoint in group k walks k rules;
 *   the sampled MACs spread over all groups (mean ~250 rules), 10% unknown (all 500, then the default).
 * - minimal: the same switch, users and eap module; one rule ("MAB, endpoint group g1") and the default,
 *   the sampled endpoints only.
 * Both log every answer with the same JSON line (portcullis_log_auth).
 *
 * Load: MAB, bench/lib/udp-radius-load.ts (User-Name = User-Password = the MAC, Calling-Station-Id,
 * Service-Type Call-Check, Message-Authenticator), BENCH_IN_FLIGHT (8) in flight, 1,000 MACs in turn;
 * a warm-up, then BENCH_ROUNDS (5) × BENCH_ROUND_SECONDS (10) per tree, interleaved. PEAP-MSCHAPv2:
 * BENCH_PEAP_RUNS (40) eapol_test runs per tree, 4 at once (each a full TLS handshake, ~10 round trips).
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/nac-freeradius.ts
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { CompiledNacPolicy, CompiledNacRule } from '../sdk/nac-policy.js'
import { buildFreeradiusConfig } from '../plugins/radius/renderers/config.js'
import { checkConfig, freeUdpPort, writeRelease } from '../plugins/radius/test/e2e-support.js'
import { nacInput, PEAP_USER, UG_STAFF, vlan } from '../plugins/radius/test/nac-fixture.js'
import { envInt, f2, loadAvg, machine, median, runAsMain, tempDir, track, stopChild } from './lib.js'
import { rssKiB } from './lib/proc.js'
import { firstAnswerMs, radiusLoad, type RadiusCredential, type RadiusLoadResult } from './lib/udp-radius-load.js'
import { loadRoundOptions } from './lib/scale-app.js'

const SECRET = 'testing123'
const GROUPS = 499
const gid = (k: number) => `eeeeeeee-0000-4000-8000-${String(k).padStart(12, '0')}`
const macOf = (i: number) => `02:${[(i >> 24) & 255, (i >> 16) & 255, (i >> 8) & 255, i & 255, 7].map((b) => b.toString(16).padStart(2, '0')).join(':')}`

function bigPolicy(rules: number): CompiledNacPolicy {
  const out: CompiledNacRule[] = []
  for (let k = 1; k <= Math.min(GROUPS, rules - 1); k++) {
    const conditions: CompiledNacRule['conditions'][number][] = [{ type: 'method', methods: ['mab', 'peap'] }, { type: 'endpoint_group', groups: [{ id: gid(k), name: `g${k}` }] }]
    if (k % 20 === 0) conditions.push(k % 40 === 0 ? { type: 'device_type', device_types: ['printer', `type-${k}`] } : { type: 'nas_port_type', values: ['Ethernet', 'Wireless-802.11'] })
    out.push({ id: `r${k}`, name: `rule-${k}`, position: k, conditions, authorization: vlan(String(100 + k), `vlan-${k}`) })
  }
  out.push({ id: 'staff', name: 'staff-peap', position: out.length + 1, conditions: [{ type: 'method', methods: ['peap'] }, { type: 'user_group', groups: [{ id: UG_STAFF, name: 'staff' }] }], authorization: vlan('10', 'staff') })
  return { rules: out, default: { id: 'd', name: 'default', authorization: vlan('99', 'guest') } }
}

interface Tree {
  label: string
  dir: string
  port: number
}

async function writeTree(root: string, label: string, policy: CompiledNacPolicy, endpoints: { mac: string; endpoint_group_ids: string[]; device_type: string | null }[], eap: { certificateFile: string; privateKeyFile: string }): Promise<Tree> {
  const port = await freeUdpPort()
  const dir = path.join(root, label)
  mkdirSync(dir, { recursive: true })
  const input = nacInput({ eap, port, policy, logDirectory: path.join(dir, 'logs'), runDirectory: path.join(dir, 'run') })
  input.nac = { ...input.nac!, endpoints }
  const t0 = performance.now()
  const files = buildFreeradiusConfig(input)
  const ms = performance.now() - t0
  writeRelease(dir, files)
  const check = checkConfig(dir)
  if (!check.ok) throw new Error(`freeradius -C ${dir}:\n${check.output}`)
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0)
  console.log(`${label}: rendered in ${f2(ms)} ms, ${(bytes / 1024 / 1024).toFixed(1)} MiB; freeradius -C passes`)
  return { label, dir, port }
}

async function startDaemon(tree: Tree, probe: RadiusCredential): Promise<{ child: ChildProcess; pid: number; startMs: number }> {
  const spawnedAt = performance.now()
  const child = track(spawn('freeradius', ['-f', '-l', 'stdout', '-d', tree.dir], { stdio: ['ignore', 'pipe', 'pipe'] }))
  let out = ''
  child.stdout!.on('data', (d) => (out = (out + d).slice(-20_000)))
  child.stderr!.on('data', (d) => (out = (out + d).slice(-20_000)))
  try {
    const startMs = await firstAnswerMs({ host: '127.0.0.1', port: tree.port, secret: SECRET, credential: probe, spawnedAt, everyMs: 20, timeoutMs: 60_000, alive: () => child.exitCode === null })
    return { child, pid: child.pid!, startMs }
  } catch (e) {
    throw new Error(`${tree.label}: ${(e as Error).message}\n${out.slice(-3000)}`)
  }
}

/** `runs` PEAP-MSCHAPv2 authentications, `parallel` at once: authentications a second and how many accepted. */
async function peapRate(tree: Tree, caCert: string, confDir: string, runs: number, parallel = 4): Promise<{ rate: number; ok: number }> {
  const conf = path.join(confDir, 'peap.conf')
  writeFileSync(conf, `network={\n\tkey_mgmt=IEEE8021X\n\teapol_flags=0\n\teap=PEAP\n\tidentity="${PEAP_USER.username}"\n\tpassword="${PEAP_USER.password}"\n\tphase2="auth=MSCHAPV2"\n\tca_cert="${caCert}"\n\tphase1="peapver=0"\n}\n`)
  let next = 0
  let ok = 0
  const one = () =>
    new Promise<void>((resolve) => {
      const c = spawn('eapol_test', ['-c', conf, '-a', '127.0.0.1', '-p', String(tree.port), '-s', SECRET, '-N', `31:s:02-00-00-00-00-${(next % 250).toString(16).padStart(2, '0')}`], { stdio: 'ignore' })
      c.once('close', (code) => {
        if (code === 0) ok++
        resolve()
      })
    })
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < runs) {
        next++
        await one()
      }
    }),
  )
  return { rate: (runs * 1000) / (performance.now() - t0), ok }
}

export async function runNacFreeradius() {
  const m = machine()
  console.log(m.line)
  console.log(`load average at start: ${loadAvg()}`)
  const nEndpoints = envInt('BENCH_NAC_ENDPOINTS', 100_000)
  const nRules = envInt('BENCH_NAC_RULES', 500)
  const peapRuns = process.env.BENCH_PEAP_RUNS === '0' ? 0 : envInt('BENCH_PEAP_RUNS', 40)
  const { rounds, roundMs, warmMs, inFlight } = loadRoundOptions()
  const root = tempDir('portcullis-bench-nac-')
  const pki = path.join(root, 'pki')
  mkdirSync(pki)
  const ossl = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-out', 'server.pem', '-subj', '/CN=radius.bench', '-days', '2'], { cwd: pki })
  if (ossl.status !== 0) throw new Error(`openssl: ${ossl.stderr}`)
  const eap = { certificateFile: path.join(pki, 'server.pem'), privateKeyFile: path.join(pki, 'server.key') }

  const endpoints = Array.from({ length: nEndpoints }, (_, i) => ({ mac: macOf(i), endpoint_group_ids: [gid((i % GROUPS) + 1)], device_type: i % 10 === 0 ? 'printer' : null }))
  // 1,000 MACs spread over the whole range (so over every group), one in ten unknown.
  const sample = Array.from({ length: 1000 }, (_, j) => (j % 10 === 9 ? `02:ff:ff:ff:${(j >> 8).toString(16).padStart(2, '0')}:${(j & 255).toString(16).padStart(2, '0')}` : macOf(Math.floor((j * nEndpoints) / 1000) + (j % 7))))
  const credentials: RadiusCredential[] = sample.map((mac) => ({ user: mac.replace(/:/g, ''), password: mac.replace(/:/g, ''), callingStationId: mac.toUpperCase().replace(/:/g, '-') }))
  console.log(`\n== 802.1X and MAB in FreeRADIUS: ${nEndpoints.toLocaleString('en-US')} endpoints, ${nRules} NAC rules ==`)
  const big = await writeTree(root, 'rendered', bigPolicy(nRules), endpoints, eap)
  const minimalPolicy: CompiledNacPolicy = { rules: [bigPolicy(2).rules[0]], default: { id: 'd', name: 'default', authorization: vlan('99', 'guest') } }
  const minimal = await writeTree(root, 'minimal', minimalPolicy, endpoints.filter((e) => sample.includes(e.mac)), eap)
  const trees = [big, minimal]
  const daemons: { child: ChildProcess; pid: number; startMs: number }[] = []
  try {
    for (const t of trees) {
      const d = await startDaemon(t, credentials[0])
      daemons.push(d)
      console.log(`${t.label}: first answer ${f2(d.startMs)} ms after spawn; RSS ${(rssKiB(d.pid) / 1024).toFixed(0)} MiB`)
    }
    const round = (k: number, durationMs: number) => radiusLoad({ host: '127.0.0.1', port: trees[k].port, secret: SECRET, credentials, inFlight, durationMs, pid: daemons[k].pid, nasIp: '127.0.0.1' })
    const results: RadiusLoadResult[][] = trees.map(() => [])
    console.log(`\nMAB: ${inFlight} in flight, ${credentials.length} MACs in turn; warm-up ${warmMs / 1000} s, then ${rounds} × ${roundMs / 1000} s per tree, interleaved`)
    for (const k of trees.keys()) await round(k, warmMs)
    for (let i = 0; i < rounds; i++) {
      for (const k of trees.keys()) {
        const r = await round(k, roundMs)
        results[k].push(r)
        console.log(`  round ${i + 1} ${trees[k].label.padEnd(10)} ${f2(r.rps).padStart(8)} req/s  CPU ${f2(r.cpuPerRequestMs ?? NaN).padStart(6)} ms/req  p50 ${f2(r.p50Ms)} ms p99 ${f2(r.p99Ms)} ms  accept ${r.accept} reject ${r.reject} bad ${r.bad} timeouts ${r.timeouts}`)
      }
    }
    const rps = results.map((rs) => median(rs.map((r) => r.rps)))
    const cpu = results.map((rs) => median(rs.map((r) => r.cpuPerRequestMs ?? NaN)))
    const peap: { rate: number; ok: number }[] = []
    if (peapRuns > 0) {
      for (const k of trees.keys()) peap.push(await peapRate(trees[k], eap.certificateFile, pki, peapRuns))
      for (const k of trees.keys()) peap[k] = await peapRate(trees[k], eap.certificateFile, pki, peapRuns)
    }
    console.log(`\n| Tree | MAB median req/s | Daemon CPU per MAB request | PEAP-MSCHAPv2 auth/s (4 at once) | RSS |`)
    console.log(`|---|---|---|---|---|`)
    for (const k of trees.keys()) console.log(`| ${trees[k].label} | ${f2(rps[k])} | ${f2(cpu[k])} ms | ${peap[k] ? `${f2(peap[k].rate)} (${peap[k].ok}/${peapRuns} accepted)` : '-'} | ${(rssKiB(daemons[k].pid) / 1024).toFixed(0)} MiB |`)
    console.log(`| ratio rendered/minimal | ${(rps[0] / rps[1]).toFixed(2)} (target ≥ 0.7) | ${(cpu[1] / cpu[0]).toFixed(2)} (minimal/rendered) | ${peap.length ? (peap[0].rate / peap[1].rate).toFixed(2) : '-'} | |`)
    return { machine: m.line, endpoints: nEndpoints, rules: nRules, rps, cpu, peap }
  } finally {
    for (const d of daemons) await stopChild(d.child)
  }
}

runAsMain(import.meta.url, runNacFreeradius)
