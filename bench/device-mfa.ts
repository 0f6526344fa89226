/**
 * Issue 14: the cost of the second factor on device logins.
 *
 * 1. The internal surface (POST /api/v1/mfa/internal/check and /verify) over HTTP with keep-alive,
 *    as the daemons call it (rlm_rest and the MAVIS backend keep their connections): sequential
 *    calls, p50/p99. Target: p99 under 20 ms. `check` for a user without MFA (no challenge opened),
 *    `check` for an enrolled user (opens a challenge: one INSERT), `verify` of a wrong code within
 *    that challenge (the charge, the per-user limit, the TOTP computation, the audit row). The
 *    per-user limits (10 codes, 30 challenges per 5 minutes) are reset between calls here: the
 *    bench measures the surface, not the limiter's refusals.
 * 2. A full FreeRADIUS login measured from the NAS (UDP, PAP, sequential): password-only with
 *    radius.mfa_mode off (the baseline), password-only of a user without MFA with the mode on (one
 *    `check` call in the path), and the challenge login of an enrolled user (two round trips: the
 *    password, the Access-Challenge, the code with the State; each user once, with a fresh code).
 *
 * 3. The bound for 1: a bare Node HTTP server (node:http, no framework, no database) answering a
 *    JSON body of the same size, called the same way in the same run: the surface's p99 as a ratio
 *    to it says what the platform adds over the transport.
 * 4. tac_plus-ng PAP logins from the client (TCP, sequential): tacacs.mfa_mode off (crypt in the
 *    daemon, the baseline), append for a user without MFA (our MAVIS backend: crypt, one `check`),
 *    and append for an enrolled user with the password followed by the code (`check` and `verify`).
 *
 * The app runs in process on a throwaway PostgreSQL (test kit), FreeRADIUS 3.2 with rlm_rest,
 * tac_plus-ng (TAC_PLUS_NG; part 4 is left out without it).
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/device-mfa.ts
 * (BENCH_N internal calls per kind, default 400; BENCH_LOGINS logins per kind, default 60).
 */
import { rmSync } from 'node:fs'
import { createServer } from 'node:http'
import path from 'node:path'
import { TacacsClient } from '../plugins/tacacs/client/index.js'
import { deployFreeradius, type RunningFreeradius } from '../plugins/radius/test/e2e-support.js'
import { startTestApp, type TestApp } from '../test/kit/app.js'
import { papRequest as papOnce } from '../test/kit/radius-pap.js'
import { codeAt, enroll, freeTcpPort, INTERNAL_KEY, internalSurface, setInternalKey, wrongCode } from '../test/kit/mfa.js'
import { freePort, startTacPlusNg, tacPlusNgBinary, type RunningTacPlusNg } from '../test/kit/tac-plus-ng.js'
import { envInt, f2, loadAvg, machine, pct, runAsMain, tempDir } from './lib.js'

const SECRET = 'bench-mfa-secret'

const p = (xs: number[], q: number) => f2(pct(xs, q))
const line = (label: string, xs: number[]) => `${label.padEnd(52)} p50 ${p(xs, 50)} ms  p99 ${p(xs, 99)} ms  max ${f2(Math.max(...xs))} ms  (n=${xs.length})`

/** One Access-Request (PAP, optional State) from the NAS at 127.0.0.1: the reply's code and State. */
const papRequest = (port: number, user: string, password: string, state?: Buffer) => papOnce({ port, secret: SECRET, user, password, state: state ?? undefined })

/** The bound: node:http answering a JSON body like the surface's, no framework, no database. */
async function bareServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const body = JSON.stringify({ required: true, challenge: 'ab'.repeat(16) })
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body))
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) }
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now()
  const r = await fn()
  return [r, performance.now() - t0]
}

