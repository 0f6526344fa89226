/**
 * The policy test and user expiry (both engines: TEST_ENGINE), against the database and against the
 * deployed release: a login of an expired user is denied with the instant in the reason, at `at`
 * as well as now; a TACACS+ authorization alone answers by the rules with a note (tac_plus-ng checks
 * expiry at login only); a RADIUS accept lists rlm_expiration's Session-Timeout first; a release
 * keeps the expiry it was rendered with. The daemons' side: plugins/radius/test/e2e-expiry-lockout.test.ts
 * and plugins/tacacs/test/e2e/expiry.test.ts.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { clearRules, createDevice, createRadiusProfile, createRule, createTacacsProfile, createUser, startPolicyApp } from './helpers.js'

const TEST = '/api/v1/aaa/policy/test'
const STRONG = 'Tq-expiry-policy-9zX'

describe('AAA policy test: user expiry', function () {
  this.timeout(120_000)
  let t: TestApp
  let sw: any, expired: any, later: any
  const expiresLater = '2099-01-01T00:00:00.000Z'

  const test = async (body: Record<string, unknown>) => {
    const r = await t.admin('POST', TEST, { body: { device_id: sw.id, ...body } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }

  before(async () => {
    t = await startPolicyApp()
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    sw = await createDevice(t)
    expired = await createUser(t, { password: STRONG, expires_at: '2020-06-01T12:00:00Z' })
    later = await createUser(t, { password: STRONG, expires_at: expiresLater })
    const tp = await createTacacsProfile(t, { privilege_level: 15, default_action: 'permit' })
    const rp = await createRadiusProfile(t)
    await clearRules(t)
    for (const u of [expired, later]) await createRule(t, { who: { user_id: u.id }, where: { device_id: sw.id }, tacacs_profile_id: tp.id, radius_profile_id: rp.id })
  })
  after(async () => t?.stop())

  it('denies a login of an expired user, on both protocols, naming the instant', async () => {
    for (const [protocol, method] of [['radius', undefined], ['radius', 'mschapv2'], ['tacacs', 'pap'], ['tacacs', 'ascii'], ['tacacs', 'enable']] as const) {
      const r = await test({ protocol, username: expired.username, ...(method ? { method } : {}) })
      expect(r.decision, `${protocol} ${method}`).to.equal('deny')
      expect(r.reason).to.include('expired at 2020-06-01T12:00:00.000Z')
      expect(r.matched_rule).to.equal(null)
    }
  })

  it('answers for `at`: permit before the instant, deny from it on', async () => {
    expect((await test({ protocol: 'tacacs', method: 'pap', username: expired.username, at: '2020-06-01T11:59:59Z' })).decision).to.equal('permit')
    expect((await test({ protocol: 'tacacs', method: 'pap', username: expired.username, at: '2020-06-01T12:00:00Z' })).decision).to.equal('deny')
    expect((await test({ protocol: 'radius', username: later.username, at: '2099-01-01T00:00:00Z' })).decision).to.equal('deny')
  })

  it('a TACACS+ authorization alone is answered by the rules, with the note that tac_plus-ng checks expiry at login only', async () => {
    const r = await test({ protocol: 'tacacs', username: expired.username })
    expect(r.decision).to.equal('permit')
    expect(r.reason).to.include('checks expiry at login only')
  })

  it('a RADIUS accept of a user who will expire lists Session-Timeout (the seconds left) first', async () => {
    const at = '2098-12-31T23:00:00Z'
    const r = await test({ protocol: 'radius', username: later.username, at })
    expect(r.decision).to.equal('permit')
    expect(r.attributes[0]).to.deep.equal({ name: 'Session-Timeout', value: '3600' })
    expect(r.attributes.slice(1)).to.deep.equal([{ name: 'Service-Type', value: 'Administrative-User' }])
  })

  it('against the deployed release: the expiry it was rendered with, until the next deploy', async () => {
    expect((await t.admin('POST', '/api/v1/deploys', { body: {} })).status).to.equal(201)
    const deployed = { against: 'deployed', protocol: 'radius', username: expired.username }
    expect((await test(deployed)).decision).to.equal('deny')
    expect((await t.admin('PUT', `/api/v1/users/${expired.id}`, { body: { expires_at: null } })).status).to.equal(200)
    expect((await test({ protocol: 'radius', username: expired.username })).decision).to.equal('permit')
    const old = await test(deployed)
    expect(old.decision).to.equal('deny')
    expect(old.reason).to.include('expired at')
    expect((await t.admin('POST', '/api/v1/deploys', { body: {} })).status).to.equal(201)
    expect((await test(deployed)).decision).to.equal('permit')
  })
})
