/**
 * The guest's pages as a browser gets them (HTML parsed for what a user relies on): the redirect
 * starts a session, the hotspot form registers the device into the portal's group, CSRF and the
 * session cookie guard every form, the language follows the browser and the switch, the pages
 * carry their own Content-Security-Policy, every portal text is escaped.
 */
import { expect } from 'chai'
import { Browser, createPortal, csrfOf, endpointOf, freshMac, qs, signedRedirect, startPortalApp, textOf, type PortalApp, db } from './helpers.js'

describe('portal: the guest pages', function () {
  this.timeout(120_000)
  let a: PortalApp
  before(async () => {
    a = await startPortalApp()
  })
  after(async () => a?.stop())

  it('a signed redirect starts a session; hotspot with the terms accepted registers the device into the guest group', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot'], branding: { texts: { en: { title: 'Lobby Wi-Fi', terms: 'Be nice.\n\nNo spam.' } } } })
    const b = new Browser(a.t)
    const mac = freshMac()
    const landing = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    expect(landing.status, landing.html).to.equal(200)
    expect(landing.headers.get('content-type')).to.match(/^text\/html; charset=utf-8/)
    expect(landing.headers.get('content-security-policy')).to.equal("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
    expect(landing.headers.get('set-cookie')).to.match(/^portcullis_guest=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/)
    expect(landing.html).to.include('<html lang="en">').and.include('<meta name="viewport" content="width=device-width, initial-scale=1">')
    expect(landing.html).to.include('<h1>Lobby Wi-Fi</h1>').and.include('<p>Be nice.</p><p>No spam.</p>')
    expect(landing.html).to.not.match(/<script|style=/i)
    const session = await db(a.t)('portal_sessions').where({ mac }).first()
    expect(session).to.include({ state: 'started', redirect_signed: true, nas_ip: '192.0.2.10', ssid: 'Guest WiFi', portal_id: p.id })

    // Terms not ticked: the page again, the error tied to the checkbox.
    const refused = await b.submit(landing, `/portal/${p.slug}/hotspot`, {})
    expect(refused.status).to.equal(422)
    expect(refused.html).to.include('aria-describedby="hs-accept_terms-error"')
    expect(textOf(refused.html, 'hs-accept_terms-error')).to.equal('This field is missing or not valid.')

    const done = await b.submit(landing, `/portal/${p.slug}/hotspot`, { accept_terms: 'yes' })
    expect(done.status, done.html).to.equal(303)
    expect(done.headers.get('location')).to.equal(`/portal/${p.slug}`)
    const active = await b.get(`/portal/${p.slug}`)
    expect(active.html).to.include('<h1>You are connected</h1>')
    const e = await endpointOf(a.t, mac)
    expect(e).to.include({ endpoint_group_id: p.guest_endpoint_group_id, owner_user_id: null })
    const s = await db(a.t)('portal_sessions').where({ id: session.id }).first()
    expect(s).to.include({ state: 'active', method: 'hotspot', endpoint_id: e.id, endpoint_group_id: p.guest_endpoint_group_id })
    const minutes = (new Date(s.expires_at).getTime() - new Date(s.registered_at).getTime()) / 60_000
    expect(minutes).to.equal(p.guest_minutes)
  })

  it('refuses a tampered or unsigned redirect (unless the portal accepts unsigned ones), and a page without a session', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot'] })
    const b = new Browser(a.t)
    const q = signedRedirect(freshMac())
    const tampered = await b.get(`/portal/${p.slug}?${qs({ ...q, mac: freshMac() })}`)
    expect(tampered.status).to.equal(403)
    expect(tampered.html).to.include('was not reached through the network')
    expect(tampered.headers.get('set-cookie')).to.equal(null)
    expect((await b.get(`/portal/${p.slug}?${qs({ mac: q.mac })}`)).status).to.equal(403)
    expect((await b.get(`/portal/${p.slug}`)).status).to.equal(403)
    expect((await b.get('/portal/no-such-portal')).status).to.equal(404)
    const aruba = await createPortal(a.t, { methods: ['hotspot'], accept_unsigned_redirect: true })
    const ok = await b.get(`/portal/${aruba.slug}?${qs({ mac: q.mac, extra: 'aruba-own' })}`)
    expect(ok.status, ok.html).to.equal(200)
    expect(await db(a.t)('portal_sessions').where({ mac: q.mac, portal_id: aruba.id }).first()).to.include({ redirect_signed: false })
  })

  it('refuses a form without the session\'s CSRF token, with another session\'s, or without the cookie', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot'] })
    const b = new Browser(a.t)
    const c = new Browser(a.t)
    const mac = freshMac()
    const page = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    const other = await c.get(`/portal/${p.slug}?${qs(signedRedirect(freshMac()))}`)
    expect((await b.post(`/portal/${p.slug}/hotspot`, { accept_terms: 'yes' })).status).to.equal(403)
    expect((await b.post(`/portal/${p.slug}/hotspot`, { accept_terms: 'yes', csrf: csrfOf(other.html) })).status).to.equal(403)
    expect((await b.post(`/portal/${p.slug}/hotspot`, { accept_terms: 'yes', csrf: 'x' + csrfOf(page.html).slice(1) })).status).to.equal(403)
    const noCookie = new Browser(a.t)
    const r = await noCookie.post(`/portal/${p.slug}/hotspot`, { accept_terms: 'yes', csrf: csrfOf(page.html) })
    expect(r.status).to.equal(401)
    expect(r.html).to.include('Your portal session is not valid')
    expect((await db(a.t)('portal_sessions').where({ mac }).first()).state).to.equal('started')
    expect(await endpointOf(a.t, mac)).to.equal(null)
  })

  it('a session cookie works only on its own portal and not once the session ended', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot'] })
    const q = await createPortal(a.t, { methods: ['hotspot'] })
    const b = new Browser(a.t)
    const mac = freshMac()
    const page = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    const foreign = await b.submit(page, `/portal/${q.slug}/hotspot`, { accept_terms: 'yes' })
    expect(foreign.status).to.equal(401)
    await db(a.t)('portal_sessions').where({ mac }).update({ state: 'ended', end_reason: 'admin' })
    expect((await b.submit(page, `/portal/${p.slug}/hotspot`, { accept_terms: 'yes' })).status).to.equal(401)
    expect((await b.get(`/portal/${p.slug}`)).status).to.equal(403)
    expect(await endpointOf(a.t, mac)).to.equal(null)
  })

  it('speaks Russian to a Russian browser, switches with ?lang= and remembers it in the session', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot', 'self_registration'], branding: { texts: { en: { title: 'Lobby' }, ru: { title: 'Вестибюль' } } } })
    const b = new Browser(a.t, 'ru-RU,ru;q=0.9')
    const ru = await b.get(`/portal/${p.slug}?${qs(signedRedirect(freshMac()))}`)
    expect(ru.html).to.include('<html lang="ru">').and.include('<h1>Вестибюль</h1>').and.include('Я принимаю условия использования')
    expect(ru.html).to.include(`href="/portal/${p.slug}?lang=en"`)
    const en = await b.get(`/portal/${p.slug}?lang=en`)
    expect(en.html).to.include('<html lang="en">').and.include('<h1>Lobby</h1>').and.include('I accept the terms of use')
    expect((await b.get(`/portal/${p.slug}`)).html, 'remembered').to.include('<html lang="en">')
  })

  it('the console\'s preview shows the landing page as a guest sees it, to holders of portal.read only', async () => {
    const p = await createPortal(a.t, { methods: ['hotspot', 'sponsored'], branding: { texts: { ru: { title: '<i>Вестибюль</i>' } } } })
    const r = await a.t.admin('GET', `/api/v1/captive-portal/portals/${p.id}/preview?lang=ru`)
    expect(r.status).to.equal(200)
    expect(r.headers.get('content-security-policy')).to.include("form-action 'self'")
    expect(r.text).to.include('<h1>&#60;i&#62;Вестибюль&#60;/i&#62;</h1>').and.include('<label for="sp-sponsor_email">')
    expect(await db(a.t)('portal_sessions').where({ portal_id: p.id })).to.have.length(0)
    const reader = await a.t.token({ permissions: ['nac.read'] })
    expect((await a.t.req('GET', `/api/v1/captive-portal/portals/${p.id}/preview`, { token: reader })).status).to.equal(403)
    expect((await a.t.admin('GET', '/api/v1/captive-portal/portals/00000000-0000-4000-8000-000000000000/preview')).status).to.equal(404)
  })

  it('escapes every portal text and shows the portal\'s colours and logo from files of its own', async () => {
    const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>"\''
    const p = await createPortal(a.t, {
      name: evil,
      methods: ['hotspot', 'self_registration'],
      self_registration_fields: [{ name: 'company', label: { en: evil }, required: false }],
      branding: { primary_colour: '#ffee00', background_colour: '</style><script>', texts: { en: { welcome: evil, terms: evil } } },
      logo: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'),
      logo_type: 'image/gif',
    })
    const b = new Browser(a.t)
    const page = await b.get(`/portal/${p.slug}?${qs(signedRedirect(freshMac()))}`)
    expect(page.status).to.equal(200)
    expect(page.html).to.not.include('<script')
    expect(page.html).to.not.include('<img src=x')
    expect(page.html).to.include('&#60;script&#62;alert(1)&#60;/script&#62;')
    expect(page.html).to.include(`<img class="logo" src="/portal/${p.slug}/logo"`)
    const theme = await b.get(`/portal/${p.slug}/theme.css`)
    expect(theme.html).to.equal(':root{--primary:#ffee00;--on-primary:#000000}\n')
    const logo = await b.get(`/portal/${p.slug}/logo`)
    expect(logo.headers.get('content-type')).to.equal('image/gif')
    expect(logo.headers.get('x-content-type-options')).to.equal('nosniff')
    const css = await b.get('/portal/assets/portal.css')
    expect(css.headers.get('content-type')).to.match(/^text\/css/)
    expect(css.html).to.include('--primary')
  })

  it('a redirect that names no portal goes to the portal of its NAS, else of its SSID; none fits: 404; a bad signature: 403', async () => {
    const tag = freshMac().slice(-5).replace(':', '')
    const byNas = await createPortal(a.t, { methods: ['hotspot'], nas_ips: ['198.51.100.7'], ssids: [`Lobby-${tag}`] })
    const bySsid = await createPortal(a.t, { methods: ['hotspot'], ssids: [`Lobby-${tag}`] })
    const b = new Browser(a.t)
    const mac = freshMac()
    const atNas = signedRedirect(mac, '198.51.100.7', `aa-bb-cc-dd-ee-ff:Lobby-${tag}`)
    const r1 = await b.get(`/portal?${qs(atNas)}`)
    expect(r1.status, r1.html).to.equal(303)
    expect(r1.headers.get('location')).to.equal(`/portal/${byNas.slug}?${qs(atNas)}`)
    // Another NAS on the same SSID: no portal lists that NAS, both list the SSID: the first by name.
    const elsewhere = signedRedirect(mac, '198.51.100.8', `aa-bb-cc-dd-ee-ff:Lobby-${tag}`)
    const r2 = await b.get(`/portal?${qs(elsewhere)}`)
    expect(r2.status).to.equal(303)
    expect(r2.headers.get('location')).to.equal(`/portal/${[byNas, bySsid].map((p) => p.name).sort()[0] === byNas.name ? byNas.slug : bySsid.slug}?${qs(elsewhere)}`)
    // The browser follows: the portal's page checks the signature again and starts the session there.
    const landed = await b.get(r1.headers.get('location')!)
    expect(landed.status).to.equal(200)
    expect(await db(a.t)('portal_sessions').where({ mac }).first()).to.include({ portal_id: byNas.id, state: 'started' })
    const nowhere = await b.get(`/portal?${qs(signedRedirect(freshMac(), '198.51.100.9', 'aa-bb-cc-dd-ee-ff:Nowhere'))}`)
    expect(nowhere.status).to.equal(404)
    expect(nowhere.html).to.include('There is no captive portal here.')
    expect((await b.get('/portal')).status, 'opened by hand: nothing says where').to.equal(404)
    const forged = { ...atNas, mac: freshMac() }
    const refused = await b.get(`/portal?${qs(forged)}`)
    expect(refused.status).to.equal(403)
    expect(refused.headers.get('location')).to.equal(null)
  })
})
