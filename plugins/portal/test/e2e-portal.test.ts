/**
 * The captive portal end to end (issue 29, "Proven end to end"): one platform supervising the real
 * FreeRADIUS, radclient as the switch, headless Chromium as the guest. An unknown MAC's MAB gets the
 * signed redirect; the browser opens it, registers by each method (hotspot; self-registration with
 * the code read from a real SMTP listener; sponsored, the sponsor's mail link followed in a second
 * browser, approved and denied; an employee's own device with TOTP); the deploy the registration asks
 * for goes live, the CoA reaches the loopback NAS, and the next MAB lands in the guest (or BYOD) VLAN.
 * A guest whose time is up is disconnected (CoA seen) and the next MAB is the redirect again. Every
 * page passes axe-core (no serious or critical violation); screenshots are asserted: at 375 px wide
 * the page does not scroll sideways, and the portal's brand colour is in the pixels.
 */
import { expect } from 'chai'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { runsOn } from '../../../test/kit/app.js'
import { context, expectAccessible, horizontalOverflow, launch, needChromium, screenshot } from '../../../test/kit/browser.js'
import { codeAt, enroll } from '../../../test/kit/mfa.js'
import { countColour, decodePng } from '../../../test/kit/png.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { code, links } from '../../../test/kit/smtp.js'
import { has } from '../../radius/test/e2e-support.js'
import { BRAND, BYOD_VLAN, created, freshMac, GUEST_VLAN, openPortalLab, redirectOf, seenAtSwitch, SPONSOR_DOMAIN, vlanOf, type PortalLab } from './e2e-lab.js'

const EMPLOYEE_PASSWORD = 'Portal-Byod-Secret-42'
// A registration asks for a deploy (render, `freeradius -C`, restart) before its CoA goes.
const COA_WAIT = 60_000

