/**
 * The identity flows end to end, through the real API: the first
 * administrator, sign-in and its answers, the password policy, password
 * change and reset (through a real SMTP server), sign-out on every node of a
 * cluster, the login rate limit, the caller's profile, and the write-only SMTP
 * password. Users are inserted with knex and the product's own hashPassword.
 */
import { expect } from 'chai'
import { createHash, randomUUID } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { hashPassword, verifyPassword } from '../../kernel/identity/passwords.js'
import { jsonText } from '../../sdk/index.js'
import { bootRefusal, startTestApp, TEST_ADMIN_PASSWORD, type TestApp, runsOn } from '../kit/app.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number; iat: number; purpose: string; sub: string; jti: string }
/** The text of a message, quoted-printable decoded when it says so (nodemailer picks the encoding). */
function mailText(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/)
  const head = raw.slice(0, split)
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '')
  if (!/^Content-Transfer-Encoding: quoted-printable/im.test(head)) return raw
  const decoded = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
  return `${head}\n\n${Buffer.from(decoded, 'latin1').toString('utf8')}`
}
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

/** Waits until the clock is in a later second than `iat`: sessions are void by whole seconds. */
async function nextSecond(iat: number) {
  while (Math.floor(Date.now() / 1000) <= iat) await sleep(20)
}

interface UserOpts {
  username?: string
  password?: string
  email?: string | null
  enabled?: boolean
  source?: 'local' | 'directory'
  admin?: boolean
  permissions?: string[]
  group?: { name: string; permissions: string[] }
}

async function mkUser(t: TestApp, o: UserOpts = {}) {
  const knex = t.app.db.knex
  const username = o.username ?? `u-${randomUUID().slice(0, 8)}`
  const password = o.password ?? `Sturdy-${randomUUID()}`
  const [row] = await knex('users')
    .insert({
      username,
      email: o.email ?? null,
      enabled: o.enabled ?? true,
      source: o.source ?? 'local',
      is_admin: o.admin ?? false,
      password_hash: o.source === 'directory' ? null : await hashPassword(password),
      password_changed_at: new Date(),
    })
    .returning('id')
  if (o.permissions?.length) {
    const [role] = await knex('roles').insert({ name: `r-${username}`, permissions: jsonText(o.permissions) }).returning('id')
    await knex('user_roles').insert({ user_id: row.id, role_id: role.id })
  }
  if (o.group) {
    const [g] = await knex('user_groups').insert({ name: o.group.name }).returning('id')
    const [role] = await knex('roles').insert({ name: `gr-${o.group.name}`, permissions: jsonText(o.group.permissions) }).returning('id')
    await knex('group_roles').insert({ group_id: g.id, role_id: role.id })
    await knex('user_group_members').insert({ group_id: g.id, user_id: row.id })
  }
  return { id: row.id, username, password }
}

const login = (t: TestApp, username: string, password: string) => t.req('POST', '/api/v1/auth/login', { body: { username, password } })

async function sessionOf(t: TestApp, username: string, password: string): Promise<string> {
  const r = await login(t, username, password)
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
  return r.body.access_token as string
}


