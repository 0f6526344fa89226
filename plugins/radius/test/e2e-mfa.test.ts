/**
 * The second factor on FreeRADIUS (radius.mfa_mode, renderers/mfa.ts), with radclient against the
 * deployed tree and the platform's internal surface answering on loopback: a user with MFA is
 * challenged after the right password and accepted with the code (State echoed), a wrong code is
 * challenged again until the fifth closes the challenge, a replayed code is refused, the codes
 * count against the user's budget shared with the API sign-in, a user without MFA is unaffected,
 * append mode takes password+code in one request, and the surface down or refusing the key fails
 * closed with the reason in the auth log. Skipped without FreeRADIUS 3.2, radclient and rlm_rest.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { parseFreeradiusLine, type FreeradiusAuthEvent } from '../../../sdk/logs/freeradius-parse.js'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { awayFromWindowEdge, codeAt, enroll, enrollPhone, freeTcpPort, internalSurface, setInternalKey, wrongCode } from '../../../test/kit/mfa.js'
import { ScriptedPhone, viaPushService } from '../../../test/kit/phone.js'
import { pushServerOptions, startPushService, type TestPushService } from '../../../test/kit/push.js'
import { papRequest } from '../../../test/kit/radius-pap.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { deployFreeradius, FREERADIUS_PRESENT, FREERADIUS_SKIP, mschapv2Pairs, radclient, rcString, startFreeradius, type RadclientResult, type RunningFreeradius } from './e2e-support.js'

const SECRET = 'mfa-radius-secret'
const REST_MODULE = ['/usr/lib/freeradius/rlm_rest.so', '/usr/lib64/freeradius/rlm_rest.so', '/usr/local/lib/freeradius/rlm_rest.so'].some((p) => existsSync(p))
const attr = (r: RadclientResult, name: string) => r.attributes.filter((a) => a.name === name).map((a) => a.value)

// What FreeRADIUS does with the deployed tree is the same whatever the engine: once per `npm test`, in its embedded run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('radius: the second factor on FreeRADIUS (Access-Challenge, append)', function () {
  this.timeout(180_000)
  let t: TestApp
  let dir: string
  let daemon: RunningFreeradius | undefined
  let port = 0
  let push: TestPushService | undefined
  const pw: Record<string, string> = {}
  const seed: Record<string, string> = {}
  /** The push users' phones (real key pairs), answering through the push service. */
  const phone: Record<string, ScriptedPhone> = {}

  const send = (pairs: string[]) => radclient(port, 'auth', SECRET, [...pairs, 'Message-Authenticator = 0x00'])
  const pap = (user: string, password: string) => send([`User-Name = ${rcString(user)}`, `User-Password = ${rcString(password)}`])
  const answer = (user: string, state: string, code: string) => send([`User-Name = ${rcString(user)}`, `User-Password = ${rcString(code)}`, `State = ${state}`])

  function lastAuth(): FreeradiusAuthEvent {
    const logDir = path.join(dir, 'logs')
    const lines = readdirSync(logDir)
      .filter((f) => f.startsWith('radius-auth-'))
      .sort()
      .flatMap((f) => readFileSync(path.join(logDir, f), 'utf8').split('\n').filter(Boolean))
    const r = parseFreeradiusLine(lines.at(-1)!)
    if (r.kind !== 'auth') throw new Error(`not an auth line: ${lines.at(-1)}`)
    return r.event
  }

  async function deploy() {
    await daemon?.stop()
    rmSync(path.join(dir, 'release'), { recursive: true, force: true })
    ;({ daemon, port } = await deployFreeradius(t, path.join(dir, 'release')))
  }

  async function user(name: string, o: { mfa: boolean }) {
    pw[name] = `Pw-${Math.random().toString(36).slice(2)}-7z`
    const r = await t.admin('POST', '/api/v1/users', { body: { username: name, password: pw[name], network_login: true, must_change_password: false, group_ids: [groupId] } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    if (o.mfa) seed[name] = await enroll(t, name, pw[name])
  }

  let groupId = ''
  let profileId = ''
  before(async function () {
    if (!FREERADIUS_PRESENT) return skipBecause(this, FREERADIUS_SKIP)
    if (!REST_MODULE) return skipBecause(this, 'FreeRADIUS rlm_rest (Debian: freeradius-rest) is not installed')
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-radius-mfa-'))
    const corePort = await freeTcpPort()
    const surface = internalSurface(corePort)
    push = await startPushService({ coreUrl: `http://127.0.0.1:${corePort}` })
    t = await startTestApp({
      plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'mfa'],
      env: surface.env,
      options: { ...surface.options, ...pushServerOptions(push), 'radius.log_directory': path.join(dir, 'logs'), 'radius.run_directory': path.join(dir, 'run') },
    })
    const group = await t.admin('POST', '/api/v1/user-groups', { body: { name: 'ops' } })
    groupId = group.body.id
    const device = await t.admin('POST', '/api/v1/devices', { body: { name: 'sw1', address: '127.0.0.1/32', radius_secret: SECRET } })
    expect(device.status, JSON.stringify(device.body)).to.equal(201)
    const profile = await t.admin('POST', '/api/v1/radius/profiles', { body: { name: 'admin', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] } })
    profileId = profile.body.id
    const rule = await t.admin('POST', '/api/v1/aaa/policy/rules', { body: { name: 'ops-sw1', who: { group_id: groupId }, where: { device_id: device.body.id }, radius_profile_id: profile.body.id } })
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201)
    for (const n of ['plain', 'mfa-a', 'mfa-b', 'mfa-c', 'mfa-d', 'mfa-e', 'mfa-f', 'mfa-g', 'mfa-h']) await user(n, { mfa: n !== 'plain' })
    // push-a, push-b: a phone only; push-c, -d, -e: a phone and an authenticator (one code each).
    for (const n of ['push-a', 'push-b', 'push-c', 'push-d', 'push-e']) {
      await user(n, { mfa: false })
      phone[n] = new ScriptedPhone(viaPushService(push.url))
      const secret = await enrollPhone(t, n, pw[n], phone[n], { totp: !['push-a', 'push-b'].includes(n) })
      if (secret) seed[n] = secret
    }
    // The shortest the setting takes: the unanswered push ends within the test's patience.
    expect((await t.admin('PUT', '/api/v1/settings/mfa.push_timeout_seconds', { body: { value: 5 } })).status).to.equal(200)
    await setInternalKey(t)
    await deploy()
  })
  after(async () => {
    for (const p of Object.values(phone)) await p.stop()
    await daemon?.stop()
    await t?.stop()
    await push?.close()
    if (dir && !process.env.KEEP_FREERADIUS_DIR) rmSync(dir, { recursive: true, force: true })
  })
  beforeEach(async () => {
    await t.app.db.knex('rate_limit_hits').delete()
  })

  it('keeps the surface\'s address and key in files of mode 0600 only', () => {
    const release = path.join(dir, 'release')
    for (const f of ['mods-enabled/portcullis_mfa', 'portcullis/mfa-pap', 'portcullis/mfa-password']) expect(statSync(path.join(release, f)).mode & 0o777, f).to.equal(0o600)
    expect(readFileSync(path.join(release, 'portcullis/mfa-password'), 'utf8')).to.include('X-Internal-Key: device-mfa-')
    expect(readFileSync(path.join(release, 'sites-enabled/default'), 'utf8')).to.not.include('device-mfa-')
  })

  it('accepts a user without MFA with the password alone', async () => {
    const r = await pap('plain', pw.plain)
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
  })

  it('challenges a user with MFA after the right password, and accepts the code sent back with the State', async () => {
    const first = await pap('mfa-a', pw['mfa-a'])
    expect(first.code, first.raw).to.equal('Access-Challenge')
    const [state] = attr(first, 'State')
    expect(state).to.match(/^0x[0-9a-f]{32}$/)
    expect(attr(first, 'Reply-Message')[0]).to.match(/code/)
    expect(attr(first, 'Service-Type'), 'no profile in a challenge').to.deep.equal([])
    const second = await answer('mfa-a', state, codeAt(seed['mfa-a'], 1))
    expect(second.code, second.raw).to.equal('Access-Accept')
    expect(attr(second, 'Service-Type')).to.deep.equal(['Administrative-User'])
    expect(lastAuth()).to.include({ result: 'accept', username: 'mfa-a' })
  })

  it('challenges an MFA user after an MS-CHAPv2 password too; the code comes back as PAP', async () => {
    const nt = (await t.app.identity.networkUsers(t.app.db.knex)).find((u) => u.username === 'mfa-d')!.verifiers!.nt_hash
    const first = await send(mschapv2Pairs('mfa-d', nt, randomBytes(16), randomBytes(16)))
    expect(first.code, first.raw).to.equal('Access-Challenge')
    const second = await answer('mfa-d', attr(first, 'State')[0], codeAt(seed['mfa-d'], 1))
    expect(second.code, second.raw).to.equal('Access-Accept')
  })

  it('rejects a wrong password of an MFA user without a challenge', async () => {
    const r = await pap('mfa-a', 'not-the-password')
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(lastAuth().rejectReason).to.equal('wrong_password')
  })

  it('challenges again after a wrong code, closes the challenge at the fifth, and the codes count against the user\'s budget shared with the API', async () => {
    await awayFromWindowEdge(40_000)
    const first = await pap('mfa-b', pw['mfa-b'])
    const [state] = attr(first, 'State')
    for (let i = 1; i <= 4; i++) {
      const r = await answer('mfa-b', state, wrongCode(seed['mfa-b']))
      expect(r.code, r.raw).to.equal('Access-Challenge')
      expect(attr(r, 'State'), 'the same State').to.deep.equal([state])
      expect(attr(r, 'Reply-Message')[0]).to.include(`${5 - i} attempts left`)
    }
    const fifth = await answer('mfa-b', state, wrongCode(seed['mfa-b']))
    expect(fifth.code, fifth.raw).to.equal('Access-Reject')
    expect(lastAuth().rejectReason).to.equal('mfa_bad_code')
    const late = await answer('mfa-b', state, codeAt(seed['mfa-b'], 1))
    expect(late.code, 'the right code on a closed challenge').to.equal('Access-Reject')
    const audit = await t.app.db.knex('audit_log').where({ action: 'auth.mfa_internal_verify', actor_name: 'mfa-b' }).select('reason')
    expect(audit.map((a) => a.reason)).to.include.members(['mfa_bad_code', 'mfa_budget_spent', 'mfa_challenge_closed'])

    // Five more wrong codes on a new challenge: ten checked for this user in five minutes, the
    // budget POST /api/v1/mfa/verify shares: the API sign-in is refused now too.
    const again = attr(await pap('mfa-b', pw['mfa-b']), 'State')[0]
    for (let i = 0; i < 5; i++) await answer('mfa-b', again, wrongCode(seed['mfa-b']))
    const login = await t.req('POST', '/api/v1/auth/login', { body: { username: 'mfa-b', password: pw['mfa-b'] } })
    expect(login.body.status).to.equal('mfa_required')
    const api = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: login.body.mfa_token, code: codeAt(seed['mfa-b'], 1) } })
    expect(api.status, JSON.stringify(api.body)).to.equal(429)
    // And the device is refused as well, with the reason.
    const third = attr(await pap('mfa-b', pw['mfa-b']), 'State')[0]
    const limited = await answer('mfa-b', third, codeAt(seed['mfa-b'], 1))
    expect(limited.code).to.equal('Access-Reject')
    expect(lastAuth().rejectReason).to.equal('mfa_rate_limited')
  })

  it('refuses a replayed code: a code accepted once does not open a second login', async () => {
    const code = codeAt(seed['mfa-c'], 1)
    const s1 = attr(await pap('mfa-c', pw['mfa-c']), 'State')[0]
    expect((await answer('mfa-c', s1, code)).code).to.equal('Access-Accept')
    const s2 = attr(await pap('mfa-c', pw['mfa-c']), 'State')[0]
    const replay = await answer('mfa-c', s2, code)
    expect(replay.code, replay.raw).to.equal('Access-Challenge')
    expect(attr(replay, 'Reply-Message')[0]).to.include('4 attempts left')
    // And the accepted State cannot be answered again.
    expect((await answer('mfa-c', s1, code)).code).to.equal('Access-Reject')
  })

  it('does not take a State opened for another user, nor one the platform never opened', async () => {
    const s = attr(await pap('mfa-d', pw['mfa-d']), 'State')[0]
    expect((await answer('mfa-e', s, codeAt(seed['mfa-e'], 1))).code).to.equal('Access-Reject')
    expect((await answer('mfa-e', '0x' + 'ab'.repeat(16), codeAt(seed['mfa-e'], 1))).code).to.equal('Access-Reject')
    expect((await answer('mfa-e', '0x0102', codeAt(seed['mfa-e'], 1))).code).to.equal('Access-Reject')
    expect(lastAuth().rejectReason).to.equal('mfa_bad_code')
  })

  it('fails closed when the platform refuses the daemon\'s key, with the reason in the logs', async () => {
    await setInternalKey(t, 'another-key-' + 'x'.repeat(40))
    try {
      const r = await pap('mfa-d', pw['mfa-d'])
      expect(r.code, r.raw).to.equal('Access-Reject')
      expect(lastAuth().rejectReason).to.equal('mfa_unavailable')
      expect(daemon!.output()).to.include('answered 401')
      expect((await pap('plain', pw.plain)).code, 'fail closed for everyone: whether a user has MFA is unknown').to.equal('Access-Reject')
    } finally {
      await setInternalKey(t)
    }
  })

  it('refuses, rather than lets in, an accept from a password section that never asks for the code (mfa_not_checked)', async () => {
    // A release whose MS-CHAP section lost its mfa-password include (as a new method added without it would be).
    await daemon?.stop()
    const release = path.join(dir, 'release')
    const site = path.join(release, 'sites-enabled/default')
    const text = readFileSync(site, 'utf8')
    const stripped = text.replace(/(Auth-Type MS-CHAP \{\n\t\tmschap\n)\t\t\$INCLUDE \.\.\/portcullis\/mfa-password\n/, '$1')
    expect(stripped, 'the include was there to remove').to.not.equal(text)
    writeFileSync(site, stripped)
    daemon = await startFreeradius(release)
    try {
      const users = await t.app.identity.networkUsers(t.app.db.knex)
      for (const name of ['mfa-d', 'plain']) {
        const nt = users.find((u) => u.username === name)!.verifiers!.nt_hash
        const r = await send(mschapv2Pairs(name, nt, randomBytes(16), randomBytes(16)))
        expect(r.code, `${name}: ${r.raw}`).to.equal('Access-Reject')
        expect(attr(r, 'Service-Type'), 'nothing of the profile').to.deep.equal([])
        expect(lastAuth()).to.include({ result: 'reject', rejectReason: 'mfa_not_checked', username: name })
      }
      expect((await pap('plain', pw.plain)).code, 'PAP still asks, so it still passes').to.equal('Access-Accept')
    } finally {
      await deploy()
    }
  })

  describe('a push to the phone with number matching (challenge mode)', () => {
    const pushes = (username: string) => t.app.db.knex('mfa_push_challenge').join('users', 'users.id', 'mfa_push_challenge.user_id').where('users.username', username).orderBy('mfa_push_challenge.created_at').select('mfa_push_challenge.*')
    /** The number the Access-Challenge shows, as the user reads it off the NAS's prompt. */
    const shown = (r: RadclientResult) => /enter ([0-9]{2}) there/.exec(attr(r, 'Reply-Message')[0] ?? '')?.[1] ?? null
    async function withPhone<T>(name: string, mode: Parameters<ScriptedPhone['behave']>[0], number: string | null, fn: () => Promise<T>): Promise<T> {
      phone[name].behave(mode, () => number)
      try {
        return await fn()
      } finally {
        await phone[name].stop()
      }
    }

    it('challenges a push user after the right password with the number to enter on the phone; the answer waits for the approval and accepts', async () => {
      const first = await pap('push-a', pw['push-a'])
      expect(first.code, first.raw).to.equal('Access-Challenge')
      expect(attr(first, 'Reply-Message')[0]).to.match(/^Approve the sign-in on your phone and enter [0-9]{2} there, then type ok here:$/)
      expect(attr(first, 'Service-Type'), 'no profile in a challenge').to.deep.equal([])
      const [state] = attr(first, 'State')
      expect(state).to.match(/^0x[0-9a-f]{64}$/)
      const number = shown(first)
      const r = await withPhone('push-a', 'approve', number, () => answer('push-a', state, 'ok'))
      expect(r.code, r.raw).to.equal('Access-Accept')
      expect(attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
      expect(lastAuth()).to.include({ result: 'accept', username: 'push-a' })
      const [c] = await pushes('push-a')
      expect(c).to.include({ origin: 'radius', state: 'approved', number_matching: true, number })
      expect(c.context).to.include({ username: 'push-a', client: 'sw1' })
      expect((await answer('push-a', state, 'ok')).code, 'the approved challenge is spent').to.equal('Access-Reject')
    })

    it('rejects when the phone denies (mfa_push_denied) or the wrong number is typed on it (wrong_number), and a wrong password sends no push', async () => {
      const before = (await pushes('push-b')).length
      const first = await pap('push-b', pw['push-b'])
      const denied = await withPhone('push-b', 'deny', shown(first), () => answer('push-b', attr(first, 'State')[0], 'ok'))
      expect(denied.code, denied.raw).to.equal('Access-Reject')
      expect(lastAuth()).to.include({ result: 'reject', rejectReason: 'mfa_push_denied', username: 'push-b' })
      expect(daemon!.output()).to.include('the push was not approved: denied')
      const again = await pap('push-b', pw['push-b'])
      const wrong = await withPhone('push-b', 'wrong_number', shown(again), () => answer('push-b', attr(again, 'State')[0], 'ok'))
      expect(wrong.code, wrong.raw).to.equal('Access-Reject')
      expect(lastAuth()).to.include({ result: 'reject', rejectReason: 'mfa_push_denied', username: 'push-b' })
      expect(daemon!.output()).to.include('the push was not approved: wrong_number')
      expect((await pap('push-b', 'not-' + pw['push-b'])).code).to.equal('Access-Reject')
      expect((await pushes('push-b')).slice(before).map((c) => c.state), 'one push a login with the right password').to.deep.equal(['denied', 'wrong_number'])
    })

    it('rejects when nobody answers within mfa.push_timeout_seconds (mfa_push_timeout); the NAS retransmitting the answer meanwhile sends no second push', async () => {
      const before = (await pushes('push-b')).length
      const first = await pap('push-b', pw['push-b'])
      // radclient resends the same packet every 2 s while FreeRADIUS waits: duplicates of a request in progress.
      const r = await withPhone('push-b', 'silent', null, () =>
        radclient(port, 'auth', SECRET, [`User-Name = ${rcString('push-b')}`, `User-Password = "ok"`, `State = ${attr(first, 'State')[0]}`, 'Message-Authenticator = 0x00'], ['-r', '5', '-t', '2']),
      )
      expect(r.code, r.raw).to.equal('Access-Reject')
      expect(lastAuth()).to.include({ result: 'reject', rejectReason: 'mfa_push_timeout', username: 'push-b' })
      const after = await pushes('push-b')
      expect(after.length, 'one push for the one login').to.equal(before + 1)
      expect(after.at(-1).state).to.be.oneOf(['expired', 'cancelled'])
    })

    it('offers a user with both factors the number or the code: the answer waits for the approval, or a code is checked as TOTP', async () => {
      const first = await pap('push-c', pw['push-c'])
      expect(first.code, first.raw).to.equal('Access-Challenge')
      expect(attr(first, 'Reply-Message')[0]).to.match(/^Approve the sign-in on your phone and enter [0-9]{2} there, then type ok here; or type the code from your authenticator app:$/)
      const r = await withPhone('push-c', 'approve', shown(first), () => answer('push-c', attr(first, 'State')[0], 'ok'))
      expect(r.code, r.raw).to.equal('Access-Accept')
      const again = await pap('push-c', pw['push-c'])
      const code = await answer('push-c', attr(again, 'State')[0], codeAt(seed['push-c'], 1))
      expect(code.code, code.raw).to.equal('Access-Accept')
      expect((await pushes('push-c')).map((c) => c.state)[0]).to.equal('approved')
    })
  })

  describe('per device group (radius.mfa_append_device_groups, with radius.mfa_mode challenge)', () => {
    // A second NAS on the same host: 127.0.0.2, in a device group that cannot answer a challenge.
    const FROM = '127.0.0.2'
    let deviceGroupId = ''
    const nas2 = (user: string, password: string) => papRequest({ port, secret: SECRET, user, password, from: FROM })
    const setGroups = (value: unknown) => t.admin('PUT', '/api/v1/settings/radius.mfa_append_device_groups', { body: { value } })

    before(async function () {
      if (!t) return this.skip()
      const g = await t.admin('POST', '/api/v1/device-groups', { body: { name: 'no-challenge' } })
      expect(g.status, JSON.stringify(g.body)).to.equal(201)
      // A group below the listed one: its devices take the code appended too.
      const below = await t.admin('POST', '/api/v1/device-groups', { body: { name: 'no-challenge-dc1', parent_id: g.body.id } })
      expect(below.status, JSON.stringify(below.body)).to.equal(201)
      deviceGroupId = g.body.id
      const d = await t.admin('POST', '/api/v1/devices', { body: { name: 'sw2', address: `${FROM}/32`, radius_secret: SECRET, device_group_id: below.body.id } })
      expect(d.status, JSON.stringify(d.body)).to.equal(201)
      const rule = await t.admin('POST', '/api/v1/aaa/policy/rules', { body: { name: 'ops-sw2', who: { group_id: groupId }, where: { device_id: d.body.id }, radius_profile_id: profileId } })
      expect(rule.status, JSON.stringify(rule.body)).to.equal(201)
      const r = await setGroups([deviceGroupId])
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      await deploy()
    })
    after(async () => {
      if (t) expect((await setGroups([])).status).to.equal(200)
    })

    it('writes each client\'s mode into clients.conf', () => {
      const clients = readFileSync(path.join(dir, 'release', 'clients.conf'), 'utf8')
      expect(clients).to.match(/client sw1 \{[^}]*portcullis_mfa = "challenge"/)
      expect(clients).to.match(/client sw2 \{[^}]*portcullis_mfa = "append"/)
    })

    it('takes the password followed by the code from a NAS of the group, and still challenges at the other', async () => {
      const alone = await nas2('mfa-g', pw['mfa-g'])
      expect(alone.code, 'the password alone: Access-Reject').to.equal(3)
      expect(lastAuth().rejectReason).to.equal('mfa_required')
      const both = await nas2('mfa-g', pw['mfa-g'] + codeAt(seed['mfa-g'], 1))
      expect(both.code, 'password+code: Access-Accept').to.equal(2)
      expect((await nas2('plain', pw.plain)).code, 'a user without MFA, unchanged').to.equal(2)
      const other = await pap('mfa-h', pw['mfa-h'])
      expect(other.code, other.raw).to.equal('Access-Challenge')
      expect((await answer('mfa-h', attr(other, 'State')[0], codeAt(seed['mfa-h'], 1))).code).to.equal('Access-Accept')
    })

    it('refuses a value of the wrong shape with the envelope and keeps the setting', async () => {
      for (const value of ['x', ['not-a-uuid'], [deviceGroupId, deviceGroupId], null, [42], { id: deviceGroupId }]) {
        const r = await setGroups(value)
        expect(r.status, JSON.stringify(value)).to.be.oneOf([400, 422])
        expect(r.body.code).to.be.a('string')
        expect(r.body.detail).to.be.a('string')
      }
      expect((await t.admin('GET', '/api/v1/settings/radius.mfa_append_device_groups')).body.value).to.deep.equal([deviceGroupId])
    })

    it('refuses to deploy while the setting names a device group that does not exist, naming the setting', async () => {
      const ghost = randomUUID()
      expect((await setGroups([deviceGroupId, ghost])).status).to.equal(200)
      try {
        const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius', comment: 'ghost group' } })
        expect(r.status, JSON.stringify(r.body)).to.equal(422)
        expect(r.body.code).to.equal('DEPLOY_RENDER_FAILED')
        expect(r.body.detail).to.include('radius.mfa_append_device_groups').and.include(ghost)
      } finally {
        expect((await setGroups([deviceGroupId])).status).to.equal(200)
      }
    })
  })

  describe('append mode (radius.mfa_mode append)', () => {
    before(async function () {
      if (!t) return this.skip()
      const r = await t.admin('PUT', '/api/v1/settings/radius.mfa_mode', { body: { value: 'append' } })
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      await deploy()
    })

    it('accepts the password followed by the code in one request, and refuses the password alone', async () => {
      const alone = await pap('mfa-e', pw['mfa-e'])
      expect(alone.code, alone.raw).to.equal('Access-Reject')
      expect(lastAuth().rejectReason).to.equal('mfa_required')
      // One code, sent twice: computed again, it would be the next window's (a fresh code) whenever
      // a 30 s boundary fell between the two requests.
      const code = codeAt(seed['mfa-e'], 1)
      const both = await pap('mfa-e', pw['mfa-e'] + code)
      expect(both.code, both.raw).to.equal('Access-Accept')
      expect(attr(both, 'Service-Type')).to.deep.equal(['Administrative-User'])
      const replay = await pap('mfa-e', pw['mfa-e'] + code)
      expect(replay.code, 'replayed').to.equal('Access-Reject')
      expect(lastAuth().rejectReason).to.equal('mfa_bad_code')
    })

    it('leaves a user without MFA alone, and does not take digits after their password', async () => {
      expect((await pap('plain', pw.plain)).code).to.equal('Access-Accept')
      expect((await pap('plain', pw.plain + '123456')).code).to.equal('Access-Reject')
    })

    it('refuses a wrong code and a wrong password', async () => {
      expect((await pap('mfa-f', pw['mfa-f'] + wrongCode(seed['mfa-f']))).code).to.equal('Access-Reject')
      expect(lastAuth().rejectReason).to.equal('mfa_bad_code')
      expect((await pap('mfa-f', 'nope' + codeAt(seed['mfa-f'], 1))).code).to.equal('Access-Reject')
      expect(lastAuth().rejectReason).to.equal('wrong_password')
    })

    it('takes the password alone of a push user as a push, approved on the phone; the password followed by the code stays TOTP for a user with both', async () => {
      phone['push-a'].behave('approve')
      try {
        const r = await pap('push-a', pw['push-a'])
        expect(r.code, r.raw).to.equal('Access-Accept')
      } finally {
        await phone['push-a'].stop()
      }
      expect(phone['push-a'].answered.at(-1)).to.include({ result: 'approved' })
      const answered = phone['push-a'].answered.length
      const both = await pap('push-d', pw['push-d'] + codeAt(seed['push-d'], 1))
      expect(both.code, both.raw).to.equal('Access-Accept')
      expect(phone['push-a'].answered.length).to.equal(answered)
    })

    it('fails closed for a push user with the push service down (mfa_push_unavailable), in the log; the code still works for a user with both', async () => {
      await push!.close()
      push = undefined
      const r = await pap('push-a', pw['push-a'])
      expect(r.code, r.raw).to.equal('Access-Reject')
      expect(lastAuth()).to.include({ result: 'reject', rejectReason: 'mfa_push_unavailable', username: 'push-a' })
      expect(daemon!.output()).to.include('the push service is down or not configured')
      const both = await pap('push-e', pw['push-e'] + codeAt(seed['push-e'], 1))
      expect(both.code, both.raw).to.equal('Access-Accept')
    })

    it('fails closed with the platform down', async () => {
      await t.stop()
      const r = await pap('mfa-f', pw['mfa-f'] + codeAt(seed['mfa-f'], 1))
      expect(r.code, r.raw).to.equal('Access-Reject')
      expect(lastAuth().rejectReason).to.equal('mfa_unavailable')
      expect(daemon!.output()).to.include('answered nothing')
      t = undefined as unknown as TestApp
    })
  })
})
