/**
 * Authentication hardening, through the real API on both engines: rate limits
 * on every credential check (change-password per user and per address, the
 * daemons' MFA check per user, shared with /mfa/verify), a password reset that
 * answers in the same time whoever is named, and the audit trail of sign-ins,
 * refusals, lockouts, MFA failures and revocations with its filters.
 *
 * The app trusts X-Forwarded-For (TRUST_PROXY=true, as behind the bundled
 * front end), so each test speaks from addresses of its own and the per-IP
 * budgets of one test never spend another's.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { hashPassword } from '../../kernel/identity/passwords.js'
import { base32Decode, hotp, timeStep } from '../../plugins/mfa/services/totp.js'
import { startSmtp, type TestSmtp } from '../kit/smtp.js'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'
import type { TestResponse } from '../kit/http.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const INTERNAL_KEY = 'i'.repeat(24) + randomUUID()
/** Longer than the column: the trail keeps 256 characters. */
const USER_AGENT = 'auth-hardening-test/1.0 ' + 'x'.repeat(400)

const codeAt = (secret: string, offset = 0) => hotp(base32Decode(secret), timeStep(Date.now()) + offset)
function wrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((d) => codeAt(secret, d)))
  let n = 100000
  while (near.has(String(n))) n++
  return String(n)
}

/** Fixed windows: start a counting test well inside one, so the budget cannot reset halfway. */
async function insideWindow(windowSeconds: number, needMs: number) {
  const w = windowSeconds * 1000
  if (Date.now() % w > w - needMs) await sleep(w - (Date.now() % w) + 50)
}

function expectRateLimited(r: TestResponse, windowSeconds: number) {
  expect(r.status, JSON.stringify(r.body)).to.equal(429)
  expect(Object.keys(r.body).sort()).to.deep.equal(['detail', 'retry_after'])
  expect(r.body.retry_after).to.be.within(1, windowSeconds)
  expect(r.headers.get('retry-after')).to.equal(String(r.body.retry_after))
  expect(r.body.detail).to.be.a('string').and.not.be.empty
}

/** The value a fraction `q` of the samples stay at or under (nearest rank). */
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]
}
const median = (xs: number[]) => quantile(xs, 0.5)

