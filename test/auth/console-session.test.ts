/**
 * The console's session cookie (kernel/security/session-cookie.ts, docs/security.md "The
 * console's session"), through the real API on the engine of the run:
 * - a sign-in that sends X-Portcullis-Console: 1 gets the session token also as an HttpOnly,
 *   SameSite=Strict cookie on /api/ (Secure with an https identity.public_url); the JSON answer is
 *   unchanged, and without the header no cookie is set; every route that gives a session sets it
 *   (login, the second factor, a password change), none sets a password_change token;
 * - the cookie counts only with the header and without an Authorization header;
 * - everything that ends a session today ends the cookie's: sign-out (which also clears it), a
 *   password change, an administrator's revocation, a disabled, expired or deleted account, the
 *   token's lifetime;
 * - no CORS preflight is ever granted, so a page of another origin cannot send the header.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { hashPassword } from '../../kernel/identity/passwords.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { codeAt, enroll } from '../kit/mfa.js'
import type { TestResponse } from '../kit/http.js'

const CONSOLE = { 'X-Portcullis-Console': '1' }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { iat: number; exp: number }
/** Sessions are void by whole seconds (a password change, a revocation): the next one must have begun. */
async function nextSecond(iat: number) {
  while (Math.floor(Date.now() / 1000) <= iat) await sleep(20)
}

/** The session cookie an answer sets: its value and attributes, or null when it sets none. */
function cookieOf(r: TestResponse): { value: string; attrs: string[] } | null {
  const set = r.headers.getSetCookie().find((c) => c.startsWith('portcullis_session='))
  if (!set) return null
  const [pair, ...attrs] = set.split(';').map((s) => s.trim())
  return { value: pair.slice('portcullis_session='.length), attrs }
}

