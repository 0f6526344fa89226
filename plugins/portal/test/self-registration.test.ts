/**
 * Self-registration end to end through the guest JSON API and the pages: the code mailed through
 * a real SMTP listener, 6 digits, 5 tries, the per-address hourly budget (429 with the contract's
 * body), the device registered into the guest group once the code is right.
 */
import { expect } from 'chai'
import { Browser, createPortal, endpointOf, freshMac, GuestApi, qs, signedRedirect, startPortalApp, textOf, type PortalApp, db } from './helpers.js'

const codeIn = (text: string) => /\n\n([0-9]{6})\n\n/.exec(text)![1]

describe('portal: self-registration', function () {
  this.timeout(120_000)
  let a: PortalApp
  before(async () => {
    a = await startPortalApp()
  })
  after(async () => a?.stop())

  it('mails a code; a wrong one says how many tries are left; the right one registers the device', async () => {
    const p = await createPortal(a.t, { methods: ['self_registration'], self_registration_fields: [{ name: 'company', label: { en: 'Company' }, required: true }] })
    const g = new GuestApi(a.t)
    const mac = freshMac()
    const s = await g.start(p.slug, mac)
    expect(s).to.include({ state: 'started', mac })
    const missing = await g.call('POST', '/guest/register', { name: 'Ann', email: 'ann@guest.test' })
    expect(missing.status).to.equal(422)
    expect(missing.body.field).to.equal('fields.company')
    const r = await g.call('POST', '/guest/register', { name: 'Ann', email: 'ann@guest.test', fields: { company: 'ACME' } })
    expect(r.status, r.text).to.equal(200)
    expect(r.body.session.state).to.equal('pending_code')
    const mail = await a.smtp.take('ann@guest.test')
    const code = codeIn(mail.text)
    const stored = await db(a.t)('portal_codes').where({ session_id: s.session_id }).first()
    expect(stored.code_hash).to.match(/^[0-9a-f]{64}$/).and.not.include(code)
    const wrong = await g.call('POST', '/guest/verify-code', { code: code === '000000' ? '111111' : '000000' })
    expect(wrong.status).to.equal(422)
    expect(wrong.body).to.include({ code: 'GUEST_CODE_INVALID', field: 'code' })
    expect(wrong.body.detail).to.include('Tries left: 4')
    const ok = await g.call('POST', '/guest/verify-code', { code })
    expect(ok.status, ok.text).to.equal(200)
    expect(ok.body.session.state).to.equal('active')
    expect(await endpointOf(a.t, mac)).to.include({ endpoint_group_id: p.guest_endpoint_group_id })
    const guest = await db(a.t)('portal_guests').where({ email: 'ann@guest.test' }).first()
    expect(guest).to.include({ status: 'active', kind: 'self_registration', name: 'Ann' })
    expect(guest.fields).to.deep.equal({ company: 'ACME' })
    // Spent: the same code again is a step the session no longer waits for.
    expect((await g.call('POST', '/guest/verify-code', { code })).status).to.equal(409)
  })

  it('five wrong codes spend it (410); an expired one is refused too', async () => {
    const p = await createPortal(a.t, { methods: ['self_registration'] })
    const g = new GuestApi(a.t)
    const mac = freshMac()
    await g.start(p.slug, mac)
    await g.call('POST', '/guest/register', { name: 'Bob', email: 'bob@guest.test' })
    const code = codeIn((await a.smtp.take('bob@guest.test')).text)
    const bad = code === '000000' ? '111111' : '000000'
    for (let i = 0; i < 4; i++) expect((await g.call('POST', '/guest/verify-code', { code: bad })).status).to.equal(422)
    const fifth = await g.call('POST', '/guest/verify-code', { code: bad })
    expect(fifth.status).to.equal(410)
    expect((await g.call('POST', '/guest/verify-code', { code })).status, 'the right code after five wrong ones').to.equal(410)
    expect(await endpointOf(a.t, mac)).to.equal(null)
    // A new code; expired before it is typed.
    await g.call('POST', '/guest/register', { name: 'Bob', email: 'bob@guest.test' })
    const fresh = codeIn((await a.smtp.take('bob@guest.test')).text)
    await db(a.t)('portal_codes').whereNull('spent_at').where({ email: 'bob@guest.test' }).update({ expires_at: new Date(Date.now() - 1000) })
    expect((await g.call('POST', '/guest/verify-code', { code: fresh })).body.code).to.equal('GUEST_CODE_EXPIRED')
  })

  it('sends at most portal.codes_per_email_per_hour codes to one address, whatever the session (429, Retry-After)', async () => {
    const p = await createPortal(a.t, { methods: ['self_registration'] })
    const email = `flood-${Date.now()}@victim.test`
    for (let i = 0; i < 3; i++) {
      const g = new GuestApi(a.t)
      await g.start(p.slug, freshMac())
      expect((await g.call('POST', '/guest/register', { name: 'X', email: email.toUpperCase() })).status).to.equal(200)
    }
    const g = new GuestApi(a.t)
    await g.start(p.slug, freshMac())
    const r = await g.call('POST', '/guest/register', { name: 'X', email })
    expect(r.status).to.equal(429)
    expect(Object.keys(r.body).sort()).to.deep.equal(['detail', 'retry_after'])
    expect(r.body.retry_after).to.be.within(3000, 3600)
    expect(r.headers.get('retry-after')).to.equal(String(r.body.retry_after))
    await new Promise((res) => setTimeout(res, 300))
    expect(a.smtp.messages.filter((m) => m.to.includes(email)).length).to.equal(3)

    // Asked at the same moment from five sessions: the budget still holds (one request per address at a time).
    const burst = `burst-${Date.now()}@victim.test`
    const guests = await Promise.all(Array.from({ length: 5 }, async () => {
      const b = new GuestApi(a.t)
      await b.start(p.slug, freshMac())
      return b
    }))
    const answers = await Promise.all(guests.map((b) => b.call('POST', '/guest/register', { name: 'Y', email: burst })))
    expect(answers.map((x) => x.status).sort()).to.deep.equal([200, 200, 200, 429, 429])
    expect((await db(a.t)('portal_codes').where({ email: burst }).select('id')).length).to.equal(3)
  })

  it('a code that cannot be mailed answers 503 and is not counted against the address; asking again works', async () => {
    const p = await createPortal(a.t, { methods: ['self_registration'] })
    const g = new GuestApi(a.t)
    await g.start(p.slug, freshMac())
    const { freeTcpPort } = await import('../../../test/kit/mfa.js')
    expect((await a.t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: await freeTcpPort() } })).status).to.equal(200)
    try {
      for (let i = 0; i < 4; i++) {
        const r = await g.call('POST', '/guest/register', { name: 'Cy', email: 'cy@guest.test' })
        expect(r.status, r.text).to.equal(503)
        expect(r.body.code).to.equal('PORTAL_MAIL_FAILED')
      }
      expect(await db(a.t)('portal_codes').where({ email: 'cy@guest.test' })).to.have.length(0)
    } finally {
      expect((await a.t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: a.smtp.port } })).status).to.equal(200)
    }
    expect((await g.call('POST', '/guest/register', { name: 'Cy', email: 'cy@guest.test' })).status).to.equal(200)
    await a.smtp.take('cy@guest.test')
  })

  it('the pages: the form, the code page naming the address (escaped), a wrong code tied to its field, then connected', async () => {
    const p = await createPortal(a.t, { methods: ['self_registration'] })
    const b = new Browser(a.t)
    const mac = freshMac()
    const page = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    expect(page.html).to.include('<label for="reg-email">')
    const bad = await b.submit(page, `/portal/${p.slug}/register`, { name: '<b>Eve</b>', email: 'not an address' })
    expect(bad.status).to.equal(422)
    expect(bad.html).to.include('value="&#60;b&#62;Eve&#60;/b&#62;"').and.include('aria-invalid="true" aria-describedby="reg-email-error"')
    const sent = await b.submit(page, `/portal/${p.slug}/register`, { name: '<b>Eve</b>', email: 'eve@guest.test' })
    expect(sent.status).to.equal(303)
    const codePage = await b.get(`/portal/${p.slug}`)
    expect(codePage.html).to.include('<h1>Enter the code</h1>').and.include('eve@guest.test').and.include('autocomplete="one-time-code"')
    const code = codeIn((await a.smtp.take('eve@guest.test')).text)
    const wrong = await b.submit(codePage, `/portal/${p.slug}/verify-code`, { code: code === '000000' ? '111111' : '000000' })
    expect(wrong.status).to.equal(422)
    expect(textOf(wrong.html, 'code-code-error')).to.include('Tries left: 4')
    expect((await b.submit(codePage, `/portal/${p.slug}/verify-code`, { code })).status).to.equal(303)
    expect((await b.get(`/portal/${p.slug}`)).html).to.include('<h1>You are connected</h1>')
    expect(await endpointOf(a.t, mac)).to.include({ endpoint_group_id: p.guest_endpoint_group_id })
  })
})