for (const engine of testEngines()) {
  describe(`authentication hardening (${engine})`, function () {
    this.timeout(60_000)
    let t: TestApp
    let smtp: TestSmtp
    let ipSeq = 0
    /** A client address no other request of this app has used. */
    const newIp = () => `10.${Math.floor(++ipSeq / 62500) % 250}.${Math.floor(ipSeq / 250) % 250}.${(ipSeq % 250) + 1}`
    const from = (ip: string) => ({ 'x-forwarded-for': ip, 'user-agent': USER_AGENT })

    before(async () => {
      smtp = await startSmtp()
      t = await startTestApp({ engine, plugins: ['mfa'], env: { TRUST_PROXY: 'true' } })
      for (const [key, value] of Object.entries({ 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none' })) {
        const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
        expect(r.status, key).to.equal(200)
      }
    })
    after(async () => {
      await t?.stop()
      await smtp?.stop()
    })

    async function mkUser(o: { email?: string | null; enabled?: boolean; mustChange?: boolean } = {}) {
      const username = `ah-${randomUUID().slice(0, 8)}`
      const password = `Sturdy-${randomUUID()}`
      const [row] = await t.app.db.knex('users')
        .insert({ username, email: o.email ?? null, enabled: o.enabled ?? true, source: 'local', password_hash: await hashPassword(password), password_changed_at: new Date(), must_change_password: o.mustChange ?? false })
        .returning('id')
      return { id: row.id, username, password }
    }
    const login = (username: string, password: string, ip = newIp()) => t.req('POST', '/api/v1/auth/login', { body: { username, password }, headers: from(ip) })
    const changePassword = (token: string, current: string, next: string, ip = newIp()) =>
      t.req('POST', '/api/v1/auth/change-password', { token, body: { current_password: current, new_password: next }, headers: from(ip) })
    async function session(u: { username: string; password: string }): Promise<string> {
      const r = await login(u.username, u.password)
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return (r.body.access_token ?? r.body.password_change_token) as string
    }
    /** A user with a confirmed authenticator, enrolled with their own session; the confirming code spent the current step. */
    async function enrolled() {
      const u = await mkUser()
      const token = await session(u)
      const started = await t.req('POST', '/api/v1/mfa/enrollment', { token })
      expect(started.status, JSON.stringify(started.body)).to.equal(200)
      const secret = started.body.secret as string
      const confirmed = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token, body: { code: codeAt(secret) } })
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200)
      return { ...u, secret }
    }
    async function audit(filters: Record<string, string>) {
      const r = await t.admin('GET', `/api/v1/audit?${new URLSearchParams({ per_page: '200', ...filters })}`)
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return r.body as { items: Record<string, unknown>[]; total_by_filter: number }
    }

    describe('rate limits on credential checks', () => {
      it('refuses change-password for a user after 10 wrong current passwords, from any address, even with the right one', async () => {
        const u = await mkUser()
        const token = await session(u)
        await insideWindow(900, 30_000)
        for (let i = 0; i < 10; i++) {
          const r = await changePassword(token, `wrong-${i}-${randomUUID()}`, 'Brand-New-Secret-Words-3')
          expect(r.status, `attempt ${i + 1}`).to.equal(422)
          expect(r.body.code).to.equal('CURRENT_PASSWORD_WRONG')
        }
        const right = await changePassword(token, u.password, 'Brand-New-Secret-Words-3')
        expectRateLimited(right, 900)
        for (let i = 0; i < 3; i++) expect((await changePassword(token, u.password, 'Brand-New-Secret-Words-3')).status).to.equal(429)
        // The password did not change; the account still signs in.
        expect((await login(u.username, u.password)).status).to.equal(200)

        const failures = await audit({ action: 'auth.password_change', outcome: 'failure', resource_id: u.id })
        expect(failures.items.filter((e) => e.reason === 'bad_password')).to.have.length(10)
        // One lockout row for the window, however many refusals follow: refusals cannot fill the trail.
        expect(failures.items.filter((e) => e.reason === 'locked')).to.have.length(1)
        expect(JSON.stringify(failures.items)).not.to.contain('wrong-')
      })

      it('refuses change-password from one address after 10 attempts across users (a password_change token too)', async () => {
        const a = await mkUser({ mustChange: true })
        const b = await mkUser({ mustChange: true })
        const [ta, tb] = [await session(a), await session(b)]
        const ip = newIp()
        await insideWindow(60, 10_000)
        for (let i = 0; i < 6; i++) expect((await changePassword(ta, `wrong-${i}`, 'Brand-New-Secret-Words-3', ip)).status).to.equal(422)
        for (let i = 0; i < 4; i++) expect((await changePassword(tb, `wrong-${i}`, 'Brand-New-Secret-Words-3', ip)).status).to.equal(422)
        expectRateLimited(await changePassword(tb, b.password, 'Brand-New-Secret-Words-3', ip), 60)
        const locked = await audit({ action: 'auth.password_change', reason: 'locked', ip })
        expect(locked.total_by_filter).to.equal(1)
        expect(locked.items[0]).to.include({ actor_id: b.id, outcome: 'failure' })
        // The user's own budget is not spent: from another address the change goes through.
        expect((await changePassword(tb, b.password, 'Brand-New-Secret-Words-3')).status).to.equal(200)
      })

      it('refuses the daemons\' code check for a user after 10 codes in 5 minutes, and /mfa/verify shares that budget', async () => {
        expect((await t.admin('PUT', '/api/v1/settings/mfa.internal_key', { body: { value: INTERNAL_KEY } })).status).to.equal(200)
        try {
          const e = await enrolled()
          const f = await enrolled()
          const internal = (username: string, code: string) => t.req('POST', '/api/v1/mfa/internal/verify', { body: { username, code }, headers: { 'x-internal-key': INTERNAL_KEY, ...from(newIp()) } })
          await insideWindow(300, 20_000)
          for (let i = 0; i < 10; i++) {
            const r = await internal(e.username, wrongCode(e.secret))
            expect(r.status, `code ${i + 1}`).to.equal(200)
            expect(r.body).to.deep.equal({ valid: false })
          }
          expectRateLimited(await internal(e.username, codeAt(e.secret, 1)), 300)
          // Another user's budget is untouched.
          expect((await internal(f.username, wrongCode(f.secret))).body).to.deep.equal({ valid: false })
          expect((await internal(f.username, codeAt(f.secret, 1))).body).to.deep.equal({ valid: true })
          // The same user signing in on the web has no codes left either.
          const mfa = await login(e.username, e.password)
          expect(mfa.body.status).to.equal('mfa_required')
          const web = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: mfa.body.mfa_token, code: codeAt(e.secret, 1) }, headers: from(newIp()) })
          expectRateLimited(web, 300)

          const rows = await audit({ action: 'auth.mfa_internal_verify', resource_id: e.id })
          expect(rows.items.filter((x) => x.reason === 'mfa_bad_code')).to.have.length(10)
          expect(rows.items.filter((x) => x.reason === 'locked')).to.have.length(1)
          expect(JSON.stringify(rows.items)).not.to.contain(codeAt(e.secret, 1))
        } finally {
          await t.admin('PUT', '/api/v1/settings/mfa.internal_key', { body: { value: null } })
        }
      })
    })

    describe('password reset', () => {
      it('answers in the same time for an account with e-mail, one without, and an unknown name (lower quartiles of 300 within 10 %); the mail still arrives', async function () {
        if (engine === 'embedded') {
          // The route's code is the same on both engines. On PGlite the database, the test's SMTP server
          // and the client doing the timing share one event loop, so the background work of earlier
          // requests (deliberately started at random moments) blocks the very requests being timed, and
          // the medians of a two-mode distribution wander by 30-50 % whatever the route does. Timed on
          // PostgreSQL, where the database is another process, as in production.
          console.log('      (embedded engine: the timing half runs on PostgreSQL only; see the comment)')
          return this.skip()
        }
        this.timeout(300_000)
        const email = `reset-${randomUUID().slice(0, 6)}@example.test`
        const withMail = await mkUser({ email })
        const without = await mkUser()
        const unknown = `ah-${randomUUID().slice(0, 8)}`
        const names = { withMail: withMail.username, without: without.username, unknown }
        const kinds = Object.keys(names) as (keyof typeof names)[]
        const ask = async (who: string) => {
          // A fresh address each time: the per-IP limit (5 in 15 minutes) counts, and stays on, as in production.
          const t0 = process.hrtime.bigint()
          const r = await t.req('POST', '/api/v1/auth/password-reset', { body: { username_or_email: who }, headers: from(newIp()) })
          const ms = Number(process.hrtime.bigint() - t0) / 1e6
          expect(r.status).to.equal(202)
          return ms
        }
        const rounds = 300
        const warmup = 20
        const deciles = (v: number[]) => [...v].sort((a, b) => a - b).filter((_, i) => i % 30 === 0).map((x) => x.toFixed(2)).join(' ')
        /**
         * One trial: 300 answers of each kind, interleaved; the ratio of the slowest lower quartile to the fastest.
         * The lower quartile is what the route itself costs, the least disturbed by other work on the machine (load
         * only adds time): under CI's two parallel runs the medians sit where the distribution turns two-mode and
         * wandered by 10 % with identical deciles up to the 4th. A lookup or a mail on the answer's path shifts the
         * whole distribution, its lower quartile too.
         */
        async function trial(): Promise<{ spread: number; report: string }> {
          const times: Record<string, number[]> = { withMail: [], without: [], unknown: [] }
          for (let round = 0; round < warmup + rounds; round++) {
            // A random order each round: background work after one answer slows whichever comes next alike.
            const order = [...kinds].sort(() => Math.random() - 0.5)
            for (const k of order) {
              const ms = await ask(names[k])
              if (round >= warmup) times[k].push(ms)
            }
          }
          const quartiles = Object.fromEntries(kinds.map((k) => [k, quantile(times[k], 0.25)])) as Record<string, number>
          const medians = Object.fromEntries(kinds.map((k) => [k, median(times[k])])) as Record<string, number>
          const spread = Math.max(...Object.values(quartiles)) / Math.min(...Object.values(quartiles))
          return { spread, report: `lower quartiles ${JSON.stringify(quartiles)} ms, medians ${JSON.stringify(medians)} ms; ${kinds.map((k) => `${k}: ${deciles(times[k])}`).join('; ')}` }
        }
        const before = smtp.messages.length
        // On a machine busy with other work a quartile of ~2 ms can still wander by more than 10 % now and then, whatever
        // the code does: up to three trials. A real difference (the lookup and the mail on the answer's path
        // cost 70 % more) fails all three.
        let result = await trial()
        let trials = 1
        while (result.spread >= 1.1 && trials < 3) {
          result = await trial()
          trials++
        }
        expect(result.spread, result.report).to.be.below(1.1)
        const sent = trials * (warmup + rounds)

        // Every request for the account with e-mail sent its mail; the others sent none.
        const deadline = Date.now() + 120_000
        const mailsTo = (a: string) => smtp.messages.slice(before).filter((m) => m.to.includes(a.toLowerCase()))
        while (mailsTo(email).length < sent && Date.now() < deadline) await sleep(100)
        expect(mailsTo(email)).to.have.length(sent)
        expect(smtp.messages.length - before).to.equal(sent)
        expect(mailsTo(email)[0].text).to.match(/Token: [A-Za-z0-9_-]{43}\s/)
      })
    })

    describe('audit trail of authentication', () => {
      it('writes a sign-in and a sign-out with who, the address and the user agent', async () => {
        const u = await mkUser()
        const ip = newIp()
        const r = await login(u.username, u.password, ip)
        expect(r.status).to.equal(200)
        const ins = await audit({ action: 'auth.login', outcome: 'success', ip })
        expect(ins.total_by_filter).to.equal(1)
        expect(ins.items[0]).to.include({ actor_id: u.id, actor_name: u.username, resource_type: 'user', resource_id: u.id, reason: null, ip })
        expect(ins.items[0].after).to.deep.equal({ next: 'session' })
        expect(ins.items[0].user_agent).to.equal(USER_AGENT.slice(0, 256))

        const out = await t.req('POST', '/api/v1/auth/logout', { token: r.body.access_token, headers: from(ip) })
        expect(out.status).to.equal(204)
        const outs = await audit({ action: 'auth.logout', ip })
        expect(outs.total_by_filter).to.equal(1)
        expect(outs.items[0]).to.include({ actor_id: u.id, actor_name: u.username, outcome: 'success', resource_id: u.id })
        expect(JSON.stringify([...ins.items, ...outs.items])).not.to.contain(u.password)
      })

      it('writes a wrong password, an unknown user and a disabled account with their reasons, and never the password', async () => {
        const u = await mkUser()
        const disabled = await mkUser({ enabled: false })
        const ghost = `ghost-${randomUUID().slice(0, 8)}`
        const ip = newIp()
        const secret = `Guess-${randomUUID()}`
        for (const [name, pw] of [[u.username, secret], [ghost, secret], [disabled.username, disabled.password]]) expect((await login(name, pw, ip)).status).to.equal(401)

        const failures = await audit({ action: 'auth.login', outcome: 'failure', ip })
        expect(failures.total_by_filter).to.equal(3)
        const byReason = (reason: string) => failures.items.find((e) => e.reason === reason)!
        expect(byReason('bad_password')).to.include({ actor_id: null, actor_name: u.username, resource_id: u.id, ip })
        expect(byReason('unknown_user')).to.include({ actor_id: null, actor_name: ghost, resource_id: null, ip })
        expect(byReason('disabled')).to.include({ actor_id: null, actor_name: disabled.username, resource_id: disabled.id, ip })
        expect((await audit({ reason: 'unknown_user', ip })).total_by_filter).to.equal(1)
        expect((await audit({ actor_name: ghost.toUpperCase() })).total_by_filter).to.equal(1)
        const everything = JSON.stringify(await t.app.db.knex('audit_log').select())
        expect(everything).not.to.contain(secret)
        expect(everything).not.to.contain(disabled.password)
      })

      it('writes one lockout row per window when the login limit refuses an address', async () => {
        const u = await mkUser()
        const ip = newIp()
        await insideWindow(60, 10_000)
        for (let i = 0; i < 10; i++) expect((await login(u.username, `wrong-${i}`, ip)).status).to.equal(401)
        for (let i = 0; i < 5; i++) expectRateLimited(await login(u.username, u.password, ip), 60)
        const locked = await audit({ action: 'auth.login', reason: 'locked', ip })
        expect(locked.total_by_filter).to.equal(1)
        expect(locked.items[0]).to.include({ outcome: 'failure', ip })
        expect((await audit({ action: 'auth.login', ip })).total_by_filter).to.equal(11)
      })

      it('writes MFA failures, the burnt token and its revocation, and never the code', async () => {
        const u = await enrolled()
        const ip = newIp()
        const mfa = await login(u.username, u.password, ip)
        expect(mfa.body.status).to.equal('mfa_required')
        const near = new Set([-2, -1, 0, 1, 2].map((d) => codeAt(u.secret, d)))
        const codes = Array.from({ length: 20 }, (_, i) => String(200000 + i)).filter((c) => !near.has(c)).slice(0, 5)
        for (const code of codes) {
          expect((await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: mfa.body.mfa_token, code }, headers: from(ip) })).status).to.equal(401)
        }
        const rows = await audit({ action: 'auth.', ip, outcome: 'failure' })
        const bad = rows.items.filter((e) => e.action === 'auth.mfa_verify' && e.reason === 'mfa_bad_code')
        expect(bad).to.have.length(4)
        expect(bad[0]).to.include({ actor_id: null, actor_name: u.username, resource_id: u.id, ip })
        // The fifth wrong code burns the token: a failure with its reason, and the revocation.
        expect(rows.items.filter((e) => e.reason === 'mfa_budget_spent').map((e) => e.action)).to.deep.equal(['auth.mfa_verify'])
        const revoked = await audit({ action: 'auth.token_revoked', ip })
        expect(revoked.items.map((e) => e.reason)).to.deep.equal(['mfa_budget_spent'])
        const all = JSON.stringify(rows.items)
        for (const c of codes) expect(all).not.to.contain(c)
      })

      it('writes the sessions a password change voids and a refused reset token, and filters by time range; older kinds of entries stay valid', async () => {
        const startedAt = new Date(Date.now() - 1000).toISOString()
        const u = await mkUser()
        const token = await session(u)
        const ip = newIp()
        expect((await changePassword(token, u.password, 'Brand-New-Secret-Words-3', ip)).status).to.equal(200)
        const revoked = await audit({ action: 'auth.sessions_revoked', resource_id: u.id })
        expect(revoked.items.map((e) => e.reason)).to.deep.equal(['password_change'])
        // The change itself is audited as before, now with the address it came from.
        const change = await audit({ action: 'user.password_change', resource_id: u.id })
        expect(change.items[0]).to.include({ outcome: 'success', ip, actor_id: u.id })

        const until = new Date(Date.now() + 1000).toISOString()
        expect((await audit({ resource_id: u.id, at_from: startedAt, at_to: until })).total_by_filter).to.be.at.least(3)
        expect((await audit({ resource_id: u.id, at_to: startedAt })).total_by_filter).to.equal(0)
        expect((await audit({ resource_id: u.id, at_from: until })).total_by_filter).to.equal(0)
        // A settings change, the kind of row written before these columns: outcome success, valid in the schema.
        const settings = await audit({ resource_type: 'setting', outcome: 'success' })
        expect(settings.total_by_filter).to.be.at.least(3)
        const bad = await t.admin('GET', '/api/v1/audit?outcome=maybe')
        expect(bad.status).to.equal(422)

        // A refused reset token: its transaction rolls back, its audit row stays (and holds no token).
        const forged = 'f'.repeat(43)
        const refused = await t.req('POST', '/api/v1/auth/password-reset/confirm', { body: { token: forged, new_password: 'Never-Gets-Set-Here-7' }, headers: from(ip) })
        expect(refused.body.code).to.equal('RESET_TOKEN_INVALID')
        const resets = await audit({ action: 'auth.password_reset_confirm', ip })
        expect(resets.items.map((e) => [e.outcome, e.reason])).to.deep.equal([['failure', 'reset_token_invalid']])
        expect(JSON.stringify(resets.items)).not.to.contain(forged)
      })
    })
  })
}
