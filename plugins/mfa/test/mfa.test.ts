/**
 * The MFA plugin end to end, against the real application and a real SMTP
 * server on loopback: the emailed setup link, enrollment, sign-in with a
 * second factor, the per-token budget of wrong codes (checked before any code
 * is computed), replay refusal, token purposes, the admin routes and the
 * daemons' internal surface.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { Validator } from '@seriousme/openapi-schema-validator'
import { base32Decode, hotp, timeStep } from '../services/totp.js'
import { totpProvider } from '../services/totp-provider.js'
import { startSmtp, type TestSmtp } from '../../../test/kit/smtp.js'

const PASSWORD = 'Tulip-Granite-Orbit-42'
const INTERNAL_KEY = 'k'.repeat(20) + randomUUID()

/** The code of the step `offset` steps from now, computed the moment it is needed. */
const codeAt = (secret: string, offset = 0) => hotp(base32Decode(secret), timeStep(Date.now()) + offset)

/** A six-digit code that is none of the codes the server could accept now (or a step either side of that). */
function wrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((d) => codeAt(secret, d)))
  let n = 123456
  while (near.has(String(n))) n++
  return String(n)
}

/** Counts calls to the TOTP provider: the proof that a burnt token costs no code computation. */
function spyOnProvider() {
  const original = totpProvider.check
  const spy = { calls: 0, restore: () => void (totpProvider.check = original) }
  totpProvider.check = function (...args: Parameters<typeof original>) {
    spy.calls++
    return original.apply(this, args)
  }
  return spy
}

