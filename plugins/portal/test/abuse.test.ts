/**
 * Bad input and abuse on the guest's side: guest tokens replayed, foreign, of an ended session or
 * made up (401 GUEST_TOKEN_INVALID, nothing granted); floods of every kind of guest route and of
 * the sponsor callback answer 429 with the contract's body; control characters refused; the JSON
 * API in the OpenAPI document.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { Browser, createPortal, endpointOf, freshIp, freshMac, GuestApi, qs, signedRedirect, startPortalApp, type PortalApp, db } from './helpers.js'

describe('portal: bad input and abuse on the guest side', function () {
  this.timeout(180_000)
  let a: PortalApp
  before(async () => {
    a = await startPortalApp()
  })
  after(async () => a?.stop())

  it('refuses made-up, foreign and ended guest tokens (401 GUEST_TOKEN_INVALID), granting nothing', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot'] })
    const q = await createPortal(a.t, { methods: ['hotspot'], enabled: false })
    const g = new GuestApi(a.t)
    const mac = freshMac()
    await g.start(p.slug, mac)
    for (const token of [null, randomBytes(32).toString('base64url'), 'x'.repeat(500)]) {
      const r = await g.call('POST', '/guest/hotspot', { accept_terms: true }, token)
      expect(r.status, String(token)).to.equal(401)
      expect(r.body.code).to.equal('GUEST_TOKEN_INVALID')
    }
    // A session of a portal switched off since: its token opens nothing.
    const other = new GuestApi(a.t)
    expect((await other.call('POST', '/guest/start', { slug: q.slug, ...signedRedirect(freshMac()) }, null)).status).to.equal(404)
    await db(a.t)('portal_portals').where({ id: q.id }).update({ enabled: true })
    await other.start(q.slug, freshMac())
    await db(a.t)('portal_portals').where({ id: q.id }).update({ enabled: false })
    expect((await other.call('POST', '/guest/hotspot', { accept_terms: true })).status).to.equal(401)
    expect((await other.call('GET', '/guest/status')).status).to.equal(401)
    // Registered, then ended by an administrator: the token is dead, replayed or not.
    expect((await g.call('POST', '/guest/hotspot', { accept_terms: true })).status).to.equal(200)
    await db(a.t)('portal_sessions').where({ mac }).update({ state: 'ended', end_reason: 'admin' })
    for (const [m, path] of [['GET', '/guest/status'], ['POST', '/guest/hotspot']]) {
      const r = await g.call(m, path, m === 'POST' ? { accept_terms: true } : undefined)
      expect(r.status, path).to.equal(401)
    }
    expect((await db(a.t)('portal_sessions').where({ mac })).map((s: any) => s.state)).to.deep.equal(['ended'])
  })

  it('refuses control characters and over-long values in every guest field (422 at the field), registering nothing', async () => {
    const p = await createPortal(a.t, { methods: ['self_registration', 'sponsored'], self_registration_fields: [{ name: 'company', label: { en: 'Company' }, required: false }] })
    const g = new GuestApi(a.t)
    const mac = freshMac()
    await g.start(p.slug, mac)
    const cases: [string, Record<string, unknown>, string][] = [
      ['/guest/register', { name: 'Ann\r\nBcc: all@example.com', email: 'ann@guest.test' }, 'name'],
      ['/guest/register', { name: 'Ann', email: 'ann@guest.test\r\nBcc: x@y.z' }, 'email'],
      ['/guest/register', { name: 'Ann', email: '<ann@guest.test>' }, 'email'],
      ['/guest/register', { name: 'Ann', email: 'ann@guest.test', fields: { company: 'A\u0000B' } }, 'fields.company'],
      ['/guest/register', { name: 'Ann', email: 'ann@guest.test', fields: { other: 'x' } }, 'fields.other'],
      ['/guest/sponsor', { name: 'Ann', email: 'ann@guest.test', sponsor_email: 'host@example.com\nBcc: x@y.z' }, 'sponsor_email'],
      ['/guest/register', { name: 'A'.repeat(101), email: 'ann@guest.test' }, 'name'],
    ]
    for (const [path, body, field] of cases) {
      const r = await g.call('POST', path, body)
      expect(r.status, `${path} ${JSON.stringify(body)}`).to.equal(422)
      expect(r.body.field).to.equal(field)
    }
    expect((await g.call('GET', '/guest/status')).body.state).to.equal('started')
    expect(await db(a.t)('portal_guests').where({ portal_id: p.id })).to.have.length(0)
    expect(await endpointOf(a.t, mac)).to.equal(null)
  })

  it('answers floods with 429, Retry-After and {detail, retry_after}: the page, a form, the JSON API, sign-in, the sponsor callback', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot', 'byod'] })
    const ip = freshIp()
    const hit = (method: string, path: string, body?: string, type?: string) =>
      fetch(a.t.url + path, { method, headers: { 'x-forwarded-for': ip, ...(type ? { 'content-type': type } : {}) }, body })
    const flood = async (n: number, f: () => Promise<Response>) => {
      let last: Response | null = null
      for (let i = 0; i < n; i++) last = await f()
      return last!
    }
    const expect429 = async (r: Response, what: string) => {
      expect(r.status, what).to.equal(429)
      const body = await r.json()
      expect(Object.keys(body).sort(), what).to.deep.equal(['detail', 'retry_after'])
      expect(r.headers.get('retry-after'), what).to.equal(String(body.retry_after))
    }
    const redirect = qs(signedRedirect(freshMac()))
    await expect429(await flood(61, () => hit('GET', `/portal/${p.slug}?${redirect}`)), 'page')
    await expect429(await flood(21, () => hit('POST', `/portal/${p.slug}/hotspot`, 'accept_terms=yes', 'application/x-www-form-urlencoded')), 'form')
    await expect429(await flood(11, () => hit('POST', '/api/v1/captive-portal/guest/login', JSON.stringify({ username: 'x', password: 'y' }), 'application/json')), 'sign-in')
    await expect429(await flood(61, () => hit('POST', '/api/v1/captive-portal/guest/start', JSON.stringify({ slug: p.slug, mac: 'nonsense' }), 'application/json')), 'start')
    await expect429(await flood(21, () => hit('GET', '/api/v1/captive-portal/sponsor/callback?token=guess')), 'sponsor page')
    await expect429(await flood(21, () => hit('POST', '/api/v1/captive-portal/sponsor/callback', 'token=guess&decision=approve', 'application/x-www-form-urlencoded')), 'sponsor decision')
    // Another address is not held back.
    const b = new Browser(a.t)
    expect((await b.get(`/portal/${p.slug}?${qs(signedRedirect(freshMac()))}`)).status).to.equal(200)
  })

  it('documents the guest JSON API and the sponsor callback in the OpenAPI document', async () => {
    const doc = await a.t.req('GET', '/openapi.json')
    expect(doc.status).to.equal(200)
    const paths = Object.keys(doc.body.paths)
    for (const p of ['/api/v1/captive-portal/guest/start', '/api/v1/captive-portal/guest/status', '/api/v1/captive-portal/guest/register', '/api/v1/captive-portal/byod/verify', '/api/v1/captive-portal/sponsor/callback']) {
      expect(paths, p).to.include(p)
    }
    expect(JSON.stringify(doc.body.paths['/api/v1/captive-portal/sponsor/callback'].get)).to.include('429')
  })
})
