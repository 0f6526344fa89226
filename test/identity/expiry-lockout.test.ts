/**
 * User expiry and the lockout clear through the API (both engines: TEST_ENGINE): `expires_at` set,
 * changed and cleared; an expired user's web sign-in refused (401, audited `expired`) and their
 * sessions void; bad instants refused at the field with nothing changed; the lockout settings
 * bounded and administrator-only; POST /users/{id}/lockout/clear under the manage-another-user rule,
 * audited; the clear instant and the expiry reaching the renderers (networkUsers).
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'
import { actorWith, auditRows, createRole, createUser, expectError, STRONG, uniq } from './helpers.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const login = (t: TestApp, username: string, password = STRONG) => t.req('POST', '/api/v1/auth/login', { body: { username, password } })

describe('users API: expiry and the lockout clear', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  describe('expires_at', () => {
    it('is null by default, set on create, changed, and cleared with null', async () => {
      const u = await createUser(t)
      expect(u.expires_at).to.equal(null)
      expect(u.lockout_cleared_at).to.equal(null)
      const at = '2031-05-06T07:08:09.000Z'
      const v = await createUser(t, { expires_at: '2031-05-06T09:08:09+02:00' })
      expect(v.expires_at).to.equal(at)
      const moved = await t.admin('PUT', `/api/v1/users/${v.id}`, { body: { expires_at: '2032-01-01T00:00:00Z' } })
      expect(moved.status).to.equal(200)
      expect(moved.body.expires_at).to.equal('2032-01-01T00:00:00.000Z')
      // Not given: unchanged.
      expect((await t.admin('PUT', `/api/v1/users/${v.id}`, { body: { display_name: 'x' } })).body.expires_at).to.equal('2032-01-01T00:00:00.000Z')
      expect((await t.admin('PUT', `/api/v1/users/${v.id}`, { body: { expires_at: null } })).body.expires_at).to.equal(null)
    })

    it('refuses an instant that is not one, or outside 1970 to 2105, at the field, changing nothing', async () => {
      const u = await createUser(t, { expires_at: '2030-01-01T00:00:00Z' })
      const before = await t.app.db.knex('users').where({ id: u.id }).first()
      for (const bad of ['2030-01-01', 'tomorrow', '2030-13-01T00:00:00Z', '2030-01-01T00:00:00', '1969-12-31T23:59:59Z', '2106-03-01T00:00:00Z', '+012030-01-01T00:00:00Z', 0, true, {}, ['2030-01-01T00:00:00Z'], '2030-01-01T00:00:00Z\n']) {
        expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { expires_at: bad } }), 422, 'VALIDATION_FAILED', 'expires_at')
        expectError(await t.admin('POST', '/api/v1/users', { body: { username: uniq('bad'), expires_at: bad } }), 422, 'VALIDATION_FAILED', 'expires_at')
      }
      expect(await t.app.db.knex('users').where({ id: u.id }).first()).to.deep.equal(before)
    })

    it('an expired user cannot sign in (401 as for a wrong password, audited as expired), and their sessions stop', async () => {
      const u = await createUser(t, { password: STRONG, expires_at: new Date(Date.now() + 3_000).toISOString() })
      const ok = await login(t, u.username)
      expect(ok.status).to.equal(200)
      const token = ok.body.access_token as string
      expect((await t.req('GET', '/api/v1/auth/me', { token })).status).to.equal(200)
      await sleep(3_200)
      expect((await t.req('GET', '/api/v1/auth/me', { token })).status).to.equal(401)
      const refused = await login(t, u.username)
      expectError(refused, 401, 'INVALID_CREDENTIALS')
      const wrong = await login(t, u.username, 'Not-The-Password-99')
      expect(refused.body.detail).to.equal(wrong.body.detail)
      const rows = await t.app.db.knex('audit_log').where({ action: 'auth.login', outcome: 'failure', actor_id: u.id }).orWhere({ action: 'auth.login', outcome: 'failure', resource_id: u.id }).select('reason')
      expect(rows.map((r) => r.reason)).to.include('expired')
      // Moved into the future again: the user signs in.
      await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { expires_at: new Date(Date.now() + 86400_000).toISOString() } })
      expect((await login(t, u.username)).status).to.equal(200)
    })

    it('reaches the renderers with network users, expired ones included (the daemons refuse them at the instant)', async () => {
      const past = new Date(Date.now() - 60_000).toISOString()
      const u = await createUser(t, { password: STRONG, network_login: true, expires_at: past })
      const plain = await createUser(t, { password: STRONG, network_login: true })
      const net = await t.app.identity.networkUsers(t.app.db.knex)
      expect(net.find((x) => x.id === u.id)).to.include({ expires_at: new Date(past).toISOString() })
      expect(net.find((x) => x.id === plain.id)).to.not.have.property('expires_at')
    })
  })

  describe('lockout settings', () => {
    it('are bounded (threshold 0 to 100, seconds 10 to 86400) and need an administrator', async () => {
      for (const [key, bad] of [['identity.lockout_threshold', -1], ['identity.lockout_threshold', 101], ['identity.lockout_threshold', 1.5], ['identity.lockout_seconds', 9], ['identity.lockout_seconds', 86401], ['identity.lockout_seconds', '900']] as const) {
        const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value: bad } })
        expect(r.status, `${key}=${JSON.stringify(bad)}: ${JSON.stringify(r.body)}`).to.equal(422)
      }
      const writer = await actorWith(t, ['settings.write', 'settings.read'])
      const r = await t.req('PUT', '/api/v1/settings/identity.lockout_threshold', { token: writer.token, body: { value: 0 } })
      expect(r.status, JSON.stringify(r.body)).to.equal(403)
      expect((await t.admin('PUT', '/api/v1/settings/identity.lockout_threshold', { body: { value: 5 } })).status).to.be.oneOf([200, 204])
      expect((await t.admin('PUT', '/api/v1/settings/identity.lockout_seconds', { body: { value: 600 } })).status).to.be.oneOf([200, 204])
      expect((await t.admin('PUT', '/api/v1/settings/identity.lockout_threshold', { body: { value: 0 } })).status).to.be.oneOf([200, 204])
    })
  })

  describe('POST /users/{user_id}/lockout/clear', () => {
    it('sets lockout_cleared_at to now, answers the user, audits, and hands the instant to the renderers', async () => {
      const u = await createUser(t, { password: STRONG, network_login: true })
      const t0 = Date.now()
      const r = await t.admin('POST', `/api/v1/users/${u.id}/lockout/clear`)
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect(r.body.id).to.equal(u.id)
      expect(new Date(r.body.lockout_cleared_at).getTime()).to.be.within(t0 - 1000, Date.now() + 1000)
      const rows = await auditRows(t, u.id)
      const row = rows.find((x) => x.action === 'user.lockout_clear')!
      expect(row).to.not.equal(undefined)
      expect(row.after).to.deep.include({ username: u.username, lockout_cleared_at: r.body.lockout_cleared_at })
      const net = await t.app.identity.networkUsers(t.app.db.knex)
      expect(net.find((x) => x.id === u.id)?.lockout_cleared_at).to.equal(r.body.lockout_cleared_at)
    })

    it('answers 404 at user_id for an unknown user, and refuses malformed or hostile ids without acting', async () => {
      expectError(await t.admin('POST', `/api/v1/users/${randomUUID()}/lockout/clear`), 404, 'NOT_FOUND', 'user_id')
      for (const bad of ['not-a-uuid', '..%2F..%2Fsettings', "1' OR '1'='1", '%00']) {
        const r = await t.admin('POST', `/api/v1/users/${bad}/lockout/clear`)
        expect(r.status, `${bad}: ${JSON.stringify(r.body)}`).to.be.oneOf([404, 422])
      }
      expect((await t.admin('GET', `/api/v1/users/${randomUUID()}/lockout/clear`)).status).to.be.oneOf([404, 405])
    })

    it('follows the manage-another-user rule: users.write, never an administrator unless one, never a stronger user', async () => {
      const writer = await actorWith(t, ['users.write', 'users.read'])
      const as = (id: string, token = writer.token) => t.req('POST', `/api/v1/users/${id}/lockout/clear`, { token })
      const admin = await createUser(t, { is_admin: true, password: STRONG })
      const stronger = await createUser(t, { role_ids: [await createRole(t, ['settings.write'])] })
      const weaker = await createUser(t, { role_ids: [await createRole(t, ['users.read'])] })
      const snapshot = async () => t.app.db.knex('users').whereIn('id', [admin.id, stronger.id]).orderBy('id').select('id', 'lockout_cleared_at', 'updated_at')
      const before = await snapshot()
      expectError(await as(admin.id), 403, 'ADMIN_REQUIRED', 'user_id')
      expectError(await as(stronger.id), 403, 'USER_EXCEEDS_OWN_PERMISSIONS', 'user_id')
      expect(await snapshot()).to.deep.equal(before)
      const reader = await actorWith(t, ['users.read'])
      expectError(await as(weaker.id, reader.token), 403, 'PERMISSION_DENIED')
      expectError(await t.req('POST', `/api/v1/users/${weaker.id}/lockout/clear`), 401, 'TOKEN_INVALID')
      expect((await t.admin('GET', `/api/v1/users/${weaker.id}`)).body.lockout_cleared_at).to.equal(null)
      expect((await as(weaker.id)).status).to.equal(200)
    })
  })
})

describe('users API: one enabled administrator never expires', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  it('refuses an expiry for the last enabled administrator without one (409 LAST_ADMIN at expires_at), changing nothing', async () => {
    const me = (await t.admin('GET', '/api/v1/auth/me')).body.id as string
    const boot = (await t.app.db.knex('users').where({ username: 'admin' }).first('id'))!.id
    const later = '2040-01-01T00:00:00Z'
    expect((await t.admin('PUT', `/api/v1/users/${boot}`, { body: { expires_at: later } })).status).to.equal(200)
    const before = await t.app.db.knex('users').where({ id: me }).first()
    const r = await t.admin('PUT', `/api/v1/users/${me}`, { body: { expires_at: later, display_name: 'changed' } })
    expectError(r, 409, 'LAST_ADMIN', 'expires_at')
    expect(r.body.detail).to.include('without an expiry')
    expect(await t.app.db.knex('users').where({ id: me }).first()).to.deep.equal(before)
    // Null is no expiry: always allowed. With the other administrator lasting again, this one may expire.
    expect((await t.admin('PUT', `/api/v1/users/${me}`, { body: { expires_at: null } })).status).to.equal(200)
    expect((await t.admin('PUT', `/api/v1/users/${boot}`, { body: { expires_at: null } })).status).to.equal(200)
    expect((await t.admin('PUT', `/api/v1/users/${me}`, { body: { expires_at: later } })).status).to.equal(200)
  })
})
