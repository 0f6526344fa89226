/**
 * The daemons' side of a device login's second factor, at the API: POST /api/v1/mfa/internal/check
 * and the challenge of POST /api/v1/mfa/internal/verify (the key, the envelope for every bad input
 * with nothing written, the five-code budget of a challenge, replay across challenges, the per-user
 * limits), and the device settings (radius.mfa_mode, tacacs.mfa_mode) refusing what they do not
 * take. The daemons themselves: plugins/radius/test/e2e-mfa.test.ts, plugins/tacacs/test/e2e/mfa.test.ts.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { awayFromWindowEdge, codeAt, enroll, enrollPhone, freeTcpPort, INTERNAL_KEY, setInternalKey, wrongCode } from '../../../test/kit/mfa.js'
import { ScriptedPhone, viaPushService } from '../../../test/kit/phone.js'
import { pushServerOptions, startPushService, type TestPushService } from '../../../test/kit/push.js'

const PASSWORD = 'Tulip-Granite-Orbit-42'

describe('mfa plugin: the internal surface of device logins (check, verify with a challenge)', function () {
  this.timeout(60_000)
  let t: TestApp
  const seed: Record<string, string> = {}

  const post = (route: 'check' | 'verify' | 'push' | 'push-start' | 'push-wait', body: unknown, key: string | null = INTERNAL_KEY, raw?: string) =>
    t.req('POST', `/api/v1/mfa/internal/${route}`, { body: raw === undefined ? body : undefined, raw, headers: key === null ? {} : { 'x-internal-key': key, ...(raw === undefined ? {} : { 'content-type': 'application/json' }) } })
  const challenges = () => t.app.db.knex('mfa_token_budget').count<{ n: string }[]>({ n: '*' }).then((r) => Number(r[0].n))

  let push: TestPushService
  const phone: Record<string, ScriptedPhone> = {}

  before(async () => {
    // The push service knows where the platform is before it starts, and the platform where it is.
    const port = await freeTcpPort()
    push = await startPushService({ coreUrl: `http://127.0.0.1:${port}` })
    t = await startTestApp({ plugins: ['inventory', 'tacacs', 'radius', 'mfa'], env: { PORT: String(port) }, options: pushServerOptions(push) })
    for (const username of ['ic-push', 'ic-both']) {
      const r = await t.admin('POST', '/api/v1/users', { body: { username, password: PASSWORD, must_change_password: false } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      phone[username] = new ScriptedPhone(viaPushService(push.url))
      const secret = await enrollPhone(t, username, PASSWORD, phone[username], { totp: username === 'ic-both' })
      if (secret) seed[username] = secret
    }
    for (const username of ['ic-alice', 'ic-bob', 'ic-carol', 'ic-plain', 'ic-off']) {
      const r = await t.admin('POST', '/api/v1/users', { body: { username, password: PASSWORD, must_change_password: false } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      if (username !== 'ic-plain') seed[username] = await enroll(t, username, PASSWORD)
      // Enrolled, then disabled: a disabled account owes nothing, it logs in nowhere.
      if (username === 'ic-off') expect((await t.admin('PUT', `/api/v1/users/${r.body.id}`, { body: { enabled: false } })).status).to.equal(200)
    }
  })
  after(async () => {
    for (const p of Object.values(phone)) await p.stop()
    await t?.stop()
    await push?.close()
  })
  beforeEach(async () => {
    await t.app.db.knex('rate_limit_hits').delete()
  })

  it('is off (404 MFA_INTERNAL_DISABLED, push routes too) while mfa.internal_key is null, whatever the key', async () => {
    const r = await post('check', { username: 'ic-alice' })
    expect(r.status).to.equal(404)
    expect(r.body.code).to.equal('MFA_INTERNAL_DISABLED')
    for (const route of ['push', 'push-start'] as const) expect((await post(route, { username: 'ic-alice', challenge: 'ab'.repeat(16), origin: 'radius' })).body.code, route).to.equal('MFA_INTERNAL_DISABLED')
    expect((await post('push-wait', { username: 'ic-alice', challenge: 'ab'.repeat(16), push_challenge: randomUUID() })).body.code).to.equal('MFA_INTERNAL_DISABLED')
    expect(await challenges()).to.equal(0)
    await setInternalKey(t)
  })

  it('wants the key: none, a wrong one or a session token answer 401 INTERNAL_KEY_INVALID and open nothing', async () => {
    const before = await challenges()
    for (const key of [null, '', 'x', INTERNAL_KEY + 'x', INTERNAL_KEY.slice(0, -1)]) {
      const r = await post('check', { username: 'ic-alice' }, key)
      expect(r.status, String(key)).to.equal(401)
      expect(r.body).to.include({ code: 'INTERNAL_KEY_INVALID' })
    }
    const bearer = await t.req('POST', '/api/v1/mfa/internal/check', { token: t.adminToken, body: { username: 'ic-alice' } })
    expect(bearer.status).to.equal(401)
    expect(await challenges()).to.equal(before)
  })

  it('answers every bad body with the envelope (400/422, a field named where there is one) and opens nothing', async () => {
    const before = await challenges()
    const bad: [unknown, string | null][] = [
      [{}, 'username'],
      [{ username: '' }, 'username'],
      [{ username: 'u'.repeat(65) }, 'username'],
      [{ username: 42 }, 'username'],
      [{ username: 'ic-alice', extra: true }, null],
      [[], null],
      ['ic-alice', null],
    ]
    for (const [body, field] of bad) {
      const r = await post('check', body)
      expect(r.status, JSON.stringify(body)).to.be.oneOf([400, 422])
      expect(r.body.code, JSON.stringify(r.body)).to.be.a('string')
      expect(r.body.detail).to.be.a('string')
      if (field) expect(r.body.field, JSON.stringify(r.body)).to.equal(field)
    }
    const malformed = await post('check', undefined, INTERNAL_KEY, '{"username":')
    expect(malformed.status).to.equal(422)
    expect(malformed.body.code).to.equal('BODY_MALFORMED_JSON')
    for (const challenge of ['AB'.repeat(16), 'ab'.repeat(15), 'ab'.repeat(17), 'zz'.repeat(16), 42, '']) {
      const r = await post('verify', { username: 'ic-alice', code: '123456', challenge })
      expect(r.status, String(challenge)).to.be.oneOf([400, 422])
      expect(r.body.field, JSON.stringify(r.body)).to.equal('challenge')
    }
    for (const code of ['12345', '1234567', 'abcdef', 123456]) {
      const r = await post('verify', { username: 'ic-alice', code, challenge: 'ab'.repeat(16) })
      expect(r.status, String(code)).to.be.oneOf([400, 422])
      expect(r.body.field, JSON.stringify(r.body)).to.equal('code')
    }
    expect(await challenges()).to.equal(before)
  })

  it('answers the push routes with the same key rules (401 without the right key) and the envelope for bad bodies, sending nothing', async () => {
    const before = await challenges()
    const ok = { username: 'ic-alice', challenge: 'ab'.repeat(16), origin: 'radius' }
    for (const key of [null, 'x', INTERNAL_KEY + 'x']) {
      for (const route of ['push', 'push-start'] as const) {
        const r = await post(route, ok, key)
        expect(r.status, `${route} ${key}`).to.equal(401)
        expect(r.body.code).to.equal('INTERNAL_KEY_INVALID')
      }
      const w = await post('push-wait', { username: 'ic-alice', challenge: 'ab'.repeat(16), push_challenge: randomUUID() }, key)
      expect(w.status).to.equal(401)
    }
    const bad: [string, unknown, string | null][] = [
      ['push', { ...ok, origin: 'portal' }, 'origin'],
      ['push', { ...ok, challenge: 'AB'.repeat(16) }, 'challenge'],
      ['push', { ...ok, number_matching: 'yes' }, 'number_matching'],
      ['push', { ...ok, ip: 'x'.repeat(254) }, 'ip'],
      ['push-start', { username: 'ic-alice', challenge: 'ab'.repeat(16) }, 'origin'],
      ['push-start', { ...ok, wait: false }, null],
      ['push-wait', { username: 'ic-alice', challenge: 'ab'.repeat(16), push_challenge: 'not-a-uuid' }, 'push_challenge'],
      ['push-wait', { username: 'ic-alice', challenge: 'ab'.repeat(16) }, 'push_challenge'],
    ]
    for (const [route, body, field] of bad) {
      const r = await post(route as 'push', body)
      expect(r.status, JSON.stringify(body)).to.be.oneOf([400, 422])
      expect(r.body.detail).to.be.a('string')
      if (field) expect(r.body.field, JSON.stringify(r.body)).to.equal(field)
    }
    expect(await challenges()).to.equal(before)
  })

  it('sends no push on a challenge that is not open (forged, another user\'s, unknown user) and writes nothing for it', async () => {
    const before = await challenges()
    const bobs = (await post('check', { username: 'ic-bob' })).body.challenge as string
    for (const [username, challenge] of [['ic-bob', 'ab'.repeat(16)], ['ic-carol', bobs], ['nobody-' + randomUUID().slice(0, 8), bobs]]) {
      const r = await post('push', { username, challenge, origin: 'tacacs' })
      expect(r.status, username).to.equal(200)
      expect(r.body, username).to.deep.equal({ approved: false, outcome: 'challenge_closed' })
      const s = await post('push-start', { username, challenge, origin: 'radius', number_matching: true })
      expect(s.body, username).to.deep.equal({ sent: false, push_challenge: null, number: null, outcome: 'challenge_closed' })
    }
    // A push challenge that this device challenge never started is not waited on.
    const w = await post('push-wait', { username: 'ic-bob', challenge: bobs, push_challenge: randomUUID() })
    expect(w.body).to.deep.equal({ approved: false, outcome: 'challenge_closed' })
    expect(await challenges()).to.equal(before + 1)
    expect(await t.app.db.knex('audit_log').where({ action: 'auth.mfa_internal_push' }).count<{ n: string }[]>({ n: '*' }).then((r) => Number(r[0].n))).to.equal(0)
  })

  it('charges the device challenge for each push asked, before sending: five close it, and the right code is refused then', async () => {
    await awayFromWindowEdge(20_000)
    const challenge = (await post('check', { username: 'ic-carol' })).body.challenge as string
    for (let i = 1; i <= 5; i++) {
      const r = await post('push', { username: 'ic-carol', challenge, origin: 'radius' })
      expect(r.status).to.equal(200)
      // ic-carol has no push device: refused, never approved.
      expect(r.body.approved).to.equal(false)
      expect(r.body.outcome).to.be.oneOf(['no_device', 'unavailable'])
    }
    expect((await post('push', { username: 'ic-carol', challenge, origin: 'radius' })).body).to.deep.equal({ approved: false, outcome: 'challenge_closed' })
    const v = await post('verify', { username: 'ic-carol', code: codeAt(seed['ic-carol'], 1), challenge })
    expect(v.body).to.deep.equal({ valid: false, remaining: 0 })
    const audit = await t.app.db.knex('audit_log').where({ action: 'auth.mfa_internal_push', actor_name: 'ic-carol' }).select('reason', 'outcome')
    expect(audit).to.have.length(5)
    for (const a of audit) expect(a.outcome).to.equal('failure')
  })

  it('names the factors a login can take: a push device alone, or both', async () => {
    const only = await post('check', { username: 'ic-push' })
    expect(only.body).to.include({ required: true }).and.have.property('factors').deep.equal(['push'])
    expect((await post('check', { username: 'ic-both' })).body.factors).to.deep.equal(['totp', 'push'])
  })

  it('sends the push and answers when the phone approved; the approval spends the challenge: a second push on it sends nothing', async () => {
    const challenge = (await post('check', { username: 'ic-push' })).body.challenge as string
    phone['ic-push'].behave('approve')
    let r: Awaited<ReturnType<typeof post>>
    try {
      r = await post('push', { username: 'ic-push', challenge, origin: 'tacacs', ip: '10.9.8.7', client: 'core-sw' })
    } finally {
      await phone['ic-push'].stop()
    }
    expect(r.status).to.equal(200)
    expect(r.body).to.deep.equal({ approved: true, outcome: 'approved' })
    const row = await t.app.db.knex('mfa_push_challenge').orderBy('created_at', 'desc').first()
    expect(row).to.include({ origin: 'tacacs', state: 'approved', number_matching: false })
    expect(row!.context).to.deep.equal({ username: 'ic-push', ip: '10.9.8.7', client: 'core-sw' })
    expect((await post('push', { username: 'ic-push', challenge, origin: 'tacacs' })).body).to.deep.equal({ approved: false, outcome: 'challenge_closed' })
    const audit = await t.app.db.knex('audit_log').where({ action: 'auth.mfa_internal_push', actor_name: 'ic-push' }).select('outcome')
    expect(audit.map((a) => a.outcome)).to.deep.equal(['success'])
  })

  it('push-start answers the number the phone must be given; push-wait takes only the push started for that challenge, never an approved push of another login', async () => {
    const first = (await post('check', { username: 'ic-both' })).body.challenge as string
    const started = await post('push-start', { username: 'ic-both', challenge: first, origin: 'radius', number_matching: true })
    expect(started.body.sent).to.equal(true)
    expect(started.body.number).to.match(/^[1-9][0-9]$/)
    const pushChallenge = started.body.push_challenge as string
    phone['ic-both'].behave('approve', () => started.body.number)
    let waited: Awaited<ReturnType<typeof post>>
    try {
      waited = await post('push-wait', { username: 'ic-both', challenge: first, push_challenge: pushChallenge })
    } finally {
      await phone['ic-both'].stop()
    }
    expect(waited.body).to.deep.equal({ approved: true, outcome: 'approved' })
    // The same approved push named with a new login's challenge (a replayed State): not this challenge's push.
    const second = (await post('check', { username: 'ic-both' })).body.challenge as string
    expect((await post('push-wait', { username: 'ic-both', challenge: second, push_challenge: pushChallenge })).body).to.deep.equal({ approved: false, outcome: 'challenge_closed' })
    expect((await post('push-wait', { username: 'ic-both', challenge: first, push_challenge: pushChallenge })).body, 'the approved challenge is spent').to.deep.equal({ approved: false, outcome: 'challenge_closed' })
    // And the second login still takes its code.
    expect((await post('verify', { username: 'ic-both', code: codeAt(seed['ic-both'], 1), challenge: second })).body).to.deep.equal({ valid: true, remaining: 0 })
  })

  it('follows the user\'s factor choice: with the push alone chosen, check names it alone and a code is refused as if no authenticator were enrolled', async () => {
    const { id } = (await t.app.db.knex('users').where({ username: 'ic-both' }).first('id'))!
    const set = async (factors: string | null) => expect((await t.admin('PUT', `/api/v1/users/${id}/mfa/factors`, { body: { factors } })).status).to.equal(200)
    await set('push')
    try {
      const c = await post('check', { username: 'ic-both' })
      expect(c.body.factors).to.deep.equal(['push'])
      const v = await post('verify', { username: 'ic-both', code: codeAt(seed['ic-both'], 1), challenge: c.body.challenge })
      expect(v.body).to.deep.equal({ valid: false, remaining: 0 })
      const last = await t.app.db.knex('audit_log').where({ action: 'auth.mfa_internal_verify', actor_name: 'ic-both' }).orderBy('at', 'desc').first('reason')
      expect(last?.reason).to.equal('mfa_not_enrolled')
    } finally {
      await set(null)
    }
    expect((await post('check', { username: 'ic-both' })).body.factors).to.deep.equal(['totp', 'push'])
  })

  it('answers { required: false, challenge: null } alike for an unknown user, one without MFA and a disabled one, and opens nothing', async () => {
    const before = await challenges()
    for (const username of ['nobody-' + randomUUID().slice(0, 8), 'ic-plain', 'ic-off']) {
      const r = await post('check', { username })
      expect(r.status, username).to.equal(200)
      expect(r.body, username).to.deep.equal({ required: false, factors: [], challenge: null })
    }
    expect(await challenges()).to.equal(before)
  })

  it('opens a challenge for an enrolled user; five wrong codes close it, and then even the right code is refused', async () => {
    await awayFromWindowEdge(20_000)
    const r = await post('check', { username: 'ic-alice' })
    expect(r.status).to.equal(200)
    expect(r.body.required).to.equal(true)
    expect(r.body.factors, 'an authenticator, no push device').to.deep.equal(['totp'])
    expect(r.body.challenge).to.match(/^[0-9a-f]{32}$/)
    const challenge = r.body.challenge as string
    for (let i = 1; i <= 5; i++) {
      const v = await post('verify', { username: 'ic-alice', code: wrongCode(seed['ic-alice']), challenge })
      expect(v.status).to.equal(200)
      expect(v.body).to.deep.equal({ valid: false, remaining: 5 - i })
    }
    await t.app.db.knex('rate_limit_hits').delete()
    const late = await post('verify', { username: 'ic-alice', code: codeAt(seed['ic-alice'], 1), challenge })
    expect(late.body).to.deep.equal({ valid: false, remaining: 0 })
    const audit = await t.app.db.knex('audit_log').where({ action: 'auth.mfa_internal_verify', actor_name: 'ic-alice' }).orderBy('at').select('reason')
    expect(audit.map((a) => a.reason)).to.deep.equal(['mfa_bad_code', 'mfa_bad_code', 'mfa_bad_code', 'mfa_bad_code', 'mfa_budget_spent', 'mfa_challenge_closed'])
  })

  it('takes a challenge only for the user it was opened for, and only once; a code spent on one challenge is refused on the next', async () => {
    const bobs = (await post('check', { username: 'ic-bob' })).body.challenge as string
    const other = await post('verify', { username: 'ic-carol', code: codeAt(seed['ic-carol'], 1), challenge: bobs })
    expect(other.body, 'another user\'s challenge').to.deep.equal({ valid: false, remaining: 0 })
    const forged = await post('verify', { username: 'ic-bob', code: codeAt(seed['ic-bob'], 1), challenge: 'ab'.repeat(16) })
    expect(forged.body, 'a challenge never opened').to.deep.equal({ valid: false, remaining: 0 })
    const code = codeAt(seed['ic-bob'], 1)
    expect((await post('verify', { username: 'ic-bob', code, challenge: bobs })).body).to.deep.equal({ valid: true, remaining: 0 })
    expect((await post('verify', { username: 'ic-bob', code, challenge: bobs })).body, 'the answered challenge is closed').to.deep.equal({ valid: false, remaining: 0 })
    const next = (await post('check', { username: 'ic-bob' })).body.challenge as string
    expect((await post('verify', { username: 'ic-bob', code, challenge: next })).body, 'replayed on a new challenge').to.deep.equal({ valid: false, remaining: 4 })
    // And the API sign-in refuses it as well: one code, one login, wherever.
    const login = await t.req('POST', '/api/v1/auth/login', { body: { username: 'ic-bob', password: PASSWORD } })
    const api = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: login.body.mfa_token, code } })
    expect(api.status, JSON.stringify(api.body)).to.equal(401)
  })

  it('limits the challenges opened per user (429 with Retry-After, the contract\'s 429 body), and leaves other users alone', async () => {
    let limited: Awaited<ReturnType<typeof post>> | undefined
    for (let i = 0; i < 31 && !limited; i++) {
      const r = await post('check', { username: 'ic-carol' })
      if (r.status === 429) limited = r
      else expect(r.status).to.equal(200)
    }
    expect(limited, 'the 31st challenge within 5 minutes').to.not.equal(undefined)
    expect(limited!.body.detail).to.be.a('string')
    expect(limited!.body.retry_after).to.be.a('number')
    expect(limited!.headers.get('retry-after')).to.match(/^[0-9]+$/)
    expect((await post('check', { username: 'ic-bob' })).status).to.equal(200)
  })

  it('refuses device settings it does not take, with the envelope, and keeps the value', async () => {
    for (const [key, value] of [
      ['radius.mfa_mode', 'bogus'],
      ['radius.mfa_mode', null],
      ['radius.mfa_mode', 1],
      ['tacacs.mfa_mode', 'challenge'],
      ['tacacs.mfa_mode', ''],
    ] as const) {
      const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
      expect(r.status, `${key} ${JSON.stringify(value)}`).to.be.oneOf([400, 422])
      expect(r.body.code).to.be.a('string')
      expect(r.body.detail).to.be.a('string')
    }
    expect((await t.admin('GET', '/api/v1/settings/radius.mfa_mode')).body.value).to.equal('challenge')
    expect((await t.admin('GET', '/api/v1/settings/tacacs.mfa_mode')).body.value).to.equal('append')
    expect((await t.admin('PUT', '/api/v1/settings/mfa.internal_url', { body: { value: 'http://127.0.0.1:1' } })).status, 'the address is a server option, not a setting').to.be.oneOf([400, 404, 422])
  })

  it('refuses to deploy a daemon that would ask for codes without the surface\'s address (server option mfa.internal_url), naming it', async () => {
    for (const daemon of ['freeradius', 'tac_plus-ng']) {
      const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon, comment: 'no mfa.internal_url' } })
      expect(r.status, JSON.stringify(r.body)).to.equal(422)
      expect(r.body.code).to.equal('DEPLOY_RENDER_FAILED')
      expect(r.body.detail).to.include('mfa.internal_url')
    }
  })
})
