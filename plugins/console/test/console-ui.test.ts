/**
 * The console in a real browser (headless chromium) against the real server
 * on a throwaway PostgreSQL, as a person uses it: sign in (a wrong password
 * first), change the owed password (a weak one first), read the dashboard,
 * add a device (a bad address first: shown under its input, nothing made),
 * build a group tree, open a plugin's page; then in Russian by keyboard only;
 * on a tablet; a second factor; and the wait a 429 asks for. Screenshots of
 * the screens go to docs/screenshots/ (the README shows them).
 */
import { expect } from 'chai'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { runsOn, startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../../test/kit/app.js'
import { codeAt } from '../../../test/kit/mfa.js'
import { context, heading, inputError, launch, needConsole, screenshot, clearRateLimits, answerConfirm } from './browser.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const NEW_PASSWORD = 'Portcullis-Console-2026!'

async function signIn(page: Page, username: string, password: string) {
  await page.locator('input[name="username"]').fill(username)
  await page.locator('input[name="password"]').fill(password)
  await page.locator('form').getByRole('button').last().click()
}

;(runsOn('postgres') ? describe : describe.skip)('console: the admin app in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  beforeEach(() => clearRateLimits(t))
  let browser: Browser

  before(async function () {
    needConsole(this)
    t = await startTestApp({ engine: 'postgres', plugins: ['inventory', 'tacacs', 'radius', 'mfa', 'console', path.join(root, 'examples/console-pages/index.ts')] })
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  it('signs in, changes the owed password, shows the dashboard and the version in the footer', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await page.goto(t.url + '/')
    expect(await heading(page).textContent()).to.equal('Sign in')
    await screenshot(page, 'sign-in')

    await signIn(page, 'admin', 'not-the-password')
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).to.match(/password/i)

    await signIn(page, 'admin', TEST_ADMIN_PASSWORD)
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor()
    await page.locator('input[name="new_password"]').fill('short')
    await page.locator('input[name="repeat_password"]').fill('short')
    await page.getByRole('button', { name: 'Change password' }).click()
    expect(await inputError(page, 'new_password')).to.match(/12/)
    await screenshot(page, 'password-change')

    await page.locator('input[name="new_password"]').fill(NEW_PASSWORD)
    await page.locator('input[name="repeat_password"]').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
    await page.getByTestId('readiness').getByText('Healthy').waitFor()
    await page.getByTestId('system-info').getByText('postgres').waitFor()
    // Nothing was ever deployed: each daemon says so.
    await page.getByTestId('deploy-status').getByRole('row', { name: /tac_plus-ng/ }).getByText('Never deployed').waitFor()
    // The refused sign-in above is a recent failure.
    await page.getByTestId('failures').getByText('auth.login').first().waitFor()
    expect(await page.getByTestId('footer-version').textContent()).to.equal(`Portcullis ${t.app.version} · Community`)
    // The edition is a list of plugins: their versions on the footer's hover and in system info; no installation id in Community.
    expect(await page.getByTestId('footer-version').getAttribute('title')).to.include('inventory 0.1.0').and.include('hello-console 0.1.0')
    await page.getByTestId('system-info').getByRole('row', { name: /Edition/ }).getByText('Community').waitFor()
    expect(await page.getByTestId('system-info').getByText('Installation id').count()).to.equal(0)
    await screenshot(page, 'dashboard')
    // The menu offers the screens of the plugins that run: deploys (the kernel's), not the AAA policy or logs (not loaded here).
    await page.getByRole('navigation').getByRole('link', { name: 'Deploys' }).waitFor()
    expect(await page.getByRole('navigation').getByRole('link', { name: /^AAA/ }).count()).to.equal(0)
    // The new password is the one the server now takes.
    expect((await t.req('POST', '/api/v1/auth/login', { body: { username: 'admin', password: NEW_PASSWORD } })).body.access_token).to.be.a('string')

    // A device: the bad address is refused under its input and makes nothing.
    await page.getByRole('link', { name: 'Devices' }).click()
    expect(await heading(page).textContent()).to.equal('Devices')
    await page.getByRole('button', { name: 'Add device' }).click()
    await page.locator('input[name="name"]').fill('core-sw-1')
    await page.locator('input[name="address"]').fill('10.1.2.3/16')
    await page.locator('input[name="vendor"]').fill('Cisco')
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'address')).to.include('10.1.0.0/16')
    await screenshot(page, 'device-form-error')
    expect((await t.admin('GET', '/api/v1/devices')).body.total).to.equal(0)
    await page.locator('input[name="address"]').fill('10.1.2.3')
    await page.getByRole('button', { name: 'Create' }).click()
    const row = page.getByTestId('devices-table').getByRole('row', { name: /core-sw-1/ })
    await row.waitFor()
    expect(await row.textContent()).to.include('10.1.2.3/32')
    expect(await row.textContent()).to.include('Cisco')
    await screenshot(page, 'devices')

    // Groups: a site under a region, drawn as a tree.
    await page.getByRole('link', { name: 'Device groups' }).click()
    for (const [name, parent] of [['emea', null], ['paris', 'emea']] as const) {
      await page.getByRole('button', { name: 'Add group' }).click()
      await page.locator('input[name="name"]').fill(name)
      if (parent) {
        await page.getByRole('combobox', { name: 'Parent group' }).click()
        await page.getByRole('option', { name: parent }).click()
      }
      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByTestId('groups-table').getByRole('row', { name: new RegExp(name) }).waitFor()
    }
    const paris = page.getByTestId('groups-table').getByRole('row', { name: /paris/ })
    expect(await paris.getAttribute('data-level')).to.equal('2')
    expect(await paris.locator('td').first().textContent(), 'its depth said to a screen reader').to.equal('└ paris, level 2')
    await screenshot(page, 'device-groups')
    // Deleting a group that holds a subgroup: confirmed, refused by the API, said above the table, nothing removed.
    await page.getByRole('button', { name: 'Delete emea' }).click()
    await answerConfirm(page)
    const refusal = page.getByRole('alert')
    await refusal.waitFor()
    expect(await refusal.textContent()).to.include('subgroup')
    expect((await t.admin('GET', '/api/v1/device-groups')).body.total).to.equal(2)

    // The device moves into paris; the region's devices (its subtree) include it.
    await page.getByRole('link', { name: 'Devices', exact: true }).click()
    await page.getByRole('button', { name: 'Edit core-sw-1' }).click()
    await page.getByTestId('device-form').getByRole('combobox', { name: 'Group' }).click()
    await page.getByRole('option', { name: 'paris' }).click()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('devices-table').getByRole('row', { name: /core-sw-1.*paris/ }).waitFor()
    await page.getByRole('link', { name: 'Device groups' }).click()
    await page.getByRole('link', { name: 'Show the devices of emea and its subgroups' }).click()
    await page.getByTestId('devices-table').getByRole('row', { name: /core-sw-1/ }).waitFor()
    expect(new URL(page.url()).search).to.match(/^\?group=[0-9a-f-]{36}$/)
    await page.getByRole('combobox', { name: 'Filter by group (with its subgroups)' }).waitFor()

    // A plugin's page, from its own module.
    await page.getByRole('link', { name: 'Hello' }).click()
    await page.getByRole('heading', { name: 'Hello from a plugin' }).waitFor()
    await page.getByText('Devices: 1').waitFor()
    await page.context().close()
  })

  it('speaks Russian from Accept-Language, signs in by keyboard alone, and switches to English', async () => {
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await page.goto(t.url + '/devices')
    expect(await heading(page).textContent()).to.equal('Вход')
    // Focus starts in the username; Tab to the password, Enter submits.
    await page.keyboard.type('admin')
    await page.keyboard.press('Tab')
    await page.keyboard.type(NEW_PASSWORD)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Устройства', level: 1 }).waitFor()
    await page.getByTestId('devices-table').getByRole('row', { name: /core-sw-1/ }).waitFor()

    // The server's refusal, in Russian, under the input it names.
    await page.getByRole('button', { name: 'Добавить устройство' }).click()
    await page.locator('input[name="name"]').fill('CORE-SW-1')
    await page.locator('input[name="address"]').fill('10.9.9.9')
    await page.getByRole('button', { name: 'Создать' }).click()
    expect(await inputError(page, 'name')).to.include('уже существует')
    await screenshot(page, 'devices-ru')
    await page.keyboard.press('Escape')
    expect((await t.admin('GET', '/api/v1/devices')).body.total).to.equal(1)

    await page.getByText('English', { exact: true }).click()
    await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor()
    await page.context().close()
  })

  it('works on a tablet: the menu is a drawer behind a button', async () => {
    const page = await (await context(browser, { locale: 'en-US', width: 820, height: 1180 })).newPage()
    await page.goto(t.url + '/')
    await signIn(page, 'admin', NEW_PASSWORD)
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
    // The menu is off screen and out of the keyboard's reach until the button opens it.
    const devices = page.getByRole('link', { name: 'Devices' })
    expect(await devices.evaluate((el) => el.getBoundingClientRect().right <= 0 && el.closest('[inert]') !== null)).to.equal(true)
    await page.getByRole('button', { name: 'Menu' }).click()
    await page.getByRole('link', { name: 'Devices' }).click()
    await page.getByTestId('devices-table').getByRole('row', { name: /core-sw-1/ }).waitFor()
    // Following a link closes the menu: off screen and inert again (after its slide).
    await page.locator('nav[inert]').waitFor({ state: 'attached' })
    await page.waitForTimeout(500)
    await screenshot(page, 'tablet-devices')
    await page.context().close()
  })

  it('enrolls a second factor with the QR code, then asks for the code at sign-in', async () => {
    const username = 'mfa-admin'
    const r = await t.admin('POST', '/api/v1/users', { body: { username, password: NEW_PASSWORD, is_admin: true, must_change_password: false } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await page.goto(t.url + '/')
    await signIn(page, username, NEW_PASSWORD)
    await page.getByTestId('whoami').click()
    await page.getByRole('heading', { name: 'My account', level: 1 }).waitFor()
    const card = page.getByTestId('mfa-card')
    await card.getByText('Off').waitFor()
    await card.getByRole('button', { name: 'Set up' }).click()
    // The QR code is drawn (a data: image the console's CSP allows), and the seed is there to type.
    const qr = card.getByRole('img', { name: 'QR code of the authenticator seed' })
    await qr.waitFor()
    await page.waitForFunction(() => (document.querySelector('img[alt="QR code of the authenticator seed"]') as HTMLImageElement | null)?.naturalWidth! > 0)
    const secret = (await page.getByTestId('mfa-secret').textContent())!
    expect(secret).to.match(/^[A-Z2-7]{16,}$/)
    await screenshot(page, 'mfa-enrollment')
    await page.locator('input[name="code"]').fill(codeAt(secret))
    await card.getByRole('button', { name: 'Turn on' }).click()
    await card.getByText('On', { exact: true }).waitFor()
    expect((await t.admin('GET', `/api/v1/users/${r.body.id}/mfa`)).body.enrolled).to.equal(true)

    await page.getByRole('button', { name: 'Sign out' }).click()
    await signIn(page, username, NEW_PASSWORD)
    await page.getByRole('heading', { name: 'Second factor' }).waitFor()
    await page.locator('input[name="code"]').fill(String((Number(codeAt(secret, 1)) + 500_000) % 1_000_000).padStart(6, '0'))
    await page.getByRole('button', { name: 'Verify' }).click()
    expect(await inputError(page, 'code')).to.not.equal('')
    await page.locator('input[name="code"]').fill(codeAt(secret, 1))
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
    expect(await page.getByTestId('whoami').textContent()).to.equal(username)
    await page.context().close()
  })

  it('shows how long to wait when sign-ins are rate limited', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await page.goto(t.url + '/')
    const alert = page.getByRole('alert')
    for (let i = 0; i < 15; i++) {
      await signIn(page, 'admin', `wrong-${i}`)
      await alert.waitFor()
      if (/try again in \d+ s/.test((await alert.textContent()) ?? '')) break
      await page.waitForTimeout(50)
    }
    expect(await alert.textContent()).to.match(/^Too many attempts: try again in \d+ s\.$/)
    await page.context().close()
  })
})
