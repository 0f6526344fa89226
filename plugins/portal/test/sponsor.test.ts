/**
 * Sponsored guests: the sponsor's address in an allowed domain or a member of the sponsor group;
 * the mail (a real SMTP listener) carries the callback link; the sponsor's page shows who asks,
 * escaped; approve registers the device, deny refuses it; a link works once, not after it expired,
 * not when unknown; the guest's page waits with a refresh on the status page.
 */
import { expect } from 'chai'
import { Browser, createPortal, endpointOf, freshIp, freshMac, GuestApi, PUBLIC_URL, qs, signedRedirect, startPortalApp, type PortalApp, db } from './helpers.js'

const linkIn = (text: string) => {
  const m = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}(/api/v1/captive-portal/sponsor/callback\\?token=[A-Za-z0-9_-]+)`).exec(text)
  expect(m, text).to.not.equal(null)
  return m![1]
}

describe('portal: sponsored guests', function () {
  this.timeout(120_000)
  let a: PortalApp
  before(async () => {
    a = await startPortalApp()
  })
  after(async () => a?.stop())

  const callback = (method: string, path: string, form?: Record<string, string>, ip = freshIp()) =>
    fetch(a.t.url + path, { method, headers: { 'x-forwarded-for': ip, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, body: form ? new URLSearchParams(form).toString() : undefined })

  it('approve by the mailed link: the sponsor sees who asks (escaped), the device joins the group, the link is single use', async () => {
    const p = await createPortal(a.t, { methods: ['sponsored'] })
    const b = new Browser(a.t)
    const mac = freshMac()
    const page = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    const evil = '<script>alert("x")</script>'
    const asked = await b.submit(page, `/portal/${p.slug}/sponsor`, { name: evil, email: 'guest@visitor.test', sponsor_email: 'Host@Example.com' })
    expect(asked.status, asked.html).to.equal(303)
    const waiting = await b.get(`/portal/${p.slug}`)
    expect(waiting.html).to.include('<h1>Waiting for your host</h1>').and.include(`<a href="/portal/${p.slug}/status">Check now</a>`)
    // No reload on a timer: "Check now", and the script that checks while the guest waits (its only script).
    expect(waiting.headers.get('refresh')).to.equal(null)
    expect(waiting.html).to.not.include('http-equiv')
    expect(waiting.html).to.include(`data-wait-poll="/portal/${p.slug}/status"`).and.include('<script src="/portal/assets/wait.js" defer></script>')
    expect(waiting.headers.get('content-security-policy')).to.include("script-src 'self'").and.include("connect-src 'self'")
    const script = await fetch(a.t.url + '/portal/assets/wait.js')
    expect(script.headers.get('content-type')).to.match(/^text\/javascript/)
    expect(await script.text()).to.include("querySelector('[data-wait-poll]')")
    const mail = await a.smtp.take('host@example.com')
    expect(mail.text).to.include(`Name: ${evil}`).and.include('E-mail: guest@visitor.test')
    const link = linkIn(mail.text)
    const shown = await callback('GET', link)
    const html = await shown.text()
    expect(shown.status).to.equal(200)
    expect(shown.headers.get('content-security-policy')).to.include("default-src 'none'")
    expect(html).to.not.include('<script')
    expect(html).to.include('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;').and.include(mac)
    const token = new URL(link, PUBLIC_URL).searchParams.get('token')!
    expect(html).to.include(`<input type="hidden" name="token" value="${token}"><input type="hidden" name="decision" value="approve">`)
    const approved = await callback('POST', '/api/v1/captive-portal/sponsor/callback', { token, decision: 'approve' })
    expect(approved.status).to.equal(200)
    expect(await approved.text()).to.include('<h1>Approved</h1>')
    expect(await endpointOf(a.t, mac)).to.include({ endpoint_group_id: p.guest_endpoint_group_id })
    expect((await b.get(`/portal/${p.slug}/status`)).html).to.include('<h1>You are connected</h1>')
    // Used: the page and both decisions answer 410.
    expect((await callback('GET', link)).status).to.equal(410)
    expect((await callback('POST', '/api/v1/captive-portal/sponsor/callback', { token, decision: 'deny' })).status).to.equal(410)
    const json = await a.t.req('POST', '/api/v1/captive-portal/sponsor/callback', { body: { token, decision: 'deny' }, headers: { 'x-forwarded-for': freshIp() } })
    expect(json.status).to.equal(410)
    expect(json.body.code).to.equal('SPONSOR_LINK_SPENT')
    expect((await db(a.t)('portal_sessions').where({ mac }).first()).state).to.equal('active')
  })

  it('deny (JSON): the guest is refused, nothing is registered; an expired link and an unknown one are refused', async () => {
    const p = await createPortal(a.t, { methods: ['sponsored'] })
    const g = new GuestApi(a.t)
    const mac = freshMac()
    await g.start(p.slug, mac)
    expect((await g.call('POST', '/guest/sponsor', { name: 'Zed', email: 'zed@visitor.test', sponsor_email: 'boss@example.com' })).body.session.state).to.equal('pending_approval')
    const token = new URL(linkIn((await a.smtp.take('boss@example.com')).text), PUBLIC_URL).searchParams.get('token')!
    const r = await a.t.req('POST', '/api/v1/captive-portal/sponsor/callback', { body: { token, decision: 'deny' }, headers: { 'x-forwarded-for': freshIp() } })
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.deep.equal({ status: 'denied' })
    expect((await g.call('GET', '/guest/status')).body.state).to.equal('denied')
    expect(await endpointOf(a.t, mac)).to.equal(null)

    const g2 = new GuestApi(a.t)
    await g2.start(p.slug, freshMac())
    await g2.call('POST', '/guest/sponsor', { name: 'Late', email: 'late@visitor.test', sponsor_email: 'slow@example.com' })
    const link = linkIn((await a.smtp.take('slow@example.com')).text)
    await db(a.t)('portal_sponsor_requests').where({ sponsor_email: 'slow@example.com' }).update({ expires_at: new Date(Date.now() - 1000) })
    const expired = await callback('GET', link)
    expect(expired.status).to.equal(410)
    expect(await expired.text()).to.include('This approval link has expired.')
    const late = await a.t.req('POST', '/api/v1/captive-portal/sponsor/callback', { body: { token: new URL(link, PUBLIC_URL).searchParams.get('token'), decision: 'approve' }, headers: { 'x-forwarded-for': freshIp() } })
    expect(late.status).to.equal(410)
    expect(late.body.code).to.equal('SPONSOR_LINK_EXPIRED')
    expect((await callback('GET', '/api/v1/captive-portal/sponsor/callback?token=nothing-like-it')).status).to.equal(404)
  })

  it('the guest\'s page says when the host denied or did not answer, and the next redirect starts over', async () => {
    const p = await createPortal(a.t, { methods: ['sponsored'] })
    const b = new Browser(a.t)
    const mac = freshMac()
    const page = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    await b.submit(page, `/portal/${p.slug}/sponsor`, { name: 'Vic', email: 'vic@visitor.test', sponsor_email: 'away@example.com' })
    await a.smtp.take('away@example.com')
    await db(a.t)('portal_sponsor_requests').where({ sponsor_email: 'away@example.com' }).update({ expires_at: new Date(Date.now() - 1000) })
    const expired = await b.get(`/portal/${p.slug}/status`)
    expect(expired.html).to.include('<h1>The request has expired</h1>')
    expect(expired.html, 'no more waiting').to.not.include('data-wait-poll').and.not.include('wait.js')
    const again = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    expect(again.html).to.include('<section aria-labelledby="sp-h">')
    expect((await db(a.t)('portal_sessions').where({ mac }).orderBy('created_at')).map((s: any) => s.state)).to.deep.equal(['pending_approval', 'started'])
  })

  it('refuses a sponsor outside the allowed domains (422 at sponsor_email, nothing mailed); takes a member of the sponsor group', async () => {
    const group = await a.t.admin('POST', '/api/v1/user-groups', { body: { name: `sponsors-${Date.now()}` } })
    expect(group.status, group.text).to.equal(201)
    const user = await a.t.admin('POST', '/api/v1/users', { body: { username: `host${Date.now()}`, email: 'member@partner.test', group_ids: [group.body.id] } })
    expect(user.status, user.text).to.equal(201)
    const p = await createPortal(a.t, { methods: ['sponsored'], sponsor_group_id: group.body.id })
    const g = new GuestApi(a.t)
    await g.start(p.slug, freshMac())
    for (const outsider of ['someone@evil.test', 'host@example.com.evil.test', 'nobody@partner.test']) {
      const r = await g.call('POST', '/guest/sponsor', { name: 'Mal', email: 'mal@visitor.test', sponsor_email: outsider })
      expect(r.status, outsider).to.equal(422)
      expect(r.body).to.include({ code: 'SPONSOR_NOT_ALLOWED', field: 'sponsor_email' })
    }
    expect((await g.call('GET', '/guest/status')).body.state).to.equal('started')
    const ok = await g.call('POST', '/guest/sponsor', { name: 'Mal', email: 'mal@visitor.test', sponsor_email: 'MEMBER@partner.test' })
    expect(ok.status, ok.text).to.equal(200)
    await a.smtp.take('member@partner.test')
    const req = await db(a.t)('portal_sponsor_requests').where({ sponsor_email: 'MEMBER@partner.test' }).first()
    expect(req.sponsor_user_id).to.equal(user.body.id)
    expect(a.smtp.messages.filter((m) => m.to.some((x) => x.endsWith('evil.test') || x === 'nobody@partner.test'))).to.have.length(0)
  })
})
