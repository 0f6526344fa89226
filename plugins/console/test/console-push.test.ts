/**
 * The push factor in the console, in a real browser (headless chromium) against the real server on
 * a throwaway PostgreSQL, the push service in-process (its queue sender for the push networks) and
 * scripted phones holding real key pairs: a user adds a phone from My account (the QR code's link
 * read from the page, enrolled by the phone through the push service), sees it listed, renames and
 * removes it; a user signs in by approving on the phone, the number the page shows being the one
 * the phone is asked for; an administrator removes a user's phone from the user dialog.
 */
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import type { AxeResults } from 'axe-core'
import { axe, describeViolations } from '../../../test/kit/browser.js'
import { ScriptedPhone, viaPushService } from '../../../test/kit/phone.js'
import { freeTcpPort, pushServerOptions, startPushService, type TestPushService } from '../../../test/kit/push.js'
import { startSmtp } from '../../../test/kit/smtp.js'
import { context, heading, launch, needConsole, screenshot, signInAt, startWithAdmin, clearRateLimits, answerConfirm } from './browser.js'

const PASSWORD = 'Portcullis-Push-2026!'

/**
 * axe-core (test/kit/browser.ts) over the parts this file is about (by test id): fails on any
 * serious or critical violation inside them. The rest of the screen is the other suites' concern.
 */
async function expectAccessible(page: Page, what: string, testIds: string[]): Promise<void> {
  await axe(page)
  const include = testIds.map((id) => [`[data-testid="${id}"]`])
  const results = (await page.evaluate(
    (inc) => (window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<unknown> } }).axe.run({ include: inc }, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }),
    include,
  )) as AxeResults
  const grave = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  if (grave.length > 0) expect.fail(`accessibility of ${what}: ${grave.length} serious or critical violation(s):\n${describeViolations(grave)}`)
}
const USER_PASSWORD = 'Godwit-Strong-Pass-42x'

