/**
 * The employee's (BYOD) second factor by a push to the phone, through the mfa plugin's push factor
 * and the push service (in-process, its queue sender) with a scripted phone holding a real key
 * pair: on the pages, the number shown is the one the phone asks for, an approval registers the
 * device and a denial refuses it (the token kept for another try), without script and under the
 * pages' own Content-Security-Policy; in the JSON API, each push is charged to the byod_mfa token's
 * budget before it is sent, so the spent token sends nothing; in a real browser (chromium, axe-core),
 * the pages of the push are accessible and fit a phone.
 */
import { expect } from 'chai'
import type { Browser as Chromium } from 'playwright-core'
import { CHROMIUM, context, expectAccessible, horizontalOverflow, launch } from '../../../test/kit/browser.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { ScriptedPhone, viaPushService } from '../../../test/kit/phone.js'
import { freeTcpPort, pushServerOptions, startPushService, type TestPushService } from '../../../test/kit/push.js'
import { PAGE_CSP } from '../pages/layout.js'
import { Browser, createPortal, db, endpointOf, freshMac, GuestApi, qs, signedRedirect, startPortalApp, type PortalApp } from './helpers.js'

const PASSWORD = 'Byod-Push-Lagoon-42'

describe('portal: employees (BYOD) approve on their phone', function () {
  this.timeout(180_000)
  let a: PortalApp
  let push: TestPushService
  before(async () => {
    const port = await freeTcpPort()
    push = await startPushService({ coreUrl: `http://127.0.0.1:${port}` })
    a = await startPortalApp(['nac', 'portal', 'mfa'], { env: { PORT: String(port) }, options: pushServerOptions(push) })
  })
  after(async () => {
    await a?.stop()
    await push?.close()
  })

  /** A user with a phone enrolled (as My account does it): no authenticator app, so the push is their one factor. */
  const employee = async () => {
    const username = `emp${Math.random().toString(36).slice(2, 8)}`
    const r = await a.t.admin('POST', '/api/v1/users', { body: { username, password: PASSWORD, must_change_password: false } })
    expect(r.status, r.text).to.equal(201)
    const login = await a.t.req('POST', '/api/v1/auth/login', { body: { username, password: PASSWORD } })
    const started = await a.t.req('POST', '/api/v1/mfa/push-enrollment', { token: login.body.access_token })
    expect(started.status, 'push enrollment').to.equal(200)
    const phone = new ScriptedPhone(viaPushService(push.url))
    const enrolled = await phone.enroll(started.body.uri, { name: `${username} phone` })
    expect(enrolled.status, enrolled.text).to.equal(201)
    return { id: r.body.id as string, username, phone }
  }

  const numberOf = (html: string) => /<strong data-push-number>([0-9]{2})<\/strong>/.exec(html)?.[1] ?? null

  it('on the pages: the number shown is the one the phone asks for; approved registers the device, denied refuses it', async () => {
    const p = await createPortal(a.t, { methods: ['byod'] })
    const u = await employee()

    // Denied first: the page says so, the device stays out, the form is there for another try.
    const b = new Browser(a.t)
    const mac = freshMac()
    const landing = await b.get(`/portal/${p.slug}?${qs(signedRedirect(mac))}`)
    const mfa = await b.submit(landing, `/portal/${p.slug}/login`, { username: u.username, password: PASSWORD })
    expect(mfa.status, mfa.html).to.equal(200)
    expect(mfa.html).to.include('Send a request to my phone').and.not.include('name="code"')
    const token = /name="byod_mfa_token" value="([^"]+)"/.exec(mfa.html)![1]
    const sent = await b.submit(mfa, `/portal/${p.slug}/byod-push`, { byod_mfa_token: token })
    expect(sent.status, sent.html).to.equal(200)
    const shown = numberOf(sent.html)
    expect(shown).to.match(/^[1-9][0-9]$/)
    // No script, no refresh: the pages' own policy, not the sponsor wait's.
    expect(sent.headers.get('content-security-policy')).to.equal(PAGE_CSP)
    expect(sent.html).to.not.include('<script').and.not.include('http-equiv')
    const [first] = await u.phone.pending()
    expect(first.number_matching).to.equal(true)
    expect(first.origin).to.equal('portal')
    expect((await u.phone.answer(first, 'deny', null)).body.result).to.equal('denied')
    const challenge = /name="push_challenge" value="([^"]+)"/.exec(sent.html)![1]
    const refused = await b.submit(sent, `/portal/${p.slug}/byod-push-wait`, { byod_mfa_token: token, push_challenge: challenge, number: shown! })
    expect(refused.status, refused.html).to.equal(401)
    expect(refused.html).to.include('not approved on your phone').and.include('Send a request to my phone')
    expect(await endpointOf(a.t, mac)).to.equal(null)

    // Then approved, with the number the page showed: the device is the employee's.
    const again = await b.submit(refused, `/portal/${p.slug}/byod-push`, { byod_mfa_token: token })
    const number = numberOf(again.html)!
    const [second] = await u.phone.pending()
    expect(JSON.stringify(second), 'the number never goes to the phone').to.not.include(`"${number}"`)
    expect((await u.phone.answer(second, 'approve', number)).body.result).to.equal('approved')
    const done = await b.submit(again, `/portal/${p.slug}/byod-push-wait`, {
      byod_mfa_token: token, push_challenge: /name="push_challenge" value="([^"]+)"/.exec(again.html)![1], number,
    })
    expect(done.status, done.html).to.be.oneOf([200, 303])
    const connected = done.status === 303 ? await b.get(`/portal/${p.slug}/status`) : done
    expect(connected.html).to.include('<h1>You are connected</h1>')
    expect(await endpointOf(a.t, mac)).to.include({ endpoint_group_id: p.byod_endpoint_group_id, owner_user_id: u.id })
    const audit = await db(a.t)('audit_log').where({ action: 'portal.byod_mfa_verify', resource_id: u.id }).orderBy('at')
    expect(audit.map((x: { outcome: string; reason: string | null }) => `${x.outcome}:${x.reason ?? ''}`)).to.deep.equal(['failure:mfa_push_denied', 'success:'])
  })

  it('in the API: each push is charged before it is sent; the spent token sends nothing, and a wrong number refuses', async () => {
    const p = await createPortal(a.t, { methods: ['byod'] })
    const u = await employee()
    const g = new GuestApi(a.t)
    const mac = freshMac()
    await g.start(p.slug, mac)
    const first = await g.call('POST', '/guest/login', { username: u.username, password: PASSWORD })
    expect(first.body).to.include({ status: 'mfa_required' })
    expect(first.body.factors).to.deep.equal(['push'])
    const token = first.body.byod_mfa_token as string

    const pushed = await g.call('POST', '/byod/push', { byod_mfa_token: token })
    expect(pushed.status, pushed.text).to.equal(200)
    expect(pushed.body).to.include({ status: 'push_pending' })
    const [c1] = await u.phone.pending()
    const wrong = String(((Number(pushed.body.number) - 10 + 1) % 90) + 10)
    expect((await u.phone.answer(c1, 'approve', wrong)).body.result).to.equal('wrong_number')
    const refused = await g.call('POST', '/byod/push-wait', { byod_mfa_token: token, push_challenge: pushed.body.push_challenge })
    expect(refused.status).to.equal(401)
    expect(refused.body).to.include({ code: 'BYOD_PUSH_DENIED', field: 'push_challenge' })
    expect(await endpointOf(a.t, mac)).to.equal(null)

    // Three more pushes fit the budget of five strikes (the first push was one); the fifth burns the token, unsent.
    for (let i = 0; i < 3; i++) expect((await g.call('POST', '/byod/push', { byod_mfa_token: token })).status, `push ${i + 2}`).to.equal(200)
    const before = (await u.phone.pending()).length
    const burnt = await g.call('POST', '/byod/push', { byod_mfa_token: token })
    expect(burnt.status).to.equal(401)
    expect(burnt.body.code).to.equal('BYOD_MFA_TOKEN_INVALID')
    expect((await u.phone.pending()).length, 'nothing sent with a spent token').to.equal(before)
    expect(await endpointOf(a.t, mac)).to.equal(null)
  })

  it('in a browser: the number and the button, accessible and fitting a phone, then connected once the phone approved', async function () {
    if (!CHROMIUM) skipBecause(this, 'chromium is not installed (Debian package `chromium`; .ci/run installs it)')
    const p = await createPortal(a.t, { methods: ['byod'] })
    const u = await employee()
    const chromium: Chromium = await launch()
    try {
      const page = await (await context(chromium, { locale: 'en-US', width: 375, height: 740 })).newPage()
      await page.setExtraHTTPHeaders({ 'x-forwarded-for': `10.79.1.${Math.floor(Math.random() * 250) + 1}` })
      const mac = freshMac()
      await page.goto(`${a.t.url}/portal/${p.slug}?${qs(signedRedirect(mac))}`)
      await page.fill('#emp-username', u.username)
      await page.fill('#emp-password', PASSWORD)
      await page.click('section[aria-labelledby="emp-h"] button[type=submit]')
      await page.getByRole('button', { name: 'Send a request to my phone' }).waitFor()
      await expectAccessible(page, 'the second factor with the push')
      await page.getByRole('button', { name: 'Send a request to my phone' }).click()
      const number = (await page.locator('[data-push-number]').textContent())!
      expect(number).to.match(/^[1-9][0-9]$/)
      await expectAccessible(page, 'the push wait')
      expect(await horizontalOverflow(page), 'the push wait on a phone').to.equal(0)
      const [c] = await u.phone.pending()
      expect((await u.phone.answer(c, 'approve', number)).body.result).to.equal('approved')
      await page.getByRole('button', { name: 'I approved it' }).click()
      await page.getByRole('heading', { name: 'You are connected', level: 1 }).waitFor()
      expect(await endpointOf(a.t, mac)).to.include({ owner_user_id: u.id })
    } finally {
      await chromium.close()
    }
  })
})
