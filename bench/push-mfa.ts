/**
 * Issue 30: push-MFA, measured.
 *
 * 1. From the sign-in to the push leaving the sender: `POST /api/v1/mfa/verify {mfa_token, method:
 *    'push'}` sent, to the moment the push service's queue sender let the notification go (its
 *    recorded `sentAt`, same clock). Sequential sign-ins of push users (each user at most 4 pushes:
 *    the per-user limit is 5 per 5 minutes). Target: p95 under 200 ms.
 * 2. The daemons' added latency for a push the phone approves at once: a scripted phone (real key
 *    pair, through the push service) that answers as soon as its notification arrives in the queue.
 *    FreeRADIUS (radius.mfa_mode append, PAP from the NAS) and tac_plus-ng (tacacs.mfa_mode append,
 *    PAP from the client): the password alone of a push user, against the bound, the same login of
 *    a TOTP user with the password followed by the code (one round trip both). Ratio and absolute.
 *
 * The app and the push service run in process on a throwaway PostgreSQL (test kit), FreeRADIUS
 * 3.2 with rlm_rest, tac_plus-ng (TAC_PLUS_NG; left out without it). Figures only: nothing fails
 * on a timing. Run: node --import tsx bench/push-mfa.ts (BENCH_SIGNINS, default 200;
 * BENCH_LOGINS logins per kind and daemon, default 40).
 */
import path from 'node:path'
import { rmSync } from 'node:fs'
import { TacacsClient } from '../plugins/tacacs/client/index.js'
import { deployFreeradius, type RunningFreeradius } from '../plugins/radius/test/e2e-support.js'
import { startTestApp, type TestApp } from '../test/kit/app.js'
import { codeAt, enroll, enrollPhone, freeTcpPort, internalSurface, setInternalKey } from '../test/kit/mfa.js'
import { ScriptedPhone, viaPushService } from '../test/kit/phone.js'
import { pushServerOptions, startPushService, type TestPushService } from '../test/kit/push.js'
import { papRequest } from '../test/kit/radius-pap.js'
import { freePort, startTacPlusNg, tacPlusNgBinary, type RunningTacPlusNg } from '../test/kit/tac-plus-ng.js'
import { envInt, f2, loadAvg, machine, pct, runAsMain, tempDir } from './lib.js'

const SECRET = 'bench-push-secret'
const PASSWORD = 'Bench-Granite-Orbit-42'
/** Pushes per user in a run: under the per-user limit of 5 per 5 minutes. */
const PER_USER = 4

const p = (xs: number[], q: number) => f2(pct(xs, q))
const line = (label: string, xs: number[]) => `${label.padEnd(56)} p50 ${p(xs, 50)} ms  p95 ${p(xs, 95)} ms  max ${f2(Math.max(...xs))} ms  (n=${xs.length})`
const now = () => performance.timeOrigin + performance.now()

/** A phone that approves each challenge as soon as its notification leaves the sender. */
function approveAtOnce(phone: ScriptedPhone, push: TestPushService): { stop: () => Promise<void> } {
  let stop = false
  const done = (async () => {
    while (!stop) {
      const item = await push.queue.take(phone.queue, 200)
      if (!item || item.payload.type !== 'challenge') continue
      const c = (await phone.pending()).find((x) => x.id === item.payload.challenge_id)
      if (c) await phone.answer(c, 'approve')
    }
  })()
  return { stop: async () => ((stop = true), await done) }
}