describe('the console session cookie', function () {
  this.timeout(120_000)
  let t: TestApp

  before(async () => {
    t = await startTestApp({ plugins: ['mfa'] })
  })
  after(async () => {
    await t?.stop()
  })
  beforeEach(async () => {
    // Many sign-ins from one address: the login limit is tested elsewhere.
    await t.app.db.knex('rate_limit_hits').delete()
  })

  async function mkUser(o: { mustChange?: boolean } = {}) {
    const username = `cs-${randomUUID().slice(0, 8)}`
    const password = `Sturdy-${randomUUID()}`
    const [row] = await t.app.db
      .knex('users')
      .insert({ username, enabled: true, source: 'local', is_admin: false, password_hash: await hashPassword(password), password_changed_at: new Date(), must_change_password: o.mustChange ?? false })
      .returning('id')
    return { id: row.id as string, username, password }
  }
  const login = (u: { username: string; password: string }, headers: Record<string, string> = CONSOLE) => t.req('POST', '/api/v1/auth/login', { headers, body: { username: u.username, password: u.password } })
  /** A request as the console makes it: the cookie and the header (or what `headers` says instead). */
  const withCookie = (method: string, path: string, token: string, headers: Record<string, string> = CONSOLE) => t.req(method, path, { headers: { ...headers, cookie: `portcullis_session=${token}` } })
  async function consoleSession(u: { username: string; password: string }): Promise<string> {
    const r = await login(u)
    expect(r.status, r.text).to.equal(200)
    const c = cookieOf(r)
    expect(c, 'a session cookie').to.not.equal(null)
    return c!.value
  }

  it('sets the session token as an HttpOnly, SameSite=Strict cookie on /api/ for the sign-in that asks, the JSON answer unchanged', async () => {
    const u = await mkUser()
    const r = await login(u)
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.have.keys('access_token', 'token_type', 'expires_in')
    const c = cookieOf(r)!
    expect(c.value).to.equal(r.body.access_token)
    expect(c.attrs).to.have.members([`Max-Age=${r.body.expires_in}`, 'HttpOnly', 'SameSite=Strict', 'Path=/api/'])

    // An API client (no header) gets the body only.
    const api = await login(u, {})
    expect(api.status).to.equal(200)
    expect(api.headers.getSetCookie()).to.deep.equal([])
  })

  it('marks the cookie Secure when identity.public_url is https', async () => {
    const set = (value: string | null) => t.admin('PUT', '/api/v1/settings/identity.public_url', { body: { value } })
    expect((await set('https://nac.example.net')).status).to.equal(200)
    try {
      const u = await mkUser()
      // The setting is read through a cache of a second.
      let c = cookieOf(await login(u))!
      for (let i = 0; i < 20 && !c.attrs.includes('Secure'); i++) {
        await sleep(200)
        c = cookieOf(await login(u))!
      }
      expect(c.attrs).to.include('Secure')
    } finally {
      await set(null)
    }
  })

  it('takes the cookie only with X-Portcullis-Console: 1 and without an Authorization header', async () => {
    const u = await mkUser()
    const token = await consoleSession(u)
    const me = await withCookie('GET', '/api/v1/auth/me', token)
    expect(me.status, me.text).to.equal(200)
    expect(me.body.username).to.equal(u.username)
    // The cookie alone: what a forged form or a cross-site request would carry.
    for (const headers of [{}, { 'X-Portcullis-Console': '0' }, { 'X-Portcullis-Console': 'true' }] as Record<string, string>[]) {
      const r = await withCookie('GET', '/api/v1/auth/me', token, headers)
      expect(r.status, JSON.stringify(headers)).to.equal(401)
      expect(r.body.code).to.equal('TOKEN_INVALID')
    }
    // A write as well: no authority without the header.
    const out = await withCookie('POST', '/api/v1/auth/logout', token, {})
    expect(out.status).to.equal(401)
    // An Authorization header decides alone, the cookie beside it ignored.
    const wrong = await t.req('GET', '/api/v1/auth/me', { headers: { ...CONSOLE, cookie: `portcullis_session=${token}`, authorization: 'Bearer not-a-token' } })
    expect(wrong.status).to.equal(401)
    const bearer = await t.req('GET', '/api/v1/auth/me', { token })
    expect(bearer.status).to.equal(200)
    // Only a session: a password_change token in the cookie opens nothing, change-password included.
    const pc = await t.token({ purpose: 'password_change' })
    const r = await t.req('POST', '/api/v1/auth/change-password', { headers: { ...CONSOLE, cookie: `portcullis_session=${pc}` }, body: { current_password: 'x', new_password: 'y' } })
    expect(r.status).to.equal(401)
  })

  it('signs out: the token is revoked (cookie and bearer alike) and the answer clears the cookie', async () => {
    const u = await mkUser()
    const token = await consoleSession(u)
    const out = await withCookie('POST', '/api/v1/auth/logout', token)
    expect(out.status).to.equal(204)
    expect(cookieOf(out)!.value).to.equal('')
    expect(cookieOf(out)!.attrs).to.include.members(['Max-Age=0', 'Path=/api/', 'HttpOnly', 'SameSite=Strict'])
    expect((await withCookie('GET', '/api/v1/auth/me', token)).status).to.equal(401)
    expect((await t.req('GET', '/api/v1/auth/me', { token })).status).to.equal(401)
  })

  it('gives the cookie at the end of a sign-in with a second factor, and after the password change a sign-in owes, never before', async () => {
    const u = await mkUser()
    const secret = await enroll(t, u.username, u.password)
    const first = await login(u)
    expect(first.body.status).to.equal('mfa_required')
    expect(cookieOf(first)).to.equal(null)
    const v = await t.req('POST', '/api/v1/mfa/verify', { headers: CONSOLE, body: { mfa_token: first.body.mfa_token, code: codeAt(secret, 1) } })
    expect(v.status, v.text).to.equal(200)
    expect(cookieOf(v)!.value).to.equal(v.body.access_token)
    expect((await withCookie('GET', '/api/v1/auth/me', cookieOf(v)!.value)).body.mfa_enabled).to.equal(true)

    const owed = await mkUser({ mustChange: true })
    const l = await login(owed)
    expect(l.body.status).to.equal('password_change_required')
    expect(cookieOf(l), 'no cookie for a password_change token').to.equal(null)
    const changed = await t.req('POST', '/api/v1/auth/change-password', { token: l.body.password_change_token, headers: CONSOLE, body: { current_password: owed.password, new_password: `New-${randomUUID()}` } })
    expect(changed.status, changed.text).to.equal(200)
    const c = cookieOf(changed)!
    expect(c.value).to.equal(changed.body.access_token)
    expect((await withCookie('GET', '/api/v1/auth/me', c.value)).status).to.equal(200)
  })

  it('ends with a password change: the old cookie is void, the answer sets the new session', async () => {
    const u = await mkUser()
    const token = await consoleSession(u)
    await nextSecond(claimsOf(token).iat)
    const r = await t.req('POST', '/api/v1/auth/change-password', { headers: { ...CONSOLE, cookie: `portcullis_session=${token}` }, body: { current_password: u.password, new_password: `Other-${randomUUID()}` } })
    expect(r.status, r.text).to.equal(200)
    expect((await withCookie('GET', '/api/v1/auth/me', token)).status).to.equal(401)
    const fresh = cookieOf(r)!.value
    expect(fresh).to.not.equal(token)
    expect((await withCookie('GET', '/api/v1/auth/me', fresh)).status).to.equal(200)
  })

  for (const [what, end] of [
    ['an administrator revokes the sessions', (id: string) => t.admin('DELETE', `/api/v1/users/${id}/sessions`)],
    ['the account is disabled', (id: string) => t.admin('PUT', `/api/v1/users/${id}`, { body: { enabled: false } })],
    ['the account expires', (id: string) => t.admin('PUT', `/api/v1/users/${id}`, { body: { expires_at: new Date(Date.now() - 60_000).toISOString() } })],
    ['the account is deleted', (id: string) => t.admin('DELETE', `/api/v1/users/${id}`)],
  ] as const) {
    it(`ends when ${what}`, async () => {
      const u = await mkUser()
      const token = await consoleSession(u)
      expect((await withCookie('GET', '/api/v1/auth/me', token)).status).to.equal(200)
      await nextSecond(claimsOf(token).iat)
      const r = await end(u.id)
      expect(r.status, r.text).to.be.within(200, 299)
      const me = await withCookie('GET', '/api/v1/auth/me', token)
      expect(me.status).to.equal(401)
    })
  }

  it('ends with the token: an expired session in the cookie is refused', async () => {
    const token = await t.token({ ttlSeconds: 1 })
    expect((await withCookie('GET', '/api/v1/auth/me', token)).status).to.equal(200)
    await sleep(2100)
    expect((await withCookie('GET', '/api/v1/auth/me', token)).status).to.equal(401)
  })

  it('grants no CORS preflight and names no allowed origin: another origin cannot send the header', async () => {
    const u = await mkUser()
    const token = await consoleSession(u)
    const origin = 'https://evil.example'
    for (const path of ['/api/v1/auth/me', '/api/v1/auth/logout', '/api/v1/auth/login']) {
      const pre = await t.req('OPTIONS', path, { headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-portcullis-console' } })
      expect(pre.status, path).to.not.be.within(200, 299)
      expect(pre.headers.get('access-control-allow-origin'), path).to.equal(null)
      expect(pre.headers.get('access-control-allow-headers'), path).to.equal(null)
      expect(pre.headers.get('access-control-allow-credentials'), path).to.equal(null)
    }
    // Nor does an answer to a request that names an origin (so a script there could not read it).
    const r = await t.req('GET', '/api/v1/auth/me', { headers: { ...CONSOLE, Origin: origin, cookie: `portcullis_session=${token}` } })
    expect(r.headers.get('access-control-allow-origin')).to.equal(null)
  })
})