// A browser run and a daemon run are engine-independent: once per `npm test`, in the PostgreSQL run
// (the portal's behaviour on both engines is in its API tests).
;(runsOn('postgres') ? describe : describe.skip)('portal: a guest end to end (FreeRADIUS, radclient, Chromium, SMTP, CoA)', function () {
  this.timeout(300_000)
  let lab: PortalLab
  let browser: Browser
  const contexts: BrowserContext[] = []

  before(async function () {
    needChromium(this)
    if (!has('freeradius') || !has('radclient')) skipBecause(this, 'FreeRADIUS 3.2 and radclient are needed (Debian: freeradius, freeradius-utils)')
    lab = await openPortalLab({ engine: 'postgres' })
    browser = await launch()
  })
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    await browser?.close()
    await lab?.close()
  })

  async function phone(o: { locale?: 'en-US' | 'ru-RU'; width?: number } = {}): Promise<Page> {
    const c = await context(browser, { locale: o.locale ?? 'en-US', width: o.width ?? 375, height: 740 })
    contexts.push(c)
    return c.newPage()
  }

  /** An unknown device's MAB: the registration profile, whose redirect names the portal and the session, signed. */
  async function redirected(mac: string): Promise<string> {
    const r = await lab.mab(mac)
    const url = redirectOf(r)
    expect(url, `MAB of ${mac} → ${JSON.stringify(r.attributes)}`).to.be.a('string')
    expect(vlanOf(r)).to.not.include(GUEST_VLAN)
    const u = new URL(url!)
    expect(u.origin + u.pathname).to.equal(`${lab.t.url}/portal/lobby`)
    expect(u.searchParams.get('mac')?.replace(/[^0-9a-f]/gi, '').toLowerCase()).to.equal(mac.replace(/-/g, '').toLowerCase())
    expect(u.searchParams.get('nas')).to.equal('127.0.0.1')
    expect(u.searchParams.get('sig')).to.match(/^[0-9a-f]{32,}$/)
    await lab.acctStart(mac)
    await seenAtSwitch(lab.t, mac)
    return url!
  }

  /** The page passes axe, and at phone width it does not scroll sideways (the full-page screenshot is 375 px wide). */
  async function checkPage(page: Page, what: string, shot?: string): Promise<Buffer> {
    await expectAccessible(page, what)
    expect(await horizontalOverflow(page), `${what} scrolls sideways at ${page.viewportSize()?.width} px`).to.equal(0)
    const png = await screenshot(page, shot, { fullPage: true })
    expect(decodePng(png).width, `${what}: the full page is wider than the phone`).to.equal(page.viewportSize()!.width)
    return png
  }

  /** Follows a method's link or button on the landing page. */
  async function choose(page: Page, name: RegExp): Promise<void> {
    await page.getByRole('link', { name }).or(page.getByRole('button', { name })).first().click()
  }

  /** The CoA for the MAC (arrived after `from` requests), and the next MAB's VLAN. */
  async function movedTo(mac: string, from: number, vlan: string): Promise<void> {
    const coa = await lab.nas.waitForMac(mac, { from, ms: COA_WAIT })
    expect(coa.signed).to.equal(true)
    expect(coa.code, 'a reauthenticate CoA-Request').to.equal(43)
    const next = await lab.mab(mac)
    expect(redirectOf(next), 'no redirect once registered').to.equal(null)
    expect(vlanOf(next)).to.deep.equal([vlan])
  }

  /** The portal session the admin API shows for the MAC. */
  async function sessionOf(mac: string): Promise<any> {
    const r = await lab.t.admin('GET', `/api/v1/captive-portal/sessions?mac=${encodeURIComponent(mac)}`)
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body.items[0]
  }

  const connected = (page: Page) => page.getByRole('heading', { level: 1, name: /connected|online|access/i }).waitFor()

  it('hotspot: the redirect, the branded landing page (phone width, brand colour, Russian), terms accepted, CoA, the guest VLAN', async () => {
    const mac = freshMac()
    const url = await redirected(mac)
    const page = await phone()
    const landing = await page.goto(url)
    expect(landing?.status()).to.equal(200)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.include('Lobby Wi-Fi')
    const png = await checkPage(page, 'the landing page', 'portal-landing')
    expect(countColour(decodePng(png), BRAND), `the brand colour ${BRAND} in the landing page`).to.be.greaterThan(300)

    // The guest's browser language picks the texts; the switch link changes it.
    const ru = await phone({ locale: 'ru-RU' })
    await ru.goto(url)
    expect(await ru.locator('html').getAttribute('lang')).to.equal('ru')
    expect(await ru.getByRole('heading', { level: 1 }).textContent()).to.include('Wi-Fi в холле')
    await checkPage(ru, 'the landing page in Russian', 'portal-landing-ru')
    await ru.getByRole('link', { name: /english/i }).click()
    expect(await ru.locator('html').getAttribute('lang')).to.equal('en')

    const from = lab.nas.received.length
    await choose(page, /hotspot|free|internet/i)
    const terms = page.getByRole('checkbox')
    if (await terms.count()) await terms.first().check()
    await checkPage(page, 'the hotspot page')
    await page.getByRole('button', { name: /accept|connect|continue/i }).first().click()
    await connected(page)
    await checkPage(page, 'the connected page', 'portal-connected')
    await movedTo(mac, from, GUEST_VLAN)
    expect(await sessionOf(mac)).to.include({ state: 'active', method: 'hotspot' })
  })

  it('a redirect whose MAC was changed is refused: no session, no registration', async () => {
    const mac = freshMac()
    const url = new URL(await redirected(mac))
    const other = freshMac()
    url.searchParams.set('mac', other)
    const page = await phone()
    const r = await page.goto(url.toString())
    expect(r?.status()).to.be.within(400, 499)
    await expectAccessible(page, 'the refusal page')
    expect(await sessionOf(other)).to.equal(undefined)
  })

  it('self-registration: name and e-mail, the code read from the mail, CoA, the guest VLAN', async () => {
    const mac = freshMac()
    const url = await redirected(mac)
    const page = await phone()
    await page.goto(url)
    await choose(page, /regist/i)
    await page.getByLabel(/name/i).first().fill('Grace <b>Hopper</b>')
    await page.getByLabel(/e-?mail/i).fill('grace@visitor.example')
    await checkPage(page, 'the self-registration form')
    await page.getByRole('button', { name: /send|register|continue/i }).first().click()
    const mail = await lab.smtp.take('grace@visitor.example', 15_000)
    await page.getByLabel(/code/i).waitFor()
    await checkPage(page, 'the code form')
    const from = lab.nas.received.length
    await page.getByLabel(/code/i).fill(code(mail))
    await page.getByRole('button', { name: /verify|confirm|continue/i }).first().click()
    await connected(page)
    await movedTo(mac, from, GUEST_VLAN)
    expect(await sessionOf(mac)).to.include({ state: 'active', method: 'self_registration' })
  })

  async function askSponsor(mac: string, guest: { name: string; email: string }, sponsor: string): Promise<{ page: Page; link: string }> {
    const page = await phone()
    await page.goto(await redirected(mac))
    await choose(page, /sponsor/i)
    await page.getByLabel(/your name|^name/i).first().fill(guest.name)
    await page.getByLabel(/your e-?mail|^e-?mail/i).first().fill(guest.email)
    await page.getByLabel(/sponsor/i).fill(sponsor)
    await checkPage(page, 'the sponsor form')
    await page.getByRole('button', { name: /ask|send|request|continue/i }).first().click()
    await page.getByText(/wait|sponsor/i).first().waitFor()
    await checkPage(page, 'the waiting page')
    const mail = await lab.smtp.take(sponsor, 15_000)
    expect(mail.text).to.include(guest.name)
    const link = links(mail).find((l) => l.includes('/captive-portal/sponsor/callback'))
    expect(link, mail.text).to.be.a('string')
    expect(link!.startsWith(lab.t.url)).to.equal(true)
    return { page, link: link! }
  }

  it('sponsored, approved: the sponsor mail read from SMTP, its link opened in the sponsor\'s browser, approve; the guest\'s page proceeds; CoA, the guest VLAN', async () => {
    const mac = freshMac()
    const { page, link } = await askSponsor(mac, { name: 'Ada Lovelace', email: 'ada@visitor.example' }, `host@${SPONSOR_DOMAIN}`)
    const sponsor = await phone({ width: 1024 })
    await sponsor.goto(link)
    await sponsor.getByText('Ada Lovelace').first().waitFor()
    await checkPage(sponsor, 'the sponsor\'s decision page', 'portal-sponsor')
    const from = lab.nas.received.length
    await sponsor.getByRole('button', { name: /approve/i }).click()
    await sponsor.getByText(/approved/i).first().waitFor()
    // The guest's page refreshes itself (meta refresh) until the decision.
    await connected(page)
    await movedTo(mac, from, GUEST_VLAN)
    expect(await sessionOf(mac)).to.include({ state: 'active', method: 'sponsored' })
    // The link is spent: no second decision.
    const again = await sponsor.goto(link)
    expect(again?.status()).to.be.oneOf([404, 409, 410])
    expect(await sponsor.getByRole('button', { name: /approve|deny/i }).count()).to.equal(0)
  })

  it('sponsored, denied: the guest\'s page says so, no CoA, the next MAB is still the redirect', async () => {
    const mac = freshMac()
    const { page, link } = await askSponsor(mac, { name: 'Mallory', email: 'mallory@visitor.example' }, `host@${SPONSOR_DOMAIN}`)
    const sponsor = await phone({ width: 1024 })
    await sponsor.goto(link)
    const from = lab.nas.received.length
    await sponsor.getByRole('button', { name: /deny/i }).click()
    await sponsor.getByText(/denied/i).first().waitFor()
    await page.getByText(/denied|declined|not approved/i).first().waitFor({ timeout: 30_000 })
    await checkPage(page, 'the denied page')
    expect((await sessionOf(mac)).state).to.equal('denied')
    await new Promise((r) => setTimeout(r, 2000))
    expect(lab.nas.received.slice(from).map((c) => String(c.attributes['Calling-Station-Id']).replace(/[^0-9a-f]/gi, '').toLowerCase())).to.not.include(mac.replace(/-/g, '').toLowerCase())
    expect(redirectOf(await lab.mab(mac))).to.be.a('string')
  })

  it('BYOD: an employee signs in, TOTP through the byod_mfa step, the device is theirs; CoA, the BYOD VLAN', async () => {
    const user = await created(lab.t, '/api/v1/users', { username: 'dana', password: EMPLOYEE_PASSWORD, email: 'dana@example.test', network_login: true, must_change_password: false })
    const secret = await enroll(lab.t, 'dana', EMPLOYEE_PASSWORD)
    const mac = freshMac()
    const page = await phone()
    await page.goto(await redirected(mac))
    await choose(page, /employee|staff|own device|sign in/i)
    await page.getByLabel(/user ?name/i).fill('dana')
    await page.getByLabel(/password/i).fill(EMPLOYEE_PASSWORD)
    await checkPage(page, 'the employee sign-in')
    await page.getByRole('button', { name: /sign in|log in|continue/i }).first().click()
    await page.getByLabel(/code/i).waitFor()
    await checkPage(page, 'the TOTP step')
    const from = lab.nas.received.length
    // The enrollment spent the current step's code; the next one is in the accepted window.
    await page.getByLabel(/code/i).fill(codeAt(secret, 1))
    await page.getByRole('button', { name: /verify|confirm|continue/i }).first().click()
    await connected(page)
    await movedTo(mac, from, BYOD_VLAN)
    const endpoint = (await lab.t.admin('GET', `/api/v1/nac/endpoints?mac=${encodeURIComponent(mac)}`)).body.items[0]
    expect(endpoint).to.include({ endpoint_group_id: lab.byodGroupId, owner_user_id: user.id })
    expect(await sessionOf(mac)).to.include({ state: 'active', method: 'byod' })
  })

  it('expiry: a guest whose time runs out is disconnected (the CoA seen) and the next MAB is the redirect again', async () => {
    const mac = freshMac()
    const page = await phone()
    await page.goto(await redirected(mac))
    let from = lab.nas.received.length
    await choose(page, /hotspot|free|internet/i)
    const terms = page.getByRole('checkbox')
    if (await terms.count()) await terms.first().check()
    await page.getByRole('button', { name: /accept|connect|continue/i }).first().click()
    await connected(page)
    await movedTo(mac, from, GUEST_VLAN)

    // The guest's time runs out now rather than in an hour; the expiry job (every 30 s) does the rest.
    const session = await sessionOf(mac)
    await lab.t.app.db.knex('portal_sessions').where({ id: session.id }).update({ expires_at: new Date(Date.now() - 1000) })
    from = lab.nas.received.length
    const coa = await lab.nas.waitForMac(mac, { from, ms: 90_000 })
    expect(coa.signed).to.equal(true)
    expect(coa.code, 'a Disconnect-Request').to.equal(40)
    expect(redirectOf(await lab.mab(mac)), 'the redirect again').to.be.a('string')
    expect(await sessionOf(mac)).to.include({ state: 'expired' })
    const endpoint = (await lab.t.admin('GET', `/api/v1/nac/endpoints?mac=${encodeURIComponent(mac)}`)).body.items[0]
    expect(endpoint.endpoint_group_id).to.equal(null)
  })
})