export async function runDeviceMfa() {
  const n = envInt('BENCH_N', 400)
  const logins = envInt('BENCH_LOGINS', 60)
  const dir = tempDir('portcullis-bench-mfa-')
  const surface = internalSurface(await freeTcpPort())
  const t: TestApp = await startTestApp({
    plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'mfa'],
    env: surface.env,
    options: { ...surface.options, 'radius.log_directory': path.join(dir, 'logs'), 'radius.run_directory': path.join(dir, 'run') },
  })
  let daemon: RunningFreeradius | undefined
  try {
    const group = (await t.admin('POST', '/api/v1/user-groups', { body: { name: 'ops' } })).body
    const device = (await t.admin('POST', '/api/v1/devices', { body: { name: 'sw1', address: '127.0.0.1/32', radius_secret: SECRET } })).body
    const profile = (await t.admin('POST', '/api/v1/radius/profiles', { body: { name: 'admin', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] } })).body
    await t.admin('POST', '/api/v1/aaa/policy/rules', { body: { name: 'ops', who: { group_id: group.id }, where: { device_id: device.id }, radius_profile_id: profile.id } })
    const password = 'Bench-Granite-Orbit-42'
    const mk = async (username: string) => {
      const r = await t.admin('POST', '/api/v1/users', { body: { username, password, network_login: true, must_change_password: false, group_ids: [group.id] } })
      if (r.status !== 201) throw new Error(JSON.stringify(r.body))
    }
    await mk('plain')
    const seeds: Record<string, string> = {}
    // m1..m{logins} log in through FreeRADIUS, the next {logins} through tac_plus-ng: a code is good once.
    for (let i = 0; i < 2 * logins + 1; i++) {
      const u = `m${i}`
      await mk(u)
      seeds[u] = await enroll(t, u, password)
      await t.app.db.knex('rate_limit_hits').delete()
    }
    await setInternalKey(t)

    // 1. The internal surface.
    const call = (route: 'check' | 'verify', body: unknown) =>
      fetch(`${t.url}/api/v1/mfa/internal/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-internal-key': INTERNAL_KEY }, body: JSON.stringify(body) }).then(async (r) => {
        if (r.status !== 200) throw new Error(`${route}: ${r.status} ${await r.text()}`)
        return (await r.json()) as { required?: boolean; challenge?: string; valid?: boolean }
      })
    for (let i = 0; i < 50; i++) await call('check', { username: 'plain' })
    const plainCheck: number[] = []
    const enrolledCheck: number[] = []
    const verify: number[] = []
    for (let i = 0; i < n; i++) plainCheck.push((await timed(() => call('check', { username: 'plain' })))[1])
    for (let i = 0; i < n; i++) {
      if (i % 9 === 0) await t.app.db.knex('rate_limit_hits').delete()
      const [c, ms] = await timed(() => call('check', { username: 'm0' }))
      enrolledCheck.push(ms)
      verify.push((await timed(() => call('verify', { username: 'm0', code: wrongCode(seeds.m0), challenge: c.challenge })))[1])
    }

    // 3. The bound, the same client, in the same run; then the surface's check again, interleaved
    // in blocks, so both see the same machine.
    const bare = await bareServer()
    const bareCalls: number[] = []
    const checkAgain: number[] = []
    try {
      const hit = () => fetch(bare.url + '/api/v1/mfa/internal/check', { method: 'POST', headers: { 'content-type': 'application/json', 'x-internal-key': INTERNAL_KEY }, body: JSON.stringify({ username: 'm0' }) }).then((r) => r.json())
      for (let i = 0; i < 50; i++) await hit()
      for (let b = 0; b < 4; b++) {
        for (let i = 0; i < n / 4; i++) bareCalls.push((await timed(hit))[1])
        for (let i = 0; i < n / 4; i++) {
          if (i % 25 === 0) await t.app.db.knex('rate_limit_hits').delete()
          checkAgain.push((await timed(() => call('check', { username: 'm0' })))[1])
        }
      }
    } finally {
      await bare.close()
    }

    // 2. FreeRADIUS logins: mode off, then challenge.
    const set = (key: string, value: unknown) => t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
    await set('radius.mfa_mode', 'off')
    let port: number
    ;({ daemon, port } = await deployFreeradius(t, path.join(dir, 'release-off')))
    for (let i = 0; i < 20; i++) await papRequest(port, 'plain', password)
    const off: number[] = []
    for (let i = 0; i < logins; i++) off.push((await papRequest(port, 'plain', password)).ms)
    await daemon.stop()
    await set('radius.mfa_mode', 'challenge')
    ;({ daemon, port } = await deployFreeradius(t, path.join(dir, 'release-on')))
    for (let i = 0; i < 20; i++) await papRequest(port, 'plain', password)
    const on: number[] = []
    for (let i = 0; i < logins; i++) on.push((await papRequest(port, 'plain', password)).ms)
    const challenge: number[] = []
    const codeRound: number[] = []
    for (let i = 1; i <= logins; i++) {
      await t.app.db.knex('rate_limit_hits').delete()
      const u = `m${i}`
      const first = await papRequest(port, u, password)
      if (first.code !== 11 || !first.state) throw new Error(`no challenge for ${u}: code ${first.code}`)
      const second = await papRequest(port, u, codeAt(seeds[u], 1), first.state)
      if (second.code !== 2) throw new Error(`the code of ${u} was not accepted: code ${second.code}`)
      challenge.push(first.ms + second.ms)
      codeRound.push(second.ms)
    }

    await daemon.stop()
    daemon = undefined

    // 4. tac_plus-ng: mode off, then append.
    const tac = tacPlusNgBinary() ? await tacacsLogins(t, group.id, password, seeds, logins) : null

    const m = machine()
    const out = [
      `device MFA (issue 14) — ${m.line}; load average ${loadAvg()}`,
      '',
      'Internal surface over HTTP keep-alive, sequential (target p99 < 20 ms):',
      line('check, user without MFA', plainCheck),
      line('check, enrolled user (opens a challenge)', enrolledCheck),
      line('verify, wrong code within the challenge', verify),
      '',
      'FreeRADIUS PAP login from the NAS, sequential:',
      line('password only, radius.mfa_mode off', off),
      line('password only, user without MFA, mode challenge', on),
      line('challenge login: password + code (two round trips)', challenge),
      line('  of which the code round (State, verify)', codeRound),
      '',
      `added by the check call to a password-only login: p50 ${f2(pct(on, 50) - pct(off, 50))} ms; a challenge login costs ${f2(pct(challenge, 50) / pct(off, 50))}x a password-only one (p50)`,
      `internal surface p99 / 20 ms: check ${f2(pct(enrolledCheck, 99) / 20)}, verify ${f2(pct(verify, 99) / 20)}`,
      '',
      'The bound: bare node:http with the same client, interleaved in blocks with the surface:',
      line('bare node:http, same body', bareCalls),
      line('check, enrolled user (interleaved)', checkAgain),
      `check / bare node:http: p50 ${f2(pct(checkAgain, 50) / pct(bareCalls, 50))}x, p99 ${f2(pct(checkAgain, 99) / pct(bareCalls, 99))}x`,
      '',
      ...(tac
        ? [
            'tac_plus-ng PAP login from the client, sequential:',
            line('password only, tacacs.mfa_mode off', tac.off),
            line('password only, user without MFA, mode append', tac.plain),
            line('password+code, enrolled user, mode append', tac.mfa),
            `append over off (p50): user without MFA ${f2(pct(tac.plain, 50) / pct(tac.off, 50))}x, enrolled user ${f2(pct(tac.mfa, 50) / pct(tac.off, 50))}x; the code adds ${f2(pct(tac.mfa, 50) - pct(tac.plain, 50))} ms at p50`,
          ]
        : ['tac_plus-ng: not measured (TAC_PLUS_NG unset)']),
    ]
    console.log(out.join('\n'))
    return { machine: m, load: loadAvg(), plainCheck: pct(plainCheck, 99), enrolledCheck: pct(enrolledCheck, 99), verify: pct(verify, 99), bare: pct(bareCalls, 99), off: pct(off, 50), on: pct(on, 50), challenge: pct(challenge, 50) }
  } finally {
    await daemon?.stop()
    await t.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** tac_plus-ng PAP logins: tacacs.mfa_mode off (the baseline), then append (our MAVIS backend). */
async function tacacsLogins(t: TestApp, groupId: string, password: string, seeds: Record<string, string>, logins: number): Promise<{ off: number[]; plain: number[]; mfa: number[] }> {
  const key = 'bench-mfa-tacacs'
  const from = '127.27.0.14'
  const port = await freePort()
  const admin = async (method: 'POST' | 'PUT', p: string, body: unknown) => {
    const r = await t.admin(method, p, { body })
    if (r.status >= 300) throw new Error(`${method} ${p}: ${JSON.stringify(r.body)}`)
    return r.body
  }
  await admin('PUT', '/api/v1/settings/tacacs.listen_address', { value: '127.0.0.1' })
  await admin('PUT', '/api/v1/settings/tacacs.listen_port', { value: port })
  const device = await admin('POST', '/api/v1/devices', { name: 'tac-sw', address: from, tacacs_key: key })
  const profile = await admin('POST', '/api/v1/tacacs/profiles', { name: 'tac-admin', privilege_level: 15, default_action: 'permit' })
  await admin('POST', '/api/v1/aaa/policy/rules', { name: 'tac-ops', who: { group_id: groupId }, where: { device_id: device.id }, tacacs_profile_id: profile.id })
  let daemon: RunningTacPlusNg | undefined
  const run = async (mode: 'off' | 'append') => {
    await daemon?.stop()
    await admin('PUT', '/api/v1/settings/tacacs.mfa_mode', { value: mode })
    const r = await admin('POST', '/api/v1/deploys', { daemon: 'tac_plus-ng', comment: `bench ${mode}` })
    for (const d of r.deploys) if (d.status !== 'active') throw new Error(JSON.stringify(d))
    daemon = await startTacPlusNg({ configFile: path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
  }
  const pap = async (u: string, p: string) => {
    const t0 = performance.now()
    const r = await new TacacsClient({ host: '127.0.0.1', port, key, localAddress: from, timeoutMs: 8000 }).authenticatePap(u, p)
    if (!r.pass) throw new Error(`tac_plus-ng refused ${u}: ${JSON.stringify(r)}`)
    return performance.now() - t0
  }
  try {
    await run('off')
    for (let i = 0; i < 20; i++) await pap('plain', password)
    const off: number[] = []
    for (let i = 0; i < logins; i++) off.push(await pap('plain', password))
    await run('append')
    for (let i = 0; i < 20; i++) await pap('plain', password)
    const plain: number[] = []
    for (let i = 0; i < logins; i++) plain.push(await pap('plain', password))
    const mfa: number[] = []
    for (let i = logins + 1; i <= 2 * logins; i++) {
      await t.app.db.knex('rate_limit_hits').delete()
      mfa.push(await pap(`m${i}`, password + codeAt(seeds[`m${i}`], 1)))
    }
    return { off, plain, mfa }
  } finally {
    await daemon?.stop()
  }
}

runAsMain(import.meta.url, runDeviceMfa)
