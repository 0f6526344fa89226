/**
 * Employees' own devices and event guest accounts. BYOD: the password alone registers the device
 * to its owner; with TOTP enrolled the portal hands out a `byod_mfa` token spent only at its own
 * verify (never at /mfa/verify, and an `mfa` token never there), five wrong codes burn it; the
 * per-user device limit; the certificate onboarding's one-time download. Accounts: argon2id.
 */
import argon2 from 'argon2'
import { expect } from 'chai'
import { codeAt, enroll, wrongCode } from '../../../test/kit/mfa.js'
import { createCa } from '../../pki/test/helpers.js'
import { Browser, createPortal, endpointOf, freshIp, freshMac, GuestApi, qs, signedRedirect, startPortalApp, type PortalApp, db } from './helpers.js'

const PASSWORD = 'Byod-Granite-Orbit-42'

describe('portal: employees (BYOD) and guest accounts', function () {
  this.timeout(180_000)
  let a: PortalApp
  before(async () => {
    a = await startPortalApp(['nac', 'portal', 'mfa', 'pki'])
  })
  after(async () => a?.stop())

  const user = async () => {
    const username = `emp${Math.random().toString(36).slice(2, 8)}`
    const r = await a.t.admin('POST', '/api/v1/users', { body: { username, password: PASSWORD, email: `${username}@example.net`, must_change_password: false } })
    expect(r.status, r.text).to.equal(201)
    return r.body as { id: string; username: string }
  }

  it('the password alone registers the device to its owner in the BYOD group; a wrong one is refused alike for a stranger', async () => {
    const p = await createPortal(a.t, { methods: ['byod'], byod_days: 30 })
    const u = await user()
    const g = new GuestApi(a.t)
    const mac = freshMac()
    await g.start(p.slug, mac)
    for (const [username, password] of [[u.username, 'wrong-password-1'], ['nobody-here', PASSWORD]]) {
      const r = await g.call('POST', '/guest/login', { username, password })
      expect(r.status).to.equal(401)
      expect(r.body.code).to.equal('GUEST_CREDENTIALS_INVALID')
    }
    const ok = await g.call('POST', '/guest/login', { username: u.username, password: PASSWORD })
    expect(ok.status, ok.text).to.equal(200)
    expect(ok.body.status).to.equal('registered')
    expect(ok.body.session).to.include({ state: 'active', method: 'byod' })
    expect(await endpointOf(a.t, mac)).to.include({ endpoint_group_id: p.byod_endpoint_group_id, owner_user_id: u.id })
    const audit = await a.t.admin('GET', '/api/v1/audit?action=portal.byod_login')
    expect(audit.body.items.map((x: any) => x.outcome)).to.include.members(['success', 'failure'])
  })

  it('with TOTP: a byod_mfa token, refused at /mfa/verify; an mfa token refused here; five wrong codes burn it; a right code registers', async () => {
    const p = await createPortal(a.t, { methods: ['byod'] })
    const u = await user()
    const secret = await enroll(a.t, u.username, PASSWORD)
    const g = new GuestApi(a.t)
    const mac = freshMac()
    await g.start(p.slug, mac)
    const first = await g.call('POST', '/guest/login', { username: u.username, password: PASSWORD })
    expect(first.body).to.include({ status: 'mfa_required', expires_in: 300 })
    const byodToken = first.body.byod_mfa_token as string
    expect(first.body.session.state).to.equal('started')

    const atMfa = await a.t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: byodToken, code: codeAt(secret, 1) } })
    expect(atMfa.status).to.equal(401)
    expect((await a.t.req('GET', '/api/v1/auth/me', { token: byodToken })).status, 'never a bearer token').to.equal(401)
    const login = await a.t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: PASSWORD }, headers: { 'x-forwarded-for': freshIp() } })
    const mfaToken = login.body.mfa_token as string
    const swapped = await g.call('POST', '/byod/verify', { byod_mfa_token: mfaToken, code: codeAt(secret, 1) })
    expect(swapped.status).to.equal(401)
    expect(swapped.body.code).to.equal('BYOD_MFA_TOKEN_INVALID')

    const bad = wrongCode(secret)
    for (let i = 0; i < 4; i++) {
      const r = await g.call('POST', '/byod/verify', { byod_mfa_token: byodToken, code: bad })
      expect(r.body.code, `wrong code ${i + 1}`).to.equal('BYOD_MFA_CODE_INVALID')
    }
    const fifth = await g.call('POST', '/byod/verify', { byod_mfa_token: byodToken, code: bad })
    expect(fifth.body.code).to.equal('BYOD_MFA_TOKEN_INVALID')
    const failures = await db(a.t)('audit_log').where({ action: 'portal.byod_mfa_verify', outcome: 'failure' }).orderBy('at')
    // The mfa token swapped in, the four wrong codes, the fifth that spent the token's budget (the kernel's `locked`) and burnt it.
    expect(failures.map((f: any) => f.reason)).to.deep.equal(['token_invalid', 'mfa_bad_code', 'mfa_bad_code', 'mfa_bad_code', 'mfa_bad_code', 'locked', 'token_invalid'])
    expect((await g.call('POST', '/byod/verify', { byod_mfa_token: byodToken, code: codeAt(secret, 1) })).body.code, 'burnt').to.equal('BYOD_MFA_TOKEN_INVALID')
    expect(await endpointOf(a.t, mac)).to.equal(null)

    const again = await g.call('POST', '/guest/login', { username: u.username, password: PASSWORD })
    const ok = await g.call('POST', '/byod/verify', { byod_mfa_token: again.body.byod_mfa_token, code: codeAt(secret, 1) })
    expect(ok.status, ok.text).to.equal(200)
    expect(ok.body.session.state).to.equal('active')
    expect(await endpointOf(a.t, mac)).to.include({ endpoint_group_id: p.byod_endpoint_group_id, owner_user_id: u.id })
    expect((await g.call('POST', '/byod/verify', { byod_mfa_token: again.body.byod_mfa_token, code: codeAt(secret, 2) })).status, 'spent').to.be.oneOf([401, 409])
  })

  it('another session\'s user cannot spend a byod_mfa token here', async () => {
    const p = await createPortal(a.t, { methods: ['byod'] })
    const u = await user()
    const secret = await enroll(a.t, u.username, PASSWORD)
    const mine = new GuestApi(a.t)
    await mine.start(p.slug, freshMac())
    const token = (await mine.call('POST', '/guest/login', { username: u.username, password: PASSWORD })).body.byod_mfa_token
    const thief = new GuestApi(a.t)
    const mac = freshMac()
    await thief.start(p.slug, mac)
    const r = await thief.call('POST', '/byod/verify', { byod_mfa_token: token, code: codeAt(secret, 1) })
    expect(r.status).to.equal(401)
    expect(await endpointOf(a.t, mac)).to.equal(null)
  })

  it('stops at the device limit (409); the pages show the certificate\'s one-time download and its passphrase', async () => {
    const ca = await createCa(a.t)
    expect((await a.t.admin('PUT', '/api/v1/settings/pki.freeradius_ca_id', { body: { value: ca.id } })).status).to.equal(200)
    const p = await createPortal(a.t, { methods: ['byod'], byod_device_limit: 1, byod_onboarding: 'certificate' })
    const u = await user()
    const b = new Browser(a.t)
    const page = await b.get(`/portal/${p.slug}?${qs(signedRedirect(freshMac()))}`)
    expect(page.html).to.include('<label for="emp-password">').and.include('type="password"')
    const done = await b.submit(page, `/portal/${p.slug}/login`, { username: u.username, password: PASSWORD })
    expect(done.status, done.html).to.equal(200)
    expect(done.html).to.include('<h1>You are connected</h1>')
    const m = /<form method="post" action="(\/api\/v1\/public\/cert-download\/[A-Za-z0-9_-]+)">/.exec(done.html)
    expect(m, done.html).to.not.equal(null)
    const pass = /<code>([^<]+)<\/code>/.exec(done.html)![1]
    expect(pass.length).to.be.greaterThan(8)
    const dl = await fetch(a.t.url + m![1], { method: 'POST' })
    expect(dl.status).to.equal(200)
    expect(dl.headers.get('content-type')).to.match(/pkcs12/)
    expect((await fetch(a.t.url + m![1], { method: 'POST' })).status, 'once').to.equal(410)

    const second = new GuestApi(a.t)
    const mac2 = freshMac()
    await second.start(p.slug, mac2)
    const r = await second.call('POST', '/guest/login', { username: u.username, password: PASSWORD })
    expect(r.status).to.equal(409)
    expect(r.body.code).to.equal('BYOD_DEVICE_LIMIT')
    expect(await endpointOf(a.t, mac2)).to.equal(null)
  })

  it('an event\'s guest account signs in with its password, only on its portal and inside its validity', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot'] })
    const other = await createPortal(a.t, { methods: ['hotspot'] })
    const username = `evt-${Date.now()}`
    const hash = await argon2.hash('Guest-Pass-77', { type: argon2.argon2id })
    await db(a.t)('portal_guests').insert({ portal_id: p.id, kind: 'account', username, password_hash: hash, status: 'active', valid_until: new Date(Date.now() + 3_600_000) })
    const elsewhere = new GuestApi(a.t)
    await elsewhere.start(other.slug, freshMac())
    expect((await elsewhere.call('POST', '/guest/account', { username, password: 'Guest-Pass-77' })).status).to.equal(401)
    const b = new Browser(a.t)
    const mac = freshMac()
    const page = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    expect(page.html).to.include('Sign in with a guest account')
    const wrong = await b.submit(page, `/portal/${p.slug}/account`, { username, password: 'nope' })
    expect(wrong.status).to.equal(401)
    expect(wrong.html).to.include('Wrong username or password.')
    expect(wrong.html, 'the password is never sent back').to.not.include('value="nope"')
    expect((await b.submit(page, `/portal/${p.slug}/account`, { username: username.toUpperCase(), password: 'Guest-Pass-77' })).status).to.equal(303)
    const s = await db(a.t)('portal_sessions').where({ mac }).first()
    expect(s).to.include({ state: 'active', method: 'account' })
    expect(new Date(s.expires_at).getTime(), 'not past the account').to.be.at.most(Date.now() + 3_600_000)
    expect(await endpointOf(a.t, mac)).to.include({ endpoint_group_id: p.guest_endpoint_group_id })
    await db(a.t)('portal_guests').where({ username }).update({ valid_until: new Date(Date.now() - 1000) })
    const late = new GuestApi(a.t)
    await late.start(p.slug, freshMac())
    expect((await late.call('POST', '/guest/account', { username, password: 'Guest-Pass-77' })).status).to.equal(401)
  })
})
