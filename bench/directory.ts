/**
 * Issue 14: directory sign-ins per second through FreeRADIUS (rlm_ldap) and tac_plus-ng (the LDAP
 * MAVIS backend), as a ratio to local users' sign-ins in the same run, on the same daemon.
 *
 * Setup: the app in process (test kit, the engine of TEST_ENGINE), a throwaway slapd on loopback
 * (test/kit/slapd.ts) with BENCH_DIR_USERS (50) people, all in the directory group netops, and
 * BENCH_LOCAL_USERS (50) local users, all with the same password. The load takes the first 50 of each. One device (127.0.0.1) with a RADIUS secret and a TACACS+
 * key; two rules: the local users' user group, and the user group mapped to netops
 * (directory_group_dn), each with a RADIUS and a TACACS+ profile. Both daemons' configurations are
 * rendered by the registered renderers and run as the tests run them (FreeRADIUS `-f` without debug,
 * tac_plus-ng `-f -1`).
 *
 * Load: PAP, BENCH_IN_FLIGHT (8) in flight, users in turn; RADIUS through bench/lib/udp-radius-load.ts,
 * TACACS+ through bench/lib/tacacs-load.ts (one connection per request). Per daemon: a warm-up, then
 * BENCH_ROUNDS (5) × BENCH_ROUND_SECONDS (5) of local and directory rounds, interleaved. Every
 * directory sign-in is a reader bind + user search + group search + user bind on slapd (the daemons
 * cache nothing of a password). Figures only: slapd shares the machine's cores with the daemon.
 *
 * Run: TAC_PLUS_NG=/root/.cache/portcullis/tac_plus-ng/sbin/tac_plus-ng node --import tsx bench/directory.ts
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { startTestApp, type TestApp } from '../test/kit/app.js'
import { GROUPS_DN, PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd, type Slapd } from '../test/kit/slapd.js'
import { freePort, startTacPlusNg, tacPlusNgBinary, TAC_PLUS_NG_SKIP, writeRendered } from '../test/kit/tac-plus-ng.js'
import { freeUdpPort, renderFreeradius, writeRelease } from '../plugins/radius/test/e2e-support.js'
import { renderTacPlusNg } from '../plugins/tacacs/test/e2e/support.js'
import { envInt, envSeconds, f2, loadAvg, machine, median, runAsMain, tempDir, track } from './lib.js'
import { radiusLoad } from './lib/udp-radius-load.js'
import { tacacsLoad } from './lib/tacacs-load.js'

const PASSWORD = 'Bench-Directory-Pass-2026'
const SECRET = 'bench-directory-secret'
const KEY = 'bench-directory-key'

interface Figures {
  daemon: 'freeradius' | 'tac_plus-ng'
  local: { rps: number[]; p50: number[]; p99: number[] }
  directory: { rps: number[]; p50: number[]; p99: number[] }
  ratio: number
}

async function api(t: TestApp, method: string, p: string, body?: unknown): Promise<any> {
  const r = await t.admin(method, p, body === undefined ? {} : { body })
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body
}

export async function runDirectoryBench(): Promise<{ machine: string; load: { start: string; end: string }; users: number; localUsers: number; figures: Figures[] }> {
  if (!tacPlusNgBinary()) throw new Error(TAC_PLUS_NG_SKIP)
  if (!slapdBinary()) throw new Error(SLAPD_SKIP)
  const m = machine()
  console.log(m.line)
  const loadStart = loadAvg()
  const n = envInt('BENCH_DIR_USERS', 50)
  const nLocal = envInt('BENCH_LOCAL_USERS', 50)
  const rounds = envInt('BENCH_ROUNDS', 5)
  const roundMs = envSeconds('BENCH_ROUND_SECONDS', 5) * 1000
  const inFlight = envInt('BENCH_IN_FLIGHT', 8)
  const dirUsers = Array.from({ length: n }, (_, i) => `d${String(i).padStart(4, '0')}`)
  const localUsers = Array.from({ length: nLocal }, (_, i) => `l${String(i).padStart(4, '0')}`)
  const ldap: Slapd = await startSlapd(dirUsers.map((uid) => ({ uid, password: PASSWORD, groups: ['netops'] })))
  const t = await startTestApp({ plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy'] })
  const children: ChildProcess[] = []
  try {
    const authPort = await freeUdpPort()
    const tacPort = await freePort()
    for (const [k, v] of Object.entries({
      'radius.listen_address': '127.0.0.1', 'radius.auth_port': authPort, 'radius.acct_port': await freeUdpPort(), 'tacacs.listen_address': '127.0.0.1', 'tacacs.listen_port': tacPort,
      'directory.url': ldap.url, 'directory.bind_dn': READER.dn, 'directory.bind_password': READER.password, 'directory.user_base_dn': PEOPLE_DN, 'directory.group_base_dn': GROUPS_DN,
    })) await api(t, 'PUT', `/api/v1/settings/${k}`, { value: v })
    const device = await api(t, 'POST', '/api/v1/devices', { name: 'bench-nas', address: '127.0.0.1/32', radius_secret: SECRET, tacacs_key: KEY })
    const rp = await api(t, 'POST', '/api/v1/radius/profiles', { name: 'bench-rp', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] })
    const tp = await api(t, 'POST', '/api/v1/tacacs/profiles', { name: 'bench-tp', privilege_level: 15 })
    const locals = await api(t, 'POST', '/api/v1/user-groups', { name: 'bench-locals' })
    const mapped = await api(t, 'POST', '/api/v1/user-groups', { name: 'bench-netops', directory_group_dn: `cn=netops,${GROUPS_DN}` })
    for (const g of [locals, mapped]) await api(t, 'POST', '/api/v1/aaa/policy/rules', { name: `r-${g.name}`, who: { group_id: g.id }, where: { device_id: device.id }, radius_profile_id: rp.id, tacacs_profile_id: tp.id })
    for (const u of localUsers) await api(t, 'POST', '/api/v1/users', { username: u, password: PASSWORD, network_login: true, group_ids: [locals.id] })
    for (const u of dirUsers) await api(t, 'POST', '/api/v1/users', { username: u, source: 'directory', network_login: true })

    const dir = tempDir('portcullis-bench-directory-')
    const radiusDir = path.join(dir, 'radius')
    mkdirSync(radiusDir)
    writeRelease(radiusDir, await renderFreeradius(t))
    const fr = track(spawn('freeradius', ['-f', '-l', 'stdout', '-d', radiusDir], { stdio: ['ignore', 'pipe', 'pipe'] }))
    children.push(fr)
    let frOut = ''
    fr.stdout!.on('data', (b) => (frOut += b))
    fr.stderr!.on('data', (b) => (frOut += b))
    for (let i = 0; !frOut.includes('Ready to process requests'); i++) {
      if (i > 200 || fr.exitCode !== null) throw new Error(`freeradius did not start:\n${frOut.slice(-2000)}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    const tacDir = path.join(dir, 'tacacs')
    writeRendered(tacDir, await renderTacPlusNg(t))
    const tac = await startTacPlusNg({ configFile: path.join(tacDir, 'tac_plus-ng.cfg'), port: tacPort, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })

    const cred = (users: string[]) => users.map((user) => ({ user, password: PASSWORD }))
    // The load signs in the first 50 of each: with more directory users, what grows is the configuration
    // (tac_plus-ng's MAVIS script holds one test per directory user), not the directory's work per login.
    const loadLocal = localUsers.slice(0, 50)
    const loadDir = dirUsers.slice(-50)
    const radiusRound = async (users: string[]) => {
      const r = await radiusLoad({ host: '127.0.0.1', port: authPort, secret: SECRET, credentials: cred(users), inFlight, durationMs: roundMs, pid: fr.pid })
      if (r.accept === 0 || r.reject + r.bad + r.timeouts > 0) throw new Error(`RADIUS round: ${JSON.stringify(r)}`)
      return r
    }
    const tacRound = async (users: string[]) => {
      const r = await tacacsLoad({ host: '127.0.0.1', port: tacPort, key: KEY, kind: 'pap', users, password: PASSWORD, inFlight, durationMs: roundMs, pid: tac.pid })
      if (r.pass === 0 || r.fail + r.errors > 0) throw new Error(`TACACS+ round: ${JSON.stringify(r)}`)
      return r
    }
    const figures: Figures[] = []
    for (const [daemon, round] of [['freeradius', radiusRound], ['tac_plus-ng', tacRound]] as const) {
      await round(loadLocal)
      await round(loadDir)
      const f: Figures = { daemon, local: { rps: [], p50: [], p99: [] }, directory: { rps: [], p50: [], p99: [] }, ratio: 0 }
      for (let i = 0; i < rounds; i++) {
        for (const [kind, users] of [['local', loadLocal], ['directory', loadDir]] as const) {
          const r = await round(users)
          f[kind].rps.push(r.rps)
          f[kind].p50.push(r.p50Ms)
          f[kind].p99.push(r.p99Ms)
        }
      }
      f.ratio = median(f.directory.rps) / median(f.local.rps)
      figures.push(f)
      console.log(
        `${daemon}: local ${f2(median(f.local.rps))} req/s (p50 ${f2(median(f.local.p50))} ms, p99 ${f2(median(f.local.p99))} ms); ` +
          `directory ${f2(median(f.directory.rps))} req/s (p50 ${f2(median(f.directory.p50))} ms, p99 ${f2(median(f.directory.p99))} ms); ratio ${f.ratio.toFixed(2)}`,
      )
    }
    await tac.stop()
    const loadEnd = loadAvg()
    console.log(`\n| Daemon | Local PAP req/s | Directory PAP req/s | Directory / local | Directory p50 / p99 |`)
    console.log(`|---|---|---|---|---|`)
    for (const f of figures) {
      console.log(`| ${f.daemon} | ${f2(median(f.local.rps))} | ${f2(median(f.directory.rps))} | ${f.ratio.toFixed(2)} | ${f2(median(f.directory.p50))} / ${f2(median(f.directory.p99))} ms |`)
    }
    console.log(`\n${nLocal} local and ${n} directory users, ${inFlight} in flight, ${rounds} × ${roundMs / 1000} s per kind; load average ${loadStart} → ${loadEnd}`)
    return { machine: m.line, load: { start: loadStart, end: loadEnd }, users: n, localUsers: nLocal, figures }
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM')
    await t.stop()
    await ldap.destroy()
  }
}

runAsMain(import.meta.url, runDirectoryBench)