describe('mfa plugin: TOTP second factor', function () {
  let t: TestApp
  let smtp: TestSmtp

  before(async () => {
    smtp = await startSmtp()
    t = await startTestApp({ plugins: ['mfa'], env: { DOCS_ENABLED: 'true' } })
    for (const [key, value] of Object.entries({ 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none' })) {
      const res = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
      expect(res.status, key).to.equal(200)
    }
  })
  after(async () => {
    await t?.stop()
    await smtp?.stop()
  })
  // Every test signs in and verifies several times from 127.0.0.1; the per-IP limits are tested on their own.
  beforeEach(async () => {
    await t.app.db.knex('rate_limit_hits').delete()
  })

  /** A local user with a password, through the users API. */
  async function createUser(o: { email?: string | null; mustChange?: boolean } = {}): Promise<{ id: string; username: string; email: string | null }> {
    const username = `mfa-${randomUUID().slice(0, 8)}`
    const email = o.email === undefined ? `${username}@example.test` : o.email
    const res = await t.admin('POST', '/api/v1/users', { body: { username, email, password: PASSWORD, must_change_password: o.mustChange ?? false } })
    expect(res.status, JSON.stringify(res.body)).to.equal(201)
    return { id: res.body.id, username, email }
  }

  const login = (username: string) => t.req('POST', '/api/v1/auth/login', { body: { username, password: PASSWORD } })

  /** The enrollment token from the mail the admin route sends. */
  async function enrollmentToken(user: { id: string; email: string | null }): Promise<string> {
    const sent = await t.admin('POST', `/api/v1/users/${user.id}/mfa/enrollment-link`)
    expect(sent.status, JSON.stringify(sent.body)).to.equal(202)
    const mail = await smtp.take(user.email!)
    const m = /setup token:\n\n(\S+)/.exec(mail.text)
    expect(m, mail.text).to.not.equal(null)
    return m![1]
  }

  /** A user with a confirmed authenticator; the confirming code spent the current step. */
  async function enrolledUser(o: { mustChange?: boolean } = {}) {
    const user = await createUser(o)
    const token = await enrollmentToken(user)
    const started = await t.req('POST', '/api/v1/mfa/enrollment', { token })
    expect(started.status, JSON.stringify(started.body)).to.equal(200)
    const secret = started.body.secret as string
    const confirmed = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token, body: { code: codeAt(secret) } })
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200)
    return { ...user, secret }
  }

  async function mfaToken(username: string): Promise<string> {
    const res = await login(username)
    expect(res.status).to.equal(200)
    expect(res.body.status).to.equal('mfa_required')
    return res.body.mfa_token as string
  }

  const verify = (mfa_token: string, code: string, headers?: Record<string, string>) => t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token, code }, headers })

  describe('enrollment by emailed link', () => {
    it('runs the whole flow: link by mail, enroll, confirm, then sign-in asks for a code and the code gives a working session', async () => {
      const user = await createUser()
      expect((await login(user.username)).body, 'no second factor yet').to.have.property('access_token')

      const sent = await t.admin('POST', `/api/v1/users/${user.id}/mfa/enrollment-link`)
      expect(sent.status).to.equal(202)
      expect(sent.body.detail).to.be.a('string')
      const mail = await smtp.take(user.email!)
      expect(mail.subject).to.match(/two-factor/i)
      const token = /setup token:\n\n(\S+)/.exec(mail.text)![1]
      expect(mail.text, 'the mail names the API call to make').to.include('POST /api/v1/mfa/enrollment ')
      expect(mail.text, 'without identity.public_url no host is named: never the request\'s Host header').to.not.match(/https?:\/\//)

      const started = await t.req('POST', '/api/v1/mfa/enrollment', { token })
      expect(started.status).to.equal(200)
      const { secret, otpauth_uri, qr_svg } = started.body
      expect(secret).to.match(/^[A-Z2-7]{32}$/)
      expect(otpauth_uri).to.equal(`otpauth://totp/Portcullis:${user.username}?secret=${secret}&issuer=Portcullis&algorithm=SHA1&digits=6&period=30`)
      expect(qr_svg).to.match(/^data:image\/svg\+xml;base64,/)
      expect(Buffer.from(qr_svg.split(',')[1], 'base64').toString()).to.match(/<svg[\s>]/)

      expect((await t.admin('GET', `/api/v1/users/${user.id}/mfa`)).body, 'a pending enrollment guards nothing').to.deep.equal({ enrolled: false, confirmed_at: null })
      expect((await login(user.username)).body).to.have.property('access_token')

      const wrong = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token, body: { code: wrongCode(secret) } })
      expect(wrong.status).to.equal(422)
      expect(wrong.body).to.include({ code: 'MFA_CODE_INVALID', field: 'code' })

      const confirmed = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token, body: { code: codeAt(secret) } })
      expect(confirmed.status).to.equal(200)
      expect(confirmed.body.enrolled).to.equal(true)
      const status = await t.admin('GET', `/api/v1/users/${user.id}/mfa`)
      expect(status.body.enrolled).to.equal(true)
      expect(Date.parse(status.body.confirmed_at)).to.be.closeTo(Date.now(), 60_000)

      const mfa = await login(user.username)
      expect(mfa.body).to.include({ status: 'mfa_required' })
      expect(mfa.body).to.not.have.property('access_token')
      const done = await verify(mfa.body.mfa_token, codeAt(secret, 1))
      expect(done.status, JSON.stringify(done.body)).to.equal(200)
      expect(done.body).to.include({ token_type: 'bearer' })
      const me = await t.req('GET', '/api/v1/auth/me', { token: done.body.access_token })
      expect(me.status).to.equal(200)
      expect(me.body).to.include({ username: user.username, mfa_enabled: true })

      const audit = await t.admin('GET', `/api/v1/audit?resource_type=user&resource_id=${user.id}`)
      expect(audit.body.items.map((i: { action: string }) => i.action)).to.include.members(['mfa.enrollment_link', 'mfa.enrollment_start', 'mfa.enroll'])
    })

    it('spends the setup token on confirmation, and the setup token opens nothing but enrollment', async () => {
      const user = await createUser()
      const token = await enrollmentToken(user)
      const me = await t.req('GET', '/api/v1/auth/me', { token })
      expect(me.status, 'an mfa_enrollment token is not a session').to.equal(401)
      expect(me.body.code).to.equal('TOKEN_PURPOSE_NOT_ACCEPTED')
      expect((await t.req('POST', '/api/v1/mfa/enrollment-link', { token })).status).to.equal(401)

      const started = await t.req('POST', '/api/v1/mfa/enrollment', { token })
      const restarted = await t.req('POST', '/api/v1/mfa/enrollment', { token })
      expect(restarted.status).to.equal(200)
      expect(restarted.body.secret, 'a restart issues a new seed').to.not.equal(started.body.secret)
      const stale = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token, body: { code: codeAt(started.body.secret) } })
      expect(stale.status, 'the replaced seed no longer confirms').to.equal(422)
      const ok = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token, body: { code: codeAt(restarted.body.secret) } })
      expect(ok.status).to.equal(200)
      const again = await t.req('POST', '/api/v1/mfa/enrollment', { token })
      expect(again.status, 'the setup token was spent').to.equal(401)
    })

    it('refuses to replace a confirmed authenticator until an administrator resets it, and the reset removes the second factor', async () => {
      const user = await enrolledUser()
      const session = await t.token({ sub: user.id })
      const restart = await t.req('POST', '/api/v1/mfa/enrollment', { token: session })
      expect(restart.status).to.equal(409)
      expect(restart.body.code).to.equal('MFA_ALREADY_ENROLLED')
      const link = await t.admin('POST', `/api/v1/users/${user.id}/mfa/enrollment-link`)
      expect(link.status).to.equal(409)
      expect(link.body.code).to.equal('MFA_ALREADY_ENROLLED')

      const reset = await t.admin('DELETE', `/api/v1/users/${user.id}/mfa`)
      expect(reset.status).to.equal(204)
      expect(reset.text).to.equal('')
      expect((await t.admin('GET', `/api/v1/users/${user.id}/mfa`)).body).to.deep.equal({ enrolled: false, confirmed_at: null })
      expect((await login(user.username)).body, 'no code asked after the reset').to.have.property('access_token')
      expect((await t.admin('DELETE', `/api/v1/users/${user.id}/mfa`)).status, 'a reset is idempotent').to.equal(204)
      const audit = await t.admin('GET', `/api/v1/audit?resource_type=user&resource_id=${user.id}`)
      expect(audit.body.items.filter((i: { action: string }) => i.action === 'mfa.reset')).to.have.length(1)

      // Self-service enrollment with a session, by the user's own link.
      const self = await t.req('POST', '/api/v1/mfa/enrollment-link', { token: session })
      expect(self.status).to.equal(202)
      const mail = await smtp.take(user.email!)
      expect(mail.text).to.include(user.username)
      const started = await t.req('POST', '/api/v1/mfa/enrollment', { token: session })
      expect(started.status).to.equal(200)
      const confirmed = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token: session, body: { code: codeAt(started.body.secret) } })
      expect(confirmed.status).to.equal(200)
      expect((await t.req('GET', '/api/v1/auth/me', { token: session })).status, 'a session that enrolled stays valid').to.equal(200)
    })

    it('answers 409 MFA_EMAIL_MISSING for a user without email, 404 for an unknown user, and 403 without mfa.manage', async () => {
      const noMail = await createUser({ email: null })
      const res = await t.admin('POST', `/api/v1/users/${noMail.id}/mfa/enrollment-link`, { headers: { 'accept-language': 'ru' } })
      expect(res.status).to.equal(409)
      expect(res.body).to.deep.equal({ code: 'MFA_EMAIL_MISSING', field: null, detail: 'У учётной записи нет адреса почты для отправки ссылки настройки.' })
      expect((await t.admin('POST', `/api/v1/users/${randomUUID()}/mfa/enrollment-link`)).status).to.equal(404)
      expect((await t.admin('GET', `/api/v1/users/${randomUUID()}/mfa`)).status).to.equal(404)
      expect((await t.admin('DELETE', `/api/v1/users/${randomUUID()}/mfa`)).status).to.equal(404)
      expect((await t.admin('GET', '/api/v1/users/not-a-uuid/mfa')).status).to.equal(422)

      const plain = await t.token({ permissions: [] })
      const manager = await t.token({ permissions: ['mfa.manage'] })
      for (const [method, path] of [['POST', `/api/v1/users/${noMail.id}/mfa/enrollment-link`], ['GET', `/api/v1/users/${noMail.id}/mfa`], ['DELETE', `/api/v1/users/${noMail.id}/mfa`]]) {
        const denied = await t.req(method, path, { token: plain })
        expect(denied.status, `${method} ${path}`).to.equal(403)
        expect(denied.body.code).to.equal('PERMISSION_DENIED')
      }
      expect((await t.req('GET', `/api/v1/users/${noMail.id}/mfa`, { token: manager })).status).to.equal(200)

      const rbac = await t.admin('GET', '/api/v1/rbac/schema', { headers: { 'accept-language': 'ru' } })
      const group = rbac.body.groups.find((g: { plugin: string }) => g.plugin === 'mfa')
      expect(group.permissions.map((p: { name: string }) => p.name)).to.deep.equal(['mfa.manage'])
    })

    it('names identity.public_url in the mail when it is set, and never a forged Host header', async () => {
      expect((await t.admin('PUT', '/api/v1/settings/identity.public_url', { body: { value: 'https://nac.example.test/' } })).status).to.equal(200)
      try {
        const user = await createUser()
        await t.admin('POST', `/api/v1/users/${user.id}/mfa/enrollment-link`, { headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } })
        const mail = await smtp.take(user.email!)
        expect(mail.text).to.include('POST https://nac.example.test/api/v1/mfa/enrollment ')
        expect(mail.text).to.not.include('evil')
        // No console is served here: no link to a setup page it would not have (console-admin tests the link).
        expect(mail.text).to.not.include('/mfa/setup')
      } finally {
        await t.admin('PUT', '/api/v1/settings/identity.public_url', { body: { value: null } })
      }
    })

    it('uses the mfa.issuer setting in the otpauth URI', async () => {
      expect((await t.admin('PUT', '/api/v1/settings/mfa.issuer', { body: { value: 'ACME NAC' } })).status).to.equal(200)
      expect((await t.admin('PUT', '/api/v1/settings/mfa.issuer', { body: { value: 'a:b' } })).status, 'a colon would break the label').to.equal(422)
      try {
        const user = await createUser()
        const started = await t.req('POST', '/api/v1/mfa/enrollment', { token: await enrollmentToken(user) })
        expect(started.body.otpauth_uri).to.equal(`otpauth://totp/ACME%20NAC:${user.username}?secret=${started.body.secret}&issuer=ACME%20NAC&algorithm=SHA1&digits=6&period=30`)
      } finally {
        await t.admin('PUT', '/api/v1/settings/mfa.issuer', { body: { value: 'Portcullis' } })
      }
    })

    it('keeps the seed sealed at rest', async () => {
      const user = await enrolledUser()
      const row = await t.app.db.knex('mfa_totp').where({ user_id: user.id }).first()
      expect(row?.secret).to.match(/^v2\./)
      expect(row?.secret).to.not.include(user.secret)
      expect(row?.confirmed).to.equal(true)
    })
  })

  describe('POST /api/v1/mfa/verify', () => {
    it('burns the token on the fifth wrong code; afterwards even a right code is refused and the provider is not called', async () => {
      const user = await enrolledUser()
      const token = await mfaToken(user.username)
      const jti = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti as string
      const spy = spyOnProvider()
      try {
        for (let i = 1; i <= 4; i++) {
          const res = await verify(token, wrongCode(user.secret))
          expect(res.status, `wrong code ${i}`).to.equal(401)
          expect(res.body, `wrong code ${i}`).to.include({ code: 'MFA_CODE_INVALID', field: 'code' })
          expect(res.body.detail).to.include(String(5 - i))
        }
        const fifth = await verify(token, wrongCode(user.secret))
        expect(fifth.status).to.equal(401)
        expect(fifth.body).to.include({ code: 'MFA_TOKEN_BURNT', field: 'mfa_token' })
        expect(spy.calls, 'five codes were checked').to.equal(5)

        const right = await verify(token, codeAt(user.secret, 1))
        expect(right.status).to.equal(401)
        expect(right.body.code).to.equal('MFA_TOKEN_BURNT')
        expect(spy.calls, 'no code is computed for a burnt token').to.equal(5)

        const row = await t.app.db.knex('mfa_token_budget').where({ jti }).first()
        expect(row?.failures).to.equal(5)
        expect(row?.burnt_at).to.be.instanceOf(Date)

        // A node that has not yet seen the revocation still refuses: the budget in the database decides, before the provider.
        await t.app.db.knex('revoked_tokens').where({ jti }).delete()
        t.app.identity.actors.invalidate()
        const elsewhere = await verify(token, codeAt(user.secret, 1))
        expect(elsewhere.status).to.equal(401)
        expect(elsewhere.body.code).to.equal('MFA_TOKEN_BURNT')
        expect(spy.calls, 'still no code computed').to.equal(5)
      } finally {
        spy.restore()
      }
      const fresh = await verify(await mfaToken(user.username), codeAt(user.secret, 1))
      expect(fresh.status, 'the budget is per token: a new sign-in starts afresh').to.equal(200)
    })

    it('does not let parallel wrong codes spend more than five attempts', async () => {
      const user = await enrolledUser()
      const token = await mfaToken(user.username)
      const spy = spyOnProvider()
      try {
        const answers = await Promise.all(Array.from({ length: 8 }, () => verify(token, wrongCode(user.secret))))
        expect(answers.map((a) => a.status)).to.deep.equal(Array(8).fill(401))
        expect(spy.calls).to.equal(5)
        expect(answers.filter((a) => a.body.code === 'MFA_CODE_INVALID')).to.have.length(4)
        expect(answers.filter((a) => a.body.code === 'MFA_TOKEN_BURNT')).to.have.length(4)
      } finally {
        spy.restore()
      }
    })

    it('lets a right fifth attempt through after four wrong ones', async () => {
      const user = await enrolledUser()
      const token = await mfaToken(user.username)
      for (let i = 0; i < 4; i++) expect((await verify(token, wrongCode(user.secret))).status).to.equal(401)
      const ok = await verify(token, codeAt(user.secret, 1))
      expect(ok.status).to.equal(200)
      expect(ok.body).to.have.property('access_token')
    })

    it('refuses a replayed code, and spends the mfa token on success', async () => {
      const user = await enrolledUser()
      const code = codeAt(user.secret, 1)
      const first = await mfaToken(user.username)
      expect((await verify(first, code)).status).to.equal(200)

      const reused = await verify(first, codeAt(user.secret, 1))
      expect(reused.status, 'the mfa token is single use').to.equal(401)
      expect(reused.body.code).to.equal('MFA_TOKEN_INVALID')

      const second = await mfaToken(user.username)
      const replay = await verify(second, code)
      expect(replay.status, 'the same code on a new sign-in').to.equal(401)
      expect(replay.body).to.include({ code: 'MFA_CODE_INVALID', field: 'code' })
      const older = await verify(second, codeAt(user.secret, 0))
      expect(older.status, 'a code older than the last used one').to.equal(401)
      expect(older.body.code).to.equal('MFA_CODE_INVALID')
    })

    it('lets only one of two parallel requests with the same right code through', async () => {
      const user = await enrolledUser()
      const [a, b] = [await mfaToken(user.username), await mfaToken(user.username)]
      const code = codeAt(user.secret, 1)
      const answers = await Promise.all([verify(a, code), verify(b, code)])
      expect(answers.map((r) => r.status).sort()).to.deep.equal([200, 401])
    })

    it('answers password_change_required when the account still owes a password change', async () => {
      const user = await enrolledUser({ mustChange: true })
      const res = await verify(await mfaToken(user.username), codeAt(user.secret, 1))
      expect(res.status).to.equal(200)
      expect(res.body).to.include({ status: 'password_change_required' })
      expect(res.body.password_change_token).to.be.a('string')
    })

    it('never takes the mfa token as a bearer token', async () => {
      const user = await enrolledUser()
      const token = await mfaToken(user.username)
      for (const [method, path] of [['GET', '/api/v1/auth/me'], ['POST', '/api/v1/mfa/enrollment'], ['POST', '/api/v1/mfa/enrollment-link']]) {
        const res = await t.req(method, path, { token })
        expect(res.status, `${method} ${path}`).to.equal(401)
        expect(res.body.code).to.equal('TOKEN_PURPOSE_NOT_ACCEPTED')
      }
      expect((await verify(token, codeAt(user.secret, 1))).status, 'the token is still good where it belongs').to.equal(200)
    })

    it('takes only a token of purpose mfa in the body: session, password_change, byod_mfa and mfa_enrollment answer 401', async () => {
      const user = await enrolledUser()
      const spy = spyOnProvider()
      try {
        for (const purpose of ['session', 'password_change', 'byod_mfa', 'mfa_enrollment'] as const) {
          const other = (await t.app.identity.issueToken(user, purpose, 300)).token
          const res = await verify(other, codeAt(user.secret, 1))
          expect(res.status, purpose).to.equal(401)
          expect(res.body, purpose).to.include({ code: 'MFA_TOKEN_INVALID', field: 'mfa_token' })
        }
        const forged = await verify('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', codeAt(user.secret, 1))
        expect(forged.status).to.equal(401)
        expect(spy.calls, 'no code is computed for a token of another purpose').to.equal(0)
      } finally {
        spy.restore()
      }
      const expired = (await t.app.identity.issueToken(user, 'mfa', -10)).token
      expect((await verify(expired, codeAt(user.secret, 1))).body.code).to.equal('MFA_TOKEN_INVALID')
      const bad = await verify(await mfaToken(user.username), '12345')
      expect(bad.status, 'a malformed code is a validation error and costs no attempt').to.equal(422)
      expect(bad.body.field).to.equal('code')
    })

    it('is rate limited per client IP', async () => {
      for (let i = 0; i < 10; i++) expect((await verify('x.y.z', '123456')).status).to.equal(401)
      const limited = await verify('x.y.z', '123456')
      expect(limited.status).to.equal(429)
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/)
      expect(limited.body).to.have.keys('detail', 'retry_after')
    })
  })

  describe('POST /api/v1/mfa/internal/verify (daemons)', () => {
    const internal = (body: unknown, key?: string) => t.req('POST', '/api/v1/mfa/internal/verify', { body, headers: key === undefined ? {} : { 'x-internal-key': key } })

    it('is disabled (404) while mfa.internal_key is not set', async () => {
      const user = await enrolledUser()
      const res = await internal({ username: user.username, code: codeAt(user.secret, 1) }, INTERNAL_KEY)
      expect(res.status).to.equal(404)
      expect(res.body).to.include({ code: 'MFA_INTERNAL_DISABLED' })
    })

    it('wants the right X-Internal-Key, answers { valid }, and spends a valid code', async () => {
      const set = await t.admin('PUT', '/api/v1/settings/mfa.internal_key', { body: { value: INTERNAL_KEY } })
      expect(set.status).to.equal(200)
      expect(set.body.value, 'the key is write-only').to.equal('***')
      expect(JSON.stringify(await t.app.db.knex('settings').where({ key: 'mfa.internal_key' }).first())).to.not.include(INTERNAL_KEY)
      try {
        const user = await enrolledUser()
        const code = codeAt(user.secret, 1)
        for (const key of [undefined, '', 'wrong', INTERNAL_KEY.slice(0, -1), INTERNAL_KEY + 'x']) {
          const res = await internal({ username: user.username, code }, key)
          expect(res.status, `key ${JSON.stringify(key)}`).to.equal(401)
          expect(res.body.code).to.equal('INTERNAL_KEY_INVALID')
        }
        expect((await internal({ username: user.username, code: wrongCode(user.secret) }, INTERNAL_KEY)).body).to.deep.equal({ valid: false })
        expect((await internal({ username: user.username, code }, INTERNAL_KEY)).body).to.deep.equal({ valid: true })
        expect((await internal({ username: user.username, code }, INTERNAL_KEY)).body, 'replay').to.deep.equal({ valid: false })
        const web = await verify(await mfaToken(user.username), code)
        expect(web.status, 'a code spent by a daemon is spent for the web too').to.equal(401)
        expect((await internal({ username: 'nobody-' + randomUUID().slice(0, 8), code }, INTERNAL_KEY)).body).to.deep.equal({ valid: false })
        const plain = await createUser()
        expect((await internal({ username: plain.username, code }, INTERNAL_KEY)).body, 'no authenticator').to.deep.equal({ valid: false })
        const bearer = await t.req('POST', '/api/v1/mfa/internal/verify', { token: t.adminToken, body: { username: user.username, code } })
        expect(bearer.status, 'a session is not the internal key').to.equal(401)
      } finally {
        await t.admin('PUT', '/api/v1/settings/mfa.internal_key', { body: { value: null } })
      }
      expect((await internal({ username: 'x', code: '123456' }, INTERNAL_KEY)).status, 'disabled again').to.equal(404)
    })
  })

  describe('MfaService.isEnrolled and verifyCode (the captive portal\'s BYOD second factor)', () => {
    const service = async () => {
      const { mfaServiceRef } = await import('../api.js')
      return t.app.resolveDeps('mfa', { mfa: mfaServiceRef }).mfa
    }

    it('says enrolled only for a confirmed authenticator', async () => {
      const mfa = await service()
      const plain = await createUser()
      expect(await mfa.isEnrolled(plain.id)).to.equal(false)
      const pending = await createUser()
      expect((await t.req('POST', '/api/v1/mfa/enrollment', { token: await enrollmentToken(pending) })).status).to.equal(200)
      expect(await mfa.isEnrolled(pending.id), 'started, not confirmed').to.equal(false)
      expect(await mfa.isEnrolled((await enrolledUser()).id)).to.equal(true)
      expect(await mfa.isEnrolled('nonsense')).to.equal(false)
    })

    it('accepts a right code once, with the sign-in\'s replay rule on both sides', async () => {
      const mfa = await service()
      const user = await enrolledUser()
      expect(await mfa.verifyCode(user.id, wrongCode(user.secret))).to.equal(false)
      const code = codeAt(user.secret, 1)
      expect(await mfa.verifyCode(user.id, code)).to.equal(true)
      expect(await mfa.verifyCode(user.id, code), 'replayed').to.equal(false)
      expect(await mfa.verifyCode(user.id, codeAt(user.secret, 0)), 'older than the last used').to.equal(false)
      // What the service spent, the sign-in refuses; and the other way round.
      const replay = await verify(await mfaToken(user.username), code)
      expect(replay.status).to.equal(401)
      expect(replay.body.code).to.equal('MFA_CODE_INVALID')
      const other = await enrolledUser()
      const next = codeAt(other.secret, 1)
      expect((await verify(await mfaToken(other.username), next)).status).to.equal(200)
      expect(await mfa.verifyCode(other.id, next)).to.equal(false)
      // Two at once with one code: one passes.
      const third = await enrolledUser()
      const both = await Promise.all([mfa.verifyCode(third.id, codeAt(third.secret, 1)), mfa.verifyCode(third.id, codeAt(third.secret, 1))])
      expect(both.sort()).to.deep.equal([false, true])
      // No authenticator, no user, no code.
      expect(await mfa.verifyCode((await createUser()).id, '123456')).to.equal(false)
      expect(await mfa.verifyCode('nonsense', '123456')).to.equal(false)
      expect(await mfa.verifyCode(third.id, '12345')).to.equal(false)
      expect(await mfa.verifyCode(third.id, ' 123456')).to.equal(false)
    })
  })

  describe('recovery codes', () => {
    const CODE_FORMAT = /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/
    const codesOf = async (session: string) => {
      const made = await t.req('POST', '/api/v1/mfa/recovery-codes', { token: session })
      expect(made.status, JSON.stringify(made.body)).to.equal(200)
      return made.body.codes as string[]
    }
    const recover = (mfa_token: string, recovery_code: string) => t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token, recovery_code } })

    it('shows ten codes once, keeps only hashes, counts what is left, and a regeneration replaces the whole set', async () => {
      const user = await enrolledUser()
      const session = await t.token({ sub: user.id })
      expect((await t.req('GET', '/api/v1/mfa/recovery-codes', { token: session })).body).to.deep.equal({ remaining: 0, created_at: null })
      const made = await t.req('POST', '/api/v1/mfa/recovery-codes', { token: session })
      expect(made.status).to.equal(200)
      expect(made.body.codes).to.have.length(10)
      for (const c of made.body.codes) expect(c).to.match(CODE_FORMAT)
      expect(new Set(made.body.codes).size).to.equal(10)
      expect(made.body.remaining).to.equal(10)
      const mine = await t.req('GET', '/api/v1/mfa/recovery-codes', { token: session })
      expect(mine.body.remaining).to.equal(10)
      expect(JSON.stringify(mine.body), 'never the codes again').to.not.include(made.body.codes[0].slice(0, 4) + '-')
      expect((await t.admin('GET', `/api/v1/users/${user.id}/mfa/recovery-codes`)).body.remaining).to.equal(10)
      const rows = await t.app.db.knex('mfa_recovery_code').where({ user_id: user.id })
      expect(rows).to.have.length(10)
      const stored = JSON.stringify(rows)
      for (const c of made.body.codes) {
        expect(stored).to.not.include(c)
        expect(stored).to.not.include(c.replace(/-/g, ''))
      }

      const again = await codesOf(session)
      expect(again.filter((c) => made.body.codes.includes(c))).to.deep.equal([])
      expect((await t.req('GET', '/api/v1/mfa/recovery-codes', { token: session })).body.remaining).to.equal(10)
      const old = await recover(await mfaToken(user.username), made.body.codes[0])
      expect(old.status, 'the replaced set signs in no more').to.equal(401)
      expect(old.body).to.include({ code: 'MFA_RECOVERY_CODE_INVALID', field: 'recovery_code' })
      const audit = await t.admin('GET', `/api/v1/audit?resource_type=user&resource_id=${user.id}`)
      expect(audit.body.items.filter((i: { action: string }) => i.action === 'mfa.recovery_codes_generated')).to.have.length(2)

      const none = await createUser()
      const refused = await t.req('POST', '/api/v1/mfa/recovery-codes', { token: await t.token({ sub: none.id }) })
      expect(refused.status, 'codes back up a factor').to.equal(409)
      expect(refused.body.code).to.equal('MFA_RECOVERY_NEEDS_FACTOR')
      expect(await t.app.db.knex('mfa_recovery_code').where({ user_id: none.id })).to.have.length(0)
    })

    it('signs in once per code in place of the phone, mails the user the count left, and audits the use', async () => {
      const user = await enrolledUser()
      const codes = await codesOf(await t.token({ sub: user.id }))
      // Typed loosely: lower case, spaces for dashes.
      const done = await recover(await mfaToken(user.username), codes[3].toLowerCase().replace(/-/g, ' '))
      expect(done.status, JSON.stringify(done.body)).to.equal(200)
      expect((await t.req('GET', '/api/v1/auth/me', { token: done.body.access_token })).body.username).to.equal(user.username)
      const mail = await smtp.take(user.email!)
      expect(mail.subject).to.match(/recovery code/i)
      expect(mail.text).to.include('Recovery codes left: 9.')
      expect(mail.text).to.not.include(codes[3])
      expect((await t.req('GET', '/api/v1/mfa/recovery-codes', { token: await t.token({ sub: user.id }) })).body.remaining).to.equal(9)

      const replay = await recover(await mfaToken(user.username), codes[3])
      expect(replay.status, 'a code is good once').to.equal(401)
      expect(replay.body).to.include({ code: 'MFA_RECOVERY_CODE_INVALID', field: 'recovery_code' })

      // Two sign-ins racing with one code: one of them gets in.
      const [a, b] = await Promise.all([mfaToken(user.username), mfaToken(user.username)])
      const raced = await Promise.all([recover(a, codes[5]), recover(b, codes[5])])
      expect(raced.map((r) => r.status).sort()).to.deep.equal([200, 401])
      await smtp.take(user.email!)
      // The daemons' and the portal's check (MfaService.verifyCode) takes authenticator codes only.
      const { mfaServiceRef } = await import('../api.js')
      const mfa = t.app.resolveDeps('mfa', { mfa: mfaServiceRef }).mfa
      for (const c of [codes[7], codes[7].replace(/-/g, '')]) expect(await mfa.verifyCode(user.id, c), 'console sign-in only').to.equal(false)
      expect(await t.app.db.knex('mfa_recovery_code').where({ user_id: user.id }), 'and it spent none').to.have.length(8)
      const used = await t.app.db.knex('audit_log')
        .where({ action: 'auth.mfa_verify', outcome: 'success', reason: 'recovery_code' })
        .andWhere((q) => q.where({ actor_id: user.id }).orWhere({ resource_id: user.id }))
      expect(used, 'each use audited').to.have.length(2)
      expect(JSON.stringify(used)).to.include('recovery_codes_remaining')
      expect(JSON.stringify(used), 'the code itself is never written').to.not.include(codes[5].slice(0, 4))
    })

    it('counts wrong recovery codes in the token\'s five-strike budget, and refuses malformed input at its field', async () => {
      const user = await enrolledUser()
      const codes = await codesOf(await t.token({ sub: user.id }))
      const token = await mfaToken(user.username)
      expect((await verify(token, wrongCode(user.secret))).body.code).to.equal('MFA_CODE_INVALID')
      for (let i = 2; i <= 4; i++) {
        const r = await recover(token, '0000-0000-0000-000' + i)
        expect(r.status).to.equal(401)
        expect(r.body.detail).to.include(`${5 - i}`)
      }
      const burnt = await recover(token, '0000-0000-0000-0009')
      expect(burnt.body.code, 'the fifth strike burns the token').to.equal('MFA_TOKEN_BURNT')
      const after = await recover(token, codes[0])
      expect(after.body.code, 'a burnt token takes no code, right or not').to.equal('MFA_TOKEN_BURNT')
      expect(await t.app.db.knex('mfa_recovery_code').where({ user_id: user.id }), 'and did not spend it').to.have.length(10)

      // The per-IP limit of the route is tested on its own.
      await t.app.db.knex('rate_limit_hits').delete()
      const fresh = await mfaToken(user.username)
      for (const bad of ['x', 'ABCD-EFGH-JKMN-PQR!', 'A'.repeat(40)]) {
        const r = await recover(fresh, bad)
        expect(r.status, bad).to.equal(422)
        expect(r.body.field, bad).to.equal('recovery_code')
      }
      const both = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: fresh, code: '123456', recovery_code: codes[0] } })
      expect(both.status).to.equal(422)
      expect((await recover(fresh, codes[0])).status, 'malformed input cost no strike').to.equal(200)
      await smtp.take(user.email!)
    })

    it('is revoked by an administrator under the manage rule, and ends with a reset, a disabled account or a deleted user', async () => {
      const user = await enrolledUser()
      await codesOf(await t.token({ sub: user.id }))
      const left = (id: string) => t.app.db.knex('mfa_recovery_code').where({ user_id: id }).then((r) => r.length)
      const plain = await t.token({ permissions: [] })
      expect((await t.req('DELETE', `/api/v1/users/${user.id}/mfa/recovery-codes`, { token: plain })).status).to.equal(403)
      expect((await t.req('GET', `/api/v1/users/${user.id}/mfa/recovery-codes`, { token: plain })).status).to.equal(403)
      const manager = await t.token({ permissions: ['mfa.manage'] })
      const admin = await enrolledUser()
      await codesOf(await t.token({ sub: admin.id }))
      await t.app.db.knex('users').where({ id: admin.id }).update({ is_admin: true })
      const up = await t.req('DELETE', `/api/v1/users/${admin.id}/mfa/recovery-codes`, { token: manager })
      expect(up.status).to.equal(403)
      expect(up.body.code).to.equal('ADMIN_REQUIRED')
      expect(await left(admin.id)).to.equal(10)
      expect((await t.req('DELETE', `/api/v1/users/${user.id}/mfa/recovery-codes`, { token: manager })).status).to.equal(204)
      expect(await left(user.id)).to.equal(0)
      expect((await t.admin('DELETE', `/api/v1/users/${randomUUID()}/mfa/recovery-codes`)).status).to.equal(404)

      await codesOf(await t.token({ sub: user.id }))
      expect((await t.admin('DELETE', `/api/v1/users/${user.id}/mfa`)).status).to.equal(204)
      expect(await left(user.id), 'a reset ends them').to.equal(0)

      await codesOf(await t.token({ sub: admin.id }))
      const other = await enrolledUser()
      await codesOf(await t.token({ sub: other.id }))
      expect((await t.admin('PUT', `/api/v1/users/${other.id}`, { body: { enabled: false } })).status).to.equal(200)
      expect(await left(other.id), 'disabling ends them; enabling again brings none back').to.equal(0)
      expect((await t.admin('DELETE', `/api/v1/users/${admin.id}`)).status).to.equal(204)
      expect(await left(admin.id), 'a deleted user\'s go with them').to.equal(0)
    })
  })

  describe('documentation', () => {
    it('publishes every route in a valid OpenAPI document, with the internal surface and the verify budget described', async () => {
      const doc = (await t.req('GET', '/openapi.json')).body
      const validator = new Validator()
      const result = await validator.validate(doc)
      expect(result.valid, JSON.stringify(result.errors, null, 2)).to.equal(true)
      const ops: [string, string, string | null][] = [
        ['post', '/api/v1/mfa/verify', null],
        ['post', '/api/v1/mfa/internal/verify', null],
        ['post', '/api/v1/mfa/enrollment', 'any signed-in user'],
        ['post', '/api/v1/mfa/enrollment/confirm', 'any signed-in user'],
        ['post', '/api/v1/mfa/enrollment-link', 'any signed-in user'],
        ['post', '/api/v1/users/{user_id}/mfa/enrollment-link', 'mfa.manage'],
        ['get', '/api/v1/users/{user_id}/mfa', 'mfa.manage'],
        ['delete', '/api/v1/users/{user_id}/mfa', 'mfa.manage'],
        ['get', '/api/v1/mfa/recovery-codes', 'any signed-in user'],
        ['post', '/api/v1/mfa/recovery-codes', 'any signed-in user'],
        ['get', '/api/v1/users/{user_id}/mfa/recovery-codes', 'mfa.manage'],
        ['delete', '/api/v1/users/{user_id}/mfa/recovery-codes', 'mfa.manage'],
      ]
      for (const [method, path, permission] of ops) {
        const op = doc.paths[path]?.[method]
        expect(op, `${method} ${path}`).to.be.an('object')
        expect(op['x-plugin']).to.equal('mfa')
        if (permission === null) expect(op.security, path).to.deep.equal([])
        else expect(op['x-permission'], path).to.equal(permission)
      }
      expect(doc.paths['/api/v1/mfa/enrollment'].post['x-token-purposes']).to.deep.equal(['mfa_enrollment', 'session'])
      expect(doc.paths['/api/v1/mfa/internal/verify'].post.description).to.include('X-Internal-Key')
      expect(doc.paths['/api/v1/mfa/verify'].post.description).to.include('MFA_TOKEN_BURNT')
      expect(doc.paths['/api/v1/mfa/verify'].post.responses).to.include.keys('200', '401', '422', '429')
    })
  })
})