describe('identity flows', function () {
  this.timeout(60_000)

  describe('first administrator', () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp()
    })
    after(async () => t?.stop())

    it('creates exactly one user `admin`, an administrator who must change the password', async () => {
      expect(t.app.bootstrap).to.deep.equal({ password: TEST_ADMIN_PASSWORD, generated: false })
      // The kit adds its own `kit-…` accounts after the boot; the boot made only `admin`.
      const users = await t.app.db.knex('users').whereNot('username', 'like', 'kit-%').select('username', 'is_admin', 'must_change_password', 'source', 'enabled')
      expect(users).to.deep.equal([{ username: 'admin', is_admin: true, must_change_password: true, source: 'local', enabled: true }])
    })

    it('signs in with ADMIN_PASSWORD only to change it, then with the new password to a session of the configured lifetime', async () => {
      const first = await login(t, 'admin', TEST_ADMIN_PASSWORD)
      expect(first.status).to.equal(200)
      expect(first.body).to.have.keys(['status', 'password_change_token', 'expires_in'])
      expect(first.body).to.include({ status: 'password_change_required', expires_in: 600 })
      const pct = first.body.password_change_token as string
      expect(claimsOf(pct).purpose).to.equal('password_change')

      // The password_change token opens change-password and nothing else.
      const me = await t.req('GET', '/api/v1/auth/me', { token: pct })
      expect(me.status).to.equal(401)
      expect(me.body.code).to.equal('TOKEN_PURPOSE_NOT_ACCEPTED')
      expect((await t.req('GET', '/api/v1/settings', { token: pct })).status).to.equal(401)

      const newPassword = 'Tidal-Lantern-Orbit-42'
      const changed = await t.req('POST', '/api/v1/auth/change-password', { token: pct, body: { current_password: TEST_ADMIN_PASSWORD, new_password: newPassword } })
      expect(changed.status, JSON.stringify(changed.body)).to.equal(200)
      expect(changed.body).to.have.keys(['access_token', 'token_type', 'expires_in'])
      const after = await t.req('GET', '/api/v1/auth/me', { token: changed.body.access_token })
      expect(after.status).to.equal(200)
      expect(after.body).to.include({ username: 'admin', is_admin: true, must_change_password: false })

      const old = await login(t, 'admin', TEST_ADMIN_PASSWORD)
      expect(old.status).to.equal(401)
      expect(old.body.code).to.equal('INVALID_CREDENTIALS')

      const ok = await login(t, 'admin', newPassword)
      expect(ok.status).to.equal(200)
      expect(Object.keys(ok.body).sort()).to.deep.equal(['access_token', 'expires_in', 'token_type'])
      expect(ok.body).to.include({ token_type: 'bearer', expires_in: 28800 })
      const c = claimsOf(ok.body.access_token)
      expect(c.purpose).to.equal('session')
      expect(c.exp - c.iat).to.equal(28800)
      expect(c.exp).to.be.closeTo(Math.floor(Date.now() / 1000) + 28800, 5)

      // The lifetime is a setting.
      const put = await t.admin('PUT', '/api/v1/settings/identity.session_ttl_seconds', { body: { value: 3600 } })
      expect(put.status, JSON.stringify(put.body)).to.equal(200)
      expect(put.body).to.include({ value: 3600, default: 28800 })
      const shorter = await login(t, 'admin', newPassword)
      expect(shorter.body).to.include({ token_type: 'bearer', expires_in: 3600 })
      const c2 = claimsOf(shorter.body.access_token)
      expect(c2.exp - c2.iat).to.equal(3600)
      expect((await t.req('GET', '/api/v1/auth/me', { token: shorter.body.access_token })).status).to.equal(200)
      // Out of bounds (5 minutes to 7 days) is refused.
      expect((await t.admin('PUT', '/api/v1/settings/identity.session_ttl_seconds', { body: { value: 60 } })).status).to.equal(422)
    })

    it('refuses to boot when ADMIN_PASSWORD breaks the password policy (CONFIG_INVALID)', async function () {
      // Three boots up to the refusal: each embedded one starts a database first (slow on a busy machine).
      this.timeout(240_000)
      for (const bad of ['short-9', 'password1234', 'my-admin-password-is-long']) {
        const e = await bootRefusal({ env: { ADMIN_PASSWORD: bad } })
        expect(e.code, bad).to.equal('CONFIG_INVALID')
        expect(e.message, bad).to.match(/ADMIN_PASSWORD does not meet the password policy/)
      }
    })

    ;(runsOn('postgres') ? it : it.skip)('generates a random password when ADMIN_PASSWORD is absent, and a second start creates no second admin', async () => {
      // A second start while the first runs, on the same database: PostgreSQL (an embedded folder has one owner).
      const a = await startTestApp({ engine: 'postgres', env: { ADMIN_PASSWORD: '' } })
      let b: TestApp | null = null
      try {
        expect(a.app.bootstrap).to.include({ generated: true })
        const pw = a.app.bootstrap!.password
        expect(pw).to.match(/^[A-Za-z0-9_-]{24}$/)
        expect(pw).not.to.equal(TEST_ADMIN_PASSWORD)
        const r = await login(a, 'admin', pw)
        expect(r.status).to.equal(200)
        expect(r.body.status).to.equal('password_change_required')

        // Same database, same key, a different ADMIN_PASSWORD: nothing is created or reset.
        b = await startTestApp({ databaseUrl: a.databaseUrl!, masterKey: a.masterKey, env: { ADMIN_PASSWORD: 'Another-Valid-Passw0rd' } })
        expect(b.app.bootstrap).to.equal(null)
        const admins = (await a.app.db.knex('users').whereRaw('lower(username) = ?', ['admin']).count({ n: '*' }).first())!
        expect(Number(admins.n)).to.equal(1)
        expect((await login(b, 'admin', 'Another-Valid-Passw0rd')).status).to.equal(401)
        expect((await login(b, 'admin', pw)).status).to.equal(200)
      } finally {
        await b?.stop()
        await a.stop()
      }
    })
  })

  describe('with users', () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp()
    })
    after(async () => t?.stop())
    // The login limit (10 a minute per IP) would otherwise couple the tests to each other.
    beforeEach(async () => {
      await t.app.db.knex('rate_limit_hits').delete()
    })

    describe('password policy on change-password', () => {
      it('refuses a short, common, username-containing or unchanged password with 422 PASSWORD_POLICY on new_password', async () => {
        const u = await mkUser(t, { username: 'carol.kent' })
        const token = await sessionOf(t, u.username, u.password)
        const change = (current: string, next: string) => t.req('POST', '/api/v1/auth/change-password', { token, body: { current_password: current, new_password: next } })
        const cases: [string, string, RegExp][] = [
          ['too short', 'Sh0rt-pass', /at least 12 characters/],
          ['common', 'password1234', /common/],
          ['common, other case', 'QWERTY123456', /common/],
          ['contains the username', 'My-carol.kent-Pass-99', /user name/],
          ['contains the username, other case', 'xx-CAROL.KENT-2024', /user name/],
          ['same as current', u.password, /differ/],
        ]
        for (const [name, pw, detail] of cases) {
          const r = await change(u.password, pw)
          expect(r.status, name).to.equal(422)
          expect(r.body, name).to.include({ code: 'PASSWORD_POLICY', field: 'new_password' })
          expect(r.body.detail, name).to.match(detail)
        }
        const tooLong = await change(u.password, 'x'.repeat(257))
        expect(tooLong.status).to.equal(422)
        expect(tooLong.body.field).to.equal('new_password')

        const wrong = await change('not-the-current-one', 'Perfectly-Fine-Passphrase-7')
        expect(wrong.status).to.equal(422)
        expect(wrong.body).to.include({ code: 'CURRENT_PASSWORD_WRONG', field: 'current_password' })

        // Nothing above changed the password.
        expect((await login(t, u.username, u.password)).status).to.equal(200)
        const ok = await change(u.password, 'Perfectly-Fine-Passphrase-7')
        expect(ok.status).to.equal(200)
      })

      it('voids every earlier session of the user, and only theirs', async () => {
        const u = await mkUser(t)
        const other = await mkUser(t)
        const early = await sessionOf(t, u.username, u.password)
        const otherSession = await sessionOf(t, other.username, other.password)
        await nextSecond(claimsOf(early).iat)
        const r = await t.req('POST', '/api/v1/auth/change-password', { token: early, body: { current_password: u.password, new_password: 'Brand-New-Secret-Words-3' } })
        expect(r.status).to.equal(200)
        const me = await t.req('GET', '/api/v1/auth/me', { token: early })
        expect(me.status).to.equal(401)
        expect(me.body.code).to.equal('TOKEN_INVALID')
        expect((await t.req('GET', '/api/v1/auth/me', { token: r.body.access_token })).status).to.equal(200)
        expect((await t.req('GET', '/api/v1/auth/me', { token: otherSession })).status).to.equal(200)
        expect((await login(t, u.username, u.password)).status).to.equal(401)
        expect((await login(t, u.username, 'Brand-New-Secret-Words-3')).status).to.equal(200)
      })
    })

    // Two nodes of one cluster on one database: PostgreSQL only (pending in the embedded run of `npm test`).
    ;(runsOn('postgres') ? describe : describe.skip)('sign-out', () => {
      let t: TestApp
      let second: TestApp
      before(async () => {
        t = await startTestApp({ engine: 'postgres' })
        second = await startTestApp({ databaseUrl: t.databaseUrl!, masterKey: t.masterKey })
      })
      after(async () => {
        await second?.stop()
        await t?.stop()
      })

      it('revokes the token on this node at once and on another node of the cluster within ~1.5 s', async () => {
        const u = await mkUser(t)
        const token = await sessionOf(t, u.username, u.password)
        const keep = await sessionOf(t, u.username, u.password)
        // Both nodes know the token (so the second node's cache is warm).
        expect((await t.req('GET', '/api/v1/auth/me', { token })).status).to.equal(200)
        expect((await second.req('GET', '/api/v1/auth/me', { token })).status).to.equal(200)

        expect((await t.req('POST', '/api/v1/auth/logout', { token })).status).to.equal(204)
        const t0 = Date.now()
        expect((await t.req('GET', '/api/v1/auth/me', { token })).status).to.equal(401)
        expect((await t.req('POST', '/api/v1/auth/logout', { token })).status).to.equal(401)
        let elapsed = -1
        while (Date.now() - t0 < 3000) {
          if ((await second.req('GET', '/api/v1/auth/me', { token })).status === 401) {
            elapsed = Date.now() - t0
            break
          }
          await sleep(25)
        }
        expect(elapsed, 'the second node still accepts the revoked token').to.be.within(0, 1500)
        // Only that token: another session of the same user still works on both nodes.
        expect((await t.req('GET', '/api/v1/auth/me', { token: keep })).status).to.equal(200)
        expect((await second.req('GET', '/api/v1/auth/me', { token: keep })).status).to.equal(200)
        expect(await t.app.db.knex('revoked_tokens').where({ jti: claimsOf(token).jti }).first()).to.be.an('object')
      })
    })

    describe('login', () => {
      it('answers a wrong password, an unknown user, a disabled and a directory account with the same 401 body', async () => {
        const u = await mkUser(t)
        const disabled = await mkUser(t, { enabled: false })
        const directory = await mkUser(t, { source: 'directory' })
        const answers = [
          await login(t, u.username, 'wrong-password-entirely'),
          await login(t, `nobody-${randomUUID().slice(0, 8)}`, u.password),
          await login(t, disabled.username, disabled.password),
          await login(t, directory.username, directory.password),
        ]
        for (const a of answers) {
          expect(a.status).to.equal(401)
          expect(a.body).to.deep.equal(answers[0].body)
        }
        expect(answers[0].body).to.deep.equal({ detail: 'Wrong user name or password.', code: 'INVALID_CREDENTIALS', field: null })
        // The username is matched case-insensitively.
        expect((await login(t, u.username.toUpperCase(), u.password)).status).to.equal(200)
      })

      it('limits login to 10 attempts a minute per IP: then 429 with Retry-After and { detail, retry_after }, even with the right password', async () => {
        const u = await mkUser(t)
        // Fixed one-minute windows: do not start within 15 s of a window's end.
        if (Date.now() % 60_000 > 45_000) await sleep(60_000 - (Date.now() % 60_000) + 50)
        for (let i = 0; i < 10; i++) expect((await login(t, u.username, `wrong-${i}-password`)).status, `attempt ${i + 1}`).to.equal(401)
        const r = await login(t, u.username, u.password)
        expect(r.status).to.equal(429)
        const retry = Number(r.headers.get('retry-after'))
        expect(retry).to.be.within(1, 60)
        expect(Object.keys(r.body).sort()).to.deep.equal(['detail', 'retry_after'])
        expect(r.body.retry_after).to.equal(retry)
        expect(r.body.detail).to.be.a('string').and.not.be.empty
        // Other routes are not limited.
        expect((await t.admin('GET', '/api/v1/auth/me')).status).to.equal(200)
      })
    })

    describe('password reset by email (a real SMTP server)', () => {
      let smtp: SMTPServer
      const mails: { to: string[]; raw: string }[] = []
      const auths: { username?: string | null; password?: string | null }[] = []
      /** A slow SMTP server, for the timing test. */
      let smtpDelayMs = 0

      before(async () => {
        smtp = new SMTPServer({
          authOptional: true,
          allowInsecureAuth: true,
          disabledCommands: ['STARTTLS'],
          logger: false,
          onAuth(auth, _session, cb) {
            auths.push({ username: auth.username, password: auth.password })
            cb(null, { user: auth.username ?? undefined })
          },
          onData(stream, session, cb) {
            let raw = ''
            stream.setEncoding('utf8')
            stream.on('data', (d: string) => (raw += d))
            stream.on('end', () => {
              setTimeout(() => {
                mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw })
                cb()
              }, smtpDelayMs)
            })
          },
        })
        await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()))
        const port = (smtp.server.address() as AddressInfo).port
        for (const [key, value] of [['mail.smtp_host', '127.0.0.1'], ['mail.smtp_port', port], ['mail.smtp_tls', 'none']] as const) {
          const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
          expect(r.status, key).to.equal(200)
        }
      })
      after(async () => {
        await new Promise<void>((r) => smtp?.close(() => r()))
      })

      const requestReset = (who: string) => t.req('POST', '/api/v1/auth/password-reset', { body: { username_or_email: who } })
      const confirm = (token: string, pw: string) => t.req('POST', '/api/v1/auth/password-reset/confirm', { body: { token, new_password: pw } })
      async function mailTo(address: string, since: number): Promise<{ raw: string; token: string }> {
        for (let i = 0; i < 100; i++) {
          const m = mails.slice(since).find((x) => x.to.includes(address))
          if (m) {
            const text = mailText(m.raw)
            const token = /Token: ([A-Za-z0-9_-]{43})\s/.exec(text)?.[1]
            if (!token) throw new Error(`no token in the mail:\n${m.raw}`)
            return { raw: text, token }
          }
          await sleep(50)
        }
        throw new Error(`no mail to ${address}`)
      }

      it('mails a one-time link; a weak password is refused; a good one replaces the old; the token works once', async () => {
        const email = `dora-${randomUUID().slice(0, 6)}@example.test`
        const u = await mkUser(t, { email })
        const before = await sessionOf(t, u.username, u.password)
        const n = mails.length
        const r = await requestReset(u.username)
        expect(r.status).to.equal(202)
        const mail = await mailTo(email, n)
        expect(mail.raw).to.match(/Subject: Portcullis password reset/)
        expect(mail.raw).to.contain(`Token: ${mail.token}`)
        // Only the SHA-256 of the token is stored.
        const rows = await t.app.db.knex('password_resets').where({ user_id: u.id })
        expect(rows.map((x) => x.token_hash)).to.deep.equal([sha256(mail.token)])
        expect(JSON.stringify(rows)).not.to.contain(mail.token)
        expect(new Date(rows[0].expires_at).getTime() - Date.now()).to.be.within(29 * 60_000, 30 * 60_000 + 1000)

        const weak = await confirm(mail.token, 'password1234')
        expect(weak.status).to.equal(422)
        expect(weak.body).to.include({ code: 'PASSWORD_POLICY', field: 'new_password' })

        await nextSecond(claimsOf(before).iat)
        const newPw = 'Reset-Worked-Nicely-81'
        expect((await confirm(mail.token, newPw)).status).to.equal(204)
        expect((await login(t, u.username, u.password)).status).to.equal(401)
        expect((await login(t, u.username, newPw)).status).to.equal(200)
        // Sessions from before the reset are void.
        expect((await t.req('GET', '/api/v1/auth/me', { token: before })).status).to.equal(401)

        const again = await confirm(mail.token, 'Another-Good-One-Here-5')
        expect(again.status).to.equal(422)
        expect(again.body).to.include({ code: 'RESET_TOKEN_INVALID', field: 'token' })
        expect((await login(t, u.username, newPw)).status).to.equal(200)
      })

      it('answers an unknown user, a user without email and a directory account with the same 202 body, and sends nothing', async () => {
        const email = `erin-${randomUUID().slice(0, 6)}@example.test`
        const known = await mkUser(t, { email })
        const noMail = await mkUser(t)
        const dir = await mkUser(t, { source: 'directory', email: `dir-${randomUUID().slice(0, 6)}@example.test` })
        const n = mails.length
        const byEmail = await requestReset(email.toUpperCase())
        expect(byEmail.status).to.equal(202)
        await mailTo(email, n)
        void known
        const m = mails.length
        for (const who of [`ghost-${randomUUID().slice(0, 8)}`, 'ghost@example.test', noMail.username, dir.username]) {
          const r = await requestReset(who)
          expect(r.status, who).to.equal(202)
          expect(r.body, who).to.deep.equal(byEmail.body)
        }
        await sleep(300)
        expect(mails.length, 'mails sent for accounts that cannot reset').to.equal(m)
      })

      it('answers as fast whether or not a mail goes out (a slow SMTP server tells no one which accounts exist)', async () => {
        const email = `hal-${randomUUID().slice(0, 6)}@example.test`
        const u = await mkUser(t, { email })
        smtpDelayMs = 1500
        try {
          const n = mails.length
          const t0 = Date.now()
          const known = await requestReset(u.username)
          const knownMs = Date.now() - t0
          const t1 = Date.now()
          const unknown = await requestReset(`ghost-${randomUUID().slice(0, 8)}`)
          const unknownMs = Date.now() - t1
          expect(known.status).to.equal(202)
          expect(known.body).to.deep.equal(unknown.body)
          expect(knownMs, `known ${knownMs} ms, unknown ${unknownMs} ms`).to.be.below(750)
          await mailTo(email, n)
        } finally {
          smtpDelayMs = 0
        }
      })

      it('never builds the link from the Host header a caller sends (reset poisoning)', async () => {
        const email = `ivy-${randomUUID().slice(0, 6)}@example.test`
        const u = await mkUser(t, { email })
        const post = (headers: Record<string, string>) =>
          new Promise<number>((resolve, reject) => {
            const body = JSON.stringify({ username_or_email: u.username })
            const r = http.request(`${t.url}/api/v1/auth/password-reset`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
              res.resume()
              res.on('end', () => resolve(res.statusCode!))
            })
            r.on('error', reject)
            r.end(body)
          })
        const n = mails.length
        expect(await post({ host: 'evil.example:8443', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' })).to.equal(202)
        const poisoned = await mailTo(email, n)
        expect(poisoned.raw).not.to.contain('evil.example')
        // The token alone still lets the user reset.
        expect((await confirm(poisoned.token, 'Still-Works-Without-Link-1')).status).to.equal(204)

        // With identity.public_url set, the link uses it, whatever the Host header says.
        expect((await t.admin('PUT', '/api/v1/settings/identity.public_url', { body: { value: 'https://nac.example.test/' } })).status).to.equal(200)
        try {
          const m = mails.length
          expect(await post({ host: 'evil.example' })).to.equal(202)
          const mail = await mailTo(email, m)
          expect(mail.raw).to.contain(`https://nac.example.test/reset-password#token=${mail.token}`)
          expect(mail.raw).not.to.contain('evil.example')
        } finally {
          await t.admin('PUT', '/api/v1/settings/identity.public_url', { body: { value: null } })
        }
      })

      it('voids every other outstanding link of the user once one is used', async () => {
        const email = `jo-${randomUUID().slice(0, 6)}@example.test`
        const u = await mkUser(t, { email })
        const n = mails.length
        expect((await requestReset(u.username)).status).to.equal(202)
        const first = await mailTo(email, n)
        const m = mails.length
        expect((await requestReset(u.username)).status).to.equal(202)
        const second = await mailTo(email, m)
        expect(second.token).not.to.equal(first.token)
        expect((await confirm(second.token, 'Second-Link-Was-Used-2')).status).to.equal(204)
        const stale = await confirm(first.token, 'First-Link-Comes-Later-3')
        expect(stale.status).to.equal(422)
        expect(stale.body).to.include({ code: 'RESET_TOKEN_INVALID' })
        expect((await login(t, u.username, 'Second-Link-Was-Used-2')).status).to.equal(200)
      })

      // Each of these changes who may use the account or where its mail goes: a link mailed before it is void.
      const voiding: [string, (u: { id: string; username: string; password: string }) => Promise<void>][] = [
        ['the e-mail address changes', async (u) => void expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { email: `moved-${randomUUID().slice(0, 6)}@example.test` } })).status).to.equal(200)],
        ['the account is disabled and enabled again', async (u) => {
          for (const enabled of [false, true]) expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { enabled } })).status).to.equal(200)
        }],
        ['an administrator sets a new password', async (u) => void expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { password: 'Admin-Chose-This-One-7' } })).status).to.equal(200)],
        ["the user's sessions are revoked", async (u) => void expect((await t.admin('DELETE', `/api/v1/users/${u.id}/sessions`)).status).to.equal(204)],
        ['the user changes their own password', async (u) => {
          const token = await sessionOf(t, u.username, u.password)
          const r = await t.req('POST', '/api/v1/auth/change-password', { token, body: { current_password: u.password, new_password: 'Changed-By-Myself-Here-8' } })
          expect(r.status, JSON.stringify(r.body)).to.equal(200)
        }],
        ['the account expires and is renewed', async (u) => {
          for (const expires_at of [new Date(Date.now() - 60_000).toISOString(), null]) expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { expires_at } })).status).to.equal(200)
        }],
        ['the account has expired', async (u) => void (await t.app.db.knex('users').where({ id: u.id }).update({ expires_at: new Date(Date.now() - 1000) }))],
        ['the user is deleted', async (u) => void expect((await t.admin('DELETE', `/api/v1/users/${u.id}`)).status).to.equal(204)],
      ]
      for (const [what, act] of voiding) {
        it(`voids a pending link when ${what}`, async () => {
          const email = `lee-${randomUUID().slice(0, 6)}@example.test`
          const u = await mkUser(t, { email })
          const n = mails.length
          expect((await requestReset(u.username)).status).to.equal(202)
          const { token } = await mailTo(email, n)
          await act(u)
          const r = await confirm(token, 'Link-From-Before-Change-9')
          expect(r.status, JSON.stringify(r.body)).to.equal(422)
          expect(r.body).to.include({ code: 'RESET_TOKEN_INVALID', field: 'token' })
          const row = await t.app.db.knex('users').where({ id: u.id }).first('password_hash')
          if (row) expect(await verifyPassword(row.password_hash, 'Link-From-Before-Change-9'), 'the password was set').to.equal(false)
        })
      }

      it('refuses an expired token', async () => {
        const email = `finn-${randomUUID().slice(0, 6)}@example.test`
        const u = await mkUser(t, { email })
        const n = mails.length
        expect((await requestReset(u.username)).status).to.equal(202)
        const { token } = await mailTo(email, n)
        await t.app.db.knex('password_resets').where({ token_hash: sha256(token) }).update({ expires_at: new Date(Date.now() - 1000) })
        const r = await confirm(token, 'Too-Late-For-This-One-4')
        expect(r.status).to.equal(422)
        expect(r.body).to.include({ code: 'RESET_TOKEN_INVALID', field: 'token' })
        expect((await login(t, u.username, u.password)).status).to.equal(200)
        const unknown = await confirm('x'.repeat(43), 'Too-Late-For-This-One-4')
        expect(unknown.body).to.include({ code: 'RESET_TOKEN_INVALID' })
      })

      it('keeps mail.smtp_password write-only and sealed at rest, and hands it to the SMTP server', async () => {
        const secret = `smtp-${randomUUID()}`
        const put = await t.admin('PUT', '/api/v1/settings/mail.smtp_password', { body: { value: secret } })
        expect(put.status).to.equal(200)
        expect(put.body.value).to.equal('***')
        const get = await t.admin('GET', '/api/v1/settings/mail.smtp_password')
        expect(get.body.value).to.equal('***')
        // The response says the setting is write-only, so a client (the console) offers no value to edit.
        expect(get.body.secret).to.equal(true)
        const list = await t.admin('GET', '/api/v1/settings')
        expect(list.text).not.to.contain(secret)
        expect(list.body.find((s: { key: string }) => s.key === 'mail.smtp_port').secret).to.equal(false)
        const row = (await t.app.db.knex('settings').where({ key: 'mail.smtp_password' }).first('value'))!
        expect(JSON.stringify(row.value)).not.to.contain(secret)
        expect(row.value).to.have.property('sealed').that.is.a('string')
        const audit = await t.app.db.knex('audit_log').where({ resource_id: 'mail.smtp_password' }).select()
        expect(JSON.stringify(audit)).not.to.contain(secret)

        // The sealed value opens for the mailer: the SMTP server receives it.
        expect((await t.admin('PUT', '/api/v1/settings/mail.smtp_user', { body: { value: 'mailer' } })).status).to.equal(200)
        try {
          const email = `gus-${randomUUID().slice(0, 6)}@example.test`
          const u = await mkUser(t, { email })
          const n = mails.length
          expect((await requestReset(u.username)).status).to.equal(202)
          await mailTo(email, n)
          expect(auths.at(-1)).to.deep.equal({ username: 'mailer', password: secret })
        } finally {
          await t.admin('PUT', '/api/v1/settings/mail.smtp_user', { body: { value: null } })
        }
      })
    })

    describe('GET /api/v1/auth/me', () => {
      it('shows the effective permissions (direct and through groups), the groups and docs_enabled: false', async () => {
        const group = `ops-${randomUUID().slice(0, 6)}`
        const u = await mkUser(t, { permissions: ['settings.read', 'audit.read'], group: { name: group, permissions: ['rbac.read', 'audit.read'] } })
        const token = await sessionOf(t, u.username, u.password)
        const me = await t.req('GET', '/api/v1/auth/me', { token })
        expect(me.status).to.equal(200)
        expect(me.body).to.deep.include({
          id: u.id,
          username: u.username,
          is_admin: false,
          permissions: ['audit.read', 'rbac.read', 'settings.read'],
          groups: [group],
          must_change_password: false,
          mfa_enabled: false,
          docs_enabled: false,
        })
        // And the gate honours them.
        expect((await t.req('GET', '/api/v1/rbac/schema', { token })).status).to.equal(200)
        expect((await t.req('GET', '/api/v1/dashboard/system-info', { token })).status).to.equal(403)
      })

      it('says docs_enabled: true when DOCS_ENABLED=true', async () => {
        const d = await startTestApp({ env: { DOCS_ENABLED: 'true' } })
        try {
          const me = await d.admin('GET', '/api/v1/auth/me')
          expect(me.status).to.equal(200)
          expect(me.body.docs_enabled).to.equal(true)
        } finally {
          await d.stop()
        }
      })
    })
  })
})