;(runsOn('postgres') ? describe : describe.skip)('console: push sign-in (phones, QR enrollment, number matching) in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  let push: TestPushService
  let browser: Browser
  beforeEach(() => clearRateLimits(t))

  before(async function () {
    needConsole(this)
    // The core must know the push service at boot, and the service the core: the core's port first.
    const port = await freeTcpPort()
    push = await startPushService({ coreUrl: `http://127.0.0.1:${port}` })
    t = await startWithAdmin({ engine: 'postgres', plugins: ['mfa', 'console'], env: { PORT: String(port) }, options: pushServerOptions(push) }, PASSWORD)
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await push?.close()
  })

  const user = async (username: string) => {
    const r = await t.admin('POST', '/api/v1/users', { body: { username, password: USER_PASSWORD, must_change_password: false } })
    expect(r.status, r.text).to.equal(201)
    return r.body.id as string
  }
  const sessionOf = async (username: string) => {
    const r = await t.req('POST', '/api/v1/auth/login', { body: { username, password: USER_PASSWORD } })
    expect(r.status, r.text).to.equal(200)
    return r.body.access_token as string
  }
  /** A phone enrolled through the API, as My account would do it. */
  const phoneOf = async (username: string, name: string) => {
    const token = await sessionOf(username)
    const started = await t.req('POST', '/api/v1/mfa/push-enrollment', { token })
    expect(started.status, 'push enrollment').to.equal(200)
    const phone = new ScriptedPhone(viaPushService(push.url))
    const enrolled = await phone.enroll(started.body.uri, { name })
    expect(enrolled.status, enrolled.text).to.equal(201)
    return phone
  }
  const signIn = (page: Page, username: string, password = USER_PASSWORD) => signInAt(page, t.url + '/', username, password)

  it('adds a phone from My account by its QR code, lists it, renames and removes it', async () => {
    const id = await user('grace')
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, 'grace')
    await page.getByTestId('whoami').click()
    await page.getByRole('heading', { name: 'My account', level: 1 }).waitFor()
    const card = page.getByTestId('mfa-card')
    await card.getByText('No phone is enrolled.').waitFor()
    await card.getByRole('button', { name: 'Add a phone' }).click()
    // The QR code is drawn (a data: image the console's CSP allows); the link it holds is beside it.
    await card.getByRole('img', { name: 'QR code to enroll a phone' }).waitFor()
    await page.waitForFunction(() => (document.querySelector('img[alt="QR code to enroll a phone"]') as HTMLImageElement | null)?.naturalWidth! > 0)
    const uri = (await page.getByTestId('push-uri').textContent())!
    expect(uri).to.match(/^portcullis-push:\/\/enroll\?v=1&url=[^&]+&token=[A-Za-z0-9_-]{43}$/)
    expect(decodeURIComponent(new URL(uri.replace('portcullis-push:', 'https:')).searchParams.get('url')!)).to.equal(push.url)
    await card.getByText(/^Valid until /).waitFor()
    await expectAccessible(page, 'My account with a QR code', ['mfa-push', 'mfa-factors'])
    await screenshot(page, 'push-enrollment')

    const phone = new ScriptedPhone(viaPushService(push.url))
    const enrolled = await phone.enroll(uri, { name: 'Pixel of Grace' })
    expect(enrolled.status, enrolled.text).to.equal(201)
    // The list asks again while the QR code shows: the phone appears without a reload.
    const devices = page.getByTestId('push-devices')
    await devices.getByRole('cell', { name: 'Pixel of Grace', exact: true }).waitFor()
    await card.getByRole('button', { name: 'Done' }).click()

    await devices.getByRole('button', { name: 'Rename: Pixel of Grace' }).click()
    await devices.locator('input[name="device_name"]').fill('Work phone')
    await devices.getByRole('button', { name: 'Save' }).click()
    await devices.getByRole('cell', { name: 'Work phone', exact: true }).waitFor()
    await devices.getByRole('status').filter({ hasText: 'The phone is renamed.' }).waitFor()
    // The server holds what the page says (asked as an administrator: grace's sign-in now wants her phone).
    const listed = await t.admin('GET', `/api/v1/users/${id}/mfa/push-devices`)
    expect(listed.body.items.map((d: { name: string }) => d.name)).to.deep.equal(['Work phone'])

    await devices.getByRole('button', { name: 'Remove: Work phone' }).click()
    await answerConfirm(page)
    await devices.getByText('No phone is enrolled.').waitFor()
    expect((await t.admin('GET', `/api/v1/users/${id}/mfa/push-devices`)).body.items).to.deep.equal([])
    await page.context().close()
  })

  it('signs in with a recovery code when the phone is lost, then makes a new set on My account, shown once', async () => {
    await user('rupert')
    const session = await sessionOf('rupert')
    await phoneOf('rupert', 'Rupert phone')
    const made = await t.req('POST', '/api/v1/mfa/recovery-codes', { token: session })
    expect(made.status, made.text).to.equal(200)
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, 'rupert')
    await page.getByRole('heading', { name: 'Second factor' }).waitFor()
    await page.getByRole('button', { name: 'Lost your phone? Use a recovery code' }).click()
    await page.getByLabel('Recovery code').fill('0000-0000-0000-0000')
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.getByText(/recovery code is wrong or was already used/).waitFor()
    await page.getByLabel('Recovery code').fill(made.body.codes[0].toLowerCase())
    await page.getByRole('button', { name: 'Verify' }).click()
    await heading(page).filter({ hasText: 'Dashboard' }).waitFor()
    expect(await page.getByTestId('whoami').textContent()).to.equal('rupert')

    await page.getByTestId('whoami').click()
    const section = page.getByTestId('mfa-recovery')
    await section.getByText('Codes left: 9').waitFor()
    await section.getByRole('button', { name: 'Make a new set (voids the old one)' }).click()
    const shown = ((await section.getByTestId('recovery-codes').textContent()) ?? '').trim().split('\n')
    expect(shown).to.have.length(10)
    for (const c of shown) expect(c).to.match(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/)
    await section.getByText('Codes left: 10').waitFor()
    await expectAccessible(page, 'My account with new recovery codes', ['mfa-recovery'])
    await section.getByRole('button', { name: 'Hide' }).click()
    expect(await section.getByTestId('recovery-codes').count(), 'shown once: gone once hidden').to.equal(0)
    const login = await t.req('POST', '/api/v1/auth/login', { body: { username: 'rupert', password: USER_PASSWORD } })
    const old = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: login.body.mfa_token, recovery_code: made.body.codes[1] } })
    expect(old.body.code, 'the new set voided the old one').to.equal('MFA_RECOVERY_CODE_INVALID')
    await page.context().close()
  })

  it('signs in by approving on the phone: the number the page shows is the one the phone asks for', async () => {
    await user('heidi')
    const phone = await phoneOf('heidi', 'Heidi phone')
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, 'heidi')
    await page.getByRole('heading', { name: 'Second factor' }).waitFor()
    await page.getByRole('button', { name: 'Send a push to my phone' }).click()
    await page.getByRole('heading', { name: 'Approve on your phone' }).waitFor()
    const number = (await page.getByTestId('push-number').textContent())!
    expect(number).to.match(/^[1-9][0-9]$/)
    await expectAccessible(page, 'the sign-in waiting for the phone', ['push-wait'])
    await screenshot(page, 'push-sign-in')

    const [challenge] = await phone.pending()
    expect(challenge.number_matching).to.equal(true)
    expect(challenge.context.username).to.equal('heidi')
    expect(JSON.stringify(challenge), 'the number never goes to the phone').to.not.include(`"${number}"`)
    // The page polls with the challenge; the phone answers with the number it read on the page.
    expect((await phone.answer(challenge, 'approve', number)).body.result).to.equal('approved')
    await heading(page).filter({ hasText: 'Dashboard' }).waitFor()
    expect(await page.getByTestId('whoami').textContent()).to.equal('heidi')
    await page.context().close()
  })

  it('an administrator removes a user\'s phone from the user dialog, and it can no longer approve', async () => {
    const id = await user('ivan')
    const phone = await phoneOf('ivan', 'Ivan phone')
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    const asked: string[] = []
    await signInAt(page, t.url + '/users', 'admin', PASSWORD)
    await page.getByTestId('users-table').locator('tr[data-user="ivan"]').getByRole('button', { name: 'Edit ivan' }).click()
    const devices = page.getByTestId('user-push-devices')
    await devices.getByRole('cell', { name: 'Ivan phone', exact: true }).waitFor()
    await expectAccessible(page, 'the user dialog with a phone', ['user-push-devices'])
    await devices.getByRole('button', { name: 'Remove: Ivan phone' }).click()
    asked.push(await answerConfirm(page))
    expect(asked.at(-1)).to.include('Remove the phone Ivan phone?')
    await devices.getByText('No phone is enrolled.').waitFor()
    expect((await t.admin('GET', `/api/v1/users/${id}/mfa/push-devices`)).body.items).to.deep.equal([])
    // The removed phone's key is refused by the core, through the push service.
    expect((await phone.request('GET', '/v1/device')).status).to.equal(401)
    await page.context().close()
  })

  it('enrolls a phone from the mailed setup page, signed out, then signs in by approving on it', async () => {
    const smtp = await startSmtp()
    try {
      for (const [key, value] of Object.entries({ 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none', 'identity.public_url': t.url })) {
        const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
        expect(r.status, r.text).to.equal(200)
      }
      const made = await t.admin('POST', '/api/v1/users', { body: { username: 'judy', password: USER_PASSWORD, email: 'judy@example.org', must_change_password: false } })
      expect(made.status, made.text).to.equal(201)
      expect((await t.admin('POST', `/api/v1/users/${made.body.id}/mfa/enrollment-link`)).status).to.equal(202)
      const mail = await smtp.take('judy@example.org')
      const link = new RegExp(`${t.url.replace(/[.]/g, '\\.')}/mfa/setup#token=\\S+`).exec(mail.text)?.[0]
      expect(link, mail.text).to.be.a('string')

      const page = await (await context(browser, { locale: 'en-US' })).newPage()
      await page.goto(link!)
      await heading(page).filter({ hasText: 'Set up two-factor sign-in' }).waitFor()
      await page.getByRole('button', { name: 'Add a phone' }).click()
      const uri = (await page.getByTestId('push-uri').textContent())!
      await page.getByText('Once your phone says it is enrolled').waitFor()
      const phone = new ScriptedPhone(viaPushService(push.url))
      const enrolled = await phone.enroll(uri, { name: 'Judy phone' })
      expect(enrolled.status, enrolled.text).to.equal(201)
      expect(enrolled.body.username).to.equal('judy')

      // The phone is judy's: her sign-in pushes to it, and its approval with the page's number signs her in.
      phone.behave('approve', async () => (await page.getByTestId('push-number').textContent()) ?? null)
      try {
        await signIn(page, 'judy')
        await page.getByRole('button', { name: 'Send a push to my phone' }).click()
        await heading(page).filter({ hasText: 'Dashboard' }).waitFor()
      } finally {
        await phone.stop()
      }
      expect(phone.answered.map((a) => a.result)).to.deep.equal(['approved'])
      expect(await page.getByTestId('whoami').textContent()).to.equal('judy')
      await page.context().close()
    } finally {
      await t.admin('PUT', '/api/v1/settings/identity.public_url', { body: { value: null } })
      await smtp.stop()
    }
  })
})