export async function runPushMfa() {
  const signins = envInt('BENCH_SIGNINS', 200)
  const logins = envInt('BENCH_LOGINS', 40)
  const dir = tempDir('portcullis-bench-push-')
  const corePort = await freeTcpPort()
  const surface = internalSurface(corePort)
  const push = await startPushService({ coreUrl: `http://127.0.0.1:${corePort}` })
  const t: TestApp = await startTestApp({
    plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'mfa'],
    env: surface.env,
    options: { ...surface.options, ...pushServerOptions(push), 'radius.log_directory': path.join(dir, 'logs'), 'radius.run_directory': path.join(dir, 'run') },
  })
  let daemon: RunningFreeradius | undefined
  try {
    const admin = async (method: 'POST' | 'PUT', p: string, body: unknown) => {
      const r = await t.admin(method, p, { body })
      if (r.status >= 300) throw new Error(`${method} ${p}: ${JSON.stringify(r.body)}`)
      return r.body
    }
    const group = await admin('POST', '/api/v1/user-groups', { name: 'ops' })
    const device = await admin('POST', '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', radius_secret: SECRET })
    const profile = await admin('POST', '/api/v1/radius/profiles', { name: 'admin', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] })
    await admin('POST', '/api/v1/aaa/policy/rules', { name: 'ops', who: { group_id: group.id }, where: { device_id: device.id }, radius_profile_id: profile.id })
    const phones: Record<string, ScriptedPhone> = {}
    const seeds: Record<string, string> = {}
    const mk = async (username: string, factor: 'push' | 'totp') => {
      await admin('POST', '/api/v1/users', { username, password: PASSWORD, network_login: true, must_change_password: false, group_ids: [group.id] })
      await t.app.db.knex('rate_limit_hits').delete()
      if (factor === 'totp') seeds[username] = await enroll(t, username, PASSWORD)
      else {
        phones[username] = new ScriptedPhone(viaPushService(push.url))
        await enrollPhone(t, username, PASSWORD, phones[username])
      }
    }
    const pushUsers = (prefix: string, n: number) => Array.from({ length: Math.ceil(n / PER_USER) }, (_, i) => `${prefix}${i}`)
    for (const u of pushUsers('s', signins)) await mk(u, 'push')
    for (const u of [...pushUsers('rp', logins), ...pushUsers('tp', logins)]) await mk(u, 'push')
    for (let i = 0; i < logins; i++) {
      await mk(`rt${i}`, 'totp')
      await mk(`tt${i}`, 'totp')
    }
    await setInternalKey(t)

    // 1. The sign-in to the push leaving the sender.
    const toSender: number[] = []
    const signinUsers = pushUsers('s', signins)
    for (let i = 0; i < signins; i++) {
      await t.app.db.knex('rate_limit_hits').delete()
      const username = signinUsers[i % signinUsers.length]
      const login = await t.req('POST', '/api/v1/auth/login', { body: { username, password: PASSWORD } })
      if (login.body.status !== 'mfa_required') throw new Error(`login of ${username}: ${JSON.stringify(login.body)}`)
      const t0 = now()
      const r = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: login.body.mfa_token, method: 'push' } })
      if (r.status !== 202) throw new Error(`push sign-in of ${username}: ${r.status} ${JSON.stringify(r.body)}`)
      const id = r.body.push_challenge as string
      // The sender delivers after the push service accepted: wait for its record.
      let sent = push.queue.sent.find((x) => x.payload.challenge_id === id)
      for (let w = 0; !sent && w < 400; w++) {
        await new Promise((res) => setTimeout(res, 5))
        sent = push.queue.sent.find((x) => x.payload.challenge_id === id)
      }
      if (!sent) throw new Error(`the push of ${username} never left the sender`)
      toSender.push(sent.sentAt - t0)
    }

    // 2a. FreeRADIUS, append mode: the password alone of a push user, the password and code of a TOTP user.
    await admin('PUT', '/api/v1/settings/radius.mfa_mode', { value: 'append' })
    let port: number
    ;({ daemon, port } = await deployFreeradius(t, path.join(dir, 'release')))
    const rad = (user: string, password: string) => papRequest({ port, secret: SECRET, user, password, timeoutMs: 60_000 })
    const radius = await measure(logins, pushUsers('rp', logins), (i) => `rt${i}`, async (user, password) => {
      const r = await rad(user, password)
      if (r.code !== 2) throw new Error(`FreeRADIUS refused ${user}: code ${r.code}`)
      return r.ms
    })
    await daemon.stop()
    daemon = undefined

    // 2b. tac_plus-ng, append mode.
    const tac = tacPlusNgBinary() ? await tacacs(t, group.id, logins, pushUsers('tp', logins)) : null

    async function measure(n: number, pushers: string[], totpUser: (i: number) => string, login: (user: string, password: string) => Promise<number>) {
      const approvers = pushers.map((u) => approveAtOnce(phones[u], push))
      try {
        const viaPush: number[] = []
        const viaTotp: number[] = []
        // Interleaved: both see the same machine.
        for (let i = 0; i < n; i++) {
          await t.app.db.knex('rate_limit_hits').delete()
          viaTotp.push(await login(totpUser(i), PASSWORD + codeAt(seeds[totpUser(i)], 1)))
          viaPush.push(await login(pushers[i % pushers.length], PASSWORD))
        }
        return { viaPush, viaTotp }
      } finally {
        for (const a of approvers) await a.stop()
      }
    }

    async function tacacs(t: TestApp, groupId: string, n: number, pushers: string[]) {
      const key = 'bench-push-tacacs'
      const from = '127.27.0.15'
      const tport = await freePort()
      await admin('PUT', '/api/v1/settings/tacacs.listen_address', { value: '127.0.0.1' })
      await admin('PUT', '/api/v1/settings/tacacs.listen_port', { value: tport })
      await admin('PUT', '/api/v1/settings/tacacs.mfa_mode', { value: 'append' })
      const dev = await admin('POST', '/api/v1/devices', { name: 'tac-sw', address: from, tacacs_key: key })
      const prof = await admin('POST', '/api/v1/tacacs/profiles', { name: 'tac-admin', privilege_level: 15, default_action: 'permit' })
      await admin('POST', '/api/v1/aaa/policy/rules', { name: 'tac-ops', who: { group_id: groupId }, where: { device_id: dev.id }, tacacs_profile_id: prof.id })
      const r = await admin('POST', '/api/v1/deploys', { daemon: 'tac_plus-ng', comment: 'bench push' })
      for (const d of r.deploys) if (d.status !== 'active') throw new Error(JSON.stringify(d))
      let tacd: RunningTacPlusNg | undefined
      try {
        tacd = await startTacPlusNg({ configFile: path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'tac_plus-ng.cfg'), port: tport, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
        return await measure(n, pushers, (i) => `tt${i}`, async (user, password) => {
          const t0 = performance.now()
          const res = await new TacacsClient({ host: '127.0.0.1', port: tport, key, localAddress: from, timeoutMs: 60_000 }).authenticatePap(user, password)
          if (!res.pass) throw new Error(`tac_plus-ng refused ${user}: ${JSON.stringify(res)}`)
          return performance.now() - t0
        })
      } finally {
        await tacd?.stop()
      }
    }

    const m = machine()
    const signed = (d: number) => (d < 0 ? `-${f2(-d)}` : `+${f2(d)}`)
    const added = (x: { viaPush: number[]; viaTotp: number[] }) =>
      `push over TOTP: p50 ${f2(pct(x.viaPush, 50) / pct(x.viaTotp, 50))}x (${signed(pct(x.viaPush, 50) - pct(x.viaTotp, 50))} ms), p95 ${f2(pct(x.viaPush, 95) / pct(x.viaTotp, 95))}x (${signed(pct(x.viaPush, 95) - pct(x.viaTotp, 95))} ms)`
    const out = [
      `push-MFA (issue 30) — ${m.line}; load average ${loadAvg()}`,
      '',
      'Sign-in (POST /mfa/verify method push) to the push leaving the queue sender (target p95 < 200 ms):',
      line('sign-in to sender', toSender),
      '',
      'FreeRADIUS PAP login from the NAS (radius.mfa_mode append), the phone approving at once:',
      line('push user, password alone (push and wait)', radius.viaPush),
      line('TOTP user, password + code (the bound)', radius.viaTotp),
      added(radius),
      '',
      ...(tac
        ? ['tac_plus-ng PAP login (tacacs.mfa_mode append), the phone approving at once:', line('push user, password alone (push and wait)', tac.viaPush), line('TOTP user, password + code (the bound)', tac.viaTotp), added(tac)]
        : ['tac_plus-ng: not measured (TAC_PLUS_NG unset)']),
    ]
    console.log(out.join('\n'))
    return { machine: m, load: loadAvg(), toSenderP95: pct(toSender, 95), radius: { push: pct(radius.viaPush, 50), totp: pct(radius.viaTotp, 50) }, tacacs: tac ? { push: pct(tac.viaPush, 50), totp: pct(tac.viaTotp, 50) } : null }
  } finally {
    await daemon?.stop()
    await t.stop()
    await push.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

runAsMain(import.meta.url, runPushMfa)
