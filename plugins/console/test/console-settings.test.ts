/**
 * The settings screen (ui/src/pages/Settings.tsx, SettingsSection.tsx, SettingField.tsx) in a browser, at
 * 1280×800 in English and at 768 px in Russian, with the plugins of device administration, MFA and an
 * example third-party plugin (whose setting the console has no words for):
 * - the sections a network engineer reads, in the screen's language, the third-party one by its plugin;
 * - the search narrows to the settings whose label, key or description match, in the screen's language;
 * - a change marks its section unsaved; leaving by a link asks in the console's dialog (Cancel stays, the
 *   typed values kept), so does the header's sign-out (Cancel keeps the session and the values), a reload
 *   asks through beforeunload, and "leave" leaves;
 * - one save per section: a bad value refused under its input while the section's valid change is saved,
 *   then fixed and saved; a reload shows the saved values;
 * - "back to the default" only on a setting whose value differs from its default;
 * - axe-core finds nothing serious or critical on the screen, a section open with changes.
 */
import { expect } from 'chai'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { expectAccessible, horizontalOverflow } from '../../../test/kit/browser.js'
import { answerConfirm, context, inputError, screenshot, signInAt, browserSuite } from './browser.js'

const PASSWORD = 'Portcullis-Settings-2026!'
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'console', path.join(ROOT, 'examples/greetings-plugin')]
const SECTIONS = ['signIn', 'lockout', 'directory', 'mfa', 'mail', 'tacacs', 'radius', 'logs', 'deploys', 'policy', 'plugin:greetings']
const SMTP = ['mail.smtp_host', 'mail.smtp_port', 'mail.smtp_tls', 'mail.smtp_user', 'mail.smtp_password']

const CASES = [
  { locale: 'en-US', width: 1280, title: 'Settings', mail: 'Mail', greetings: 'Plugin greetings', sender: 'sender', leave: 'Leave without saving?', signOut: 'Sign out without saving?', unsaved: (n: number) => `${n} unsaved`, save: 'Save Mail', saved: '1 setting saved.', reset: 'Back to the default' },
  { locale: 'ru-RU', width: 768, title: 'Настройки', mail: 'Почта', greetings: 'Модуль greetings', sender: 'отправител', leave: 'Уйти без сохранения?', signOut: 'Выйти без сохранения?', unsaved: (n: number) => `не сохранено: ${n}`, save: 'Сохранить: Почта', saved: 'Сохранено настроек: 1.', reset: 'Вернуть значение по умолчанию' },
] as const

// A browser run is engine-independent: once per npm test, in the PostgreSQL run.
;(runsOn('postgres') ? describe : describe.skip)('console: settings in sections, searched, saved a section at a time', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  browserSuite({ plugins: PLUGINS, env: { TAC_PLUS_NG: '/nonexistent/sbin/tac_plus-ng' }, settings: { 'aaa-logs.ingest_enabled': false } }, PASSWORD, (app, b) => ([t, browser] = [app, b]))

  const setting = async (key: string) => (await t.admin('GET', `/api/v1/settings/${key}`)).body.value
  const section = (page: Page, id: string) => page.locator(`[data-settings-section="${id}"]`)
  const input = (page: Page, key: string) => page.locator(`input[name="${key}"]`)
  const shownKeys = (page: Page) => page.locator('[data-setting]').evaluateAll((els) => els.map((e) => e.getAttribute('data-setting')))
  const unsavedBadge = (page: Page, id: string) => section(page, id).locator('[data-unsaved-badge]')

  for (const c of CASES) {
    const lang = c.locale.slice(0, 2)
    it(`shows sections, searches, warns on leaving and saves a section (${lang}, ${c.width} px)`, async () => {
      for (const [key, value] of [['mail.smtp_port', 587], ['mail.from', 'portcullis@localhost']] as const) expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status).to.equal(200)
      const page = await (await context(browser, { locale: c.locale, width: c.width, height: 800 })).newPage()
      await signInAt(page, t.url + '/settings', 'admin', PASSWORD)
      await page.getByRole('heading', { name: c.title, level: 1 }).waitFor()

      // The sections, in the engineer's words; the example plugin's by its name.
      await section(page, 'mail').waitFor()
      expect(await page.locator('[data-settings-section]').evaluateAll((els) => els.map((e) => e.getAttribute('data-settings-section')))).to.deep.equal(SECTIONS)
      expect(await section(page, 'mail').locator('button').first().textContent()).to.contain(c.mail)
      expect(await section(page, 'plugin:greetings').locator('button').first().textContent()).to.contain(c.greetings)
      expect(await horizontalOverflow(page)).to.equal(0)

      // The search narrows: by key, then by a word of a label in the screen's language; cleared, all come back.
      const search = page.getByTestId('settings-search')
      await search.fill('smtp')
      await page.waitForFunction(() => document.querySelectorAll('[data-settings-section]').length === 1)
      expect(await shownKeys(page)).to.deep.equal(SMTP)
      await search.fill(c.sender)
      await page.waitForFunction(() => document.querySelectorAll('[data-setting]').length === 1)
      expect(await shownKeys(page)).to.deep.equal(['mail.from'])
      await search.fill('')
      await page.waitForFunction((n) => document.querySelectorAll('[data-settings-section]').length === n, SECTIONS.length)

      // A change marks its section (Mail stayed open from the search) and that section only.
      await input(page, 'mail.smtp_port').fill('70000')
      await input(page, 'mail.from').fill('noc@example.org')
      await unsavedBadge(page, 'mail').filter({ hasText: c.unsaved(2) }).waitFor()
      expect(await page.locator('[data-settings-section][data-unsaved]').count()).to.equal(1)
      if (lang === 'en') {
        await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded()
        await screenshot(page, 'settings-sections')
      }
      await expectAccessible(page, `the settings screen, a section open with changes (${lang})`, ['main'])

      // Leaving by a link asks; Cancel stays with what was typed.
      await page.getByTestId('whoami').click()
      expect(await answerConfirm(page, 'cancel')).to.contain(c.leave).and.contain(c.mail)
      expect(new URL(page.url()).pathname).to.equal('/settings')
      expect(await input(page, 'mail.smtp_port').inputValue()).to.equal('70000')

      // The header's sign-out asks too, worded as a sign-out; Cancel keeps the session (the save below
      // goes through it) and what was typed.
      await page.getByTestId('sign-out').click()
      const signOutAsked = await answerConfirm(page, 'cancel')
      expect(signOutAsked).to.contain(c.signOut).and.contain(c.mail)
      expect(new URL(page.url()).pathname).to.equal('/settings')
      expect(await input(page, 'mail.from').inputValue()).to.equal('noc@example.org')
      await page.getByTestId('whoami').waitFor()

      // One save for the section: the bad port refused under its input, the valid sender saved.
      await section(page, 'mail').getByRole('button', { name: c.save }).click()
      const refused = await inputError(page, 'mail.smtp_port')
      expect(refused).to.not.equal('')
      if (lang === 'ru') expect(refused).to.match(/[а-яё]/i)
      await unsavedBadge(page, 'mail').filter({ hasText: c.unsaved(1) }).waitFor()
      expect(await setting('mail.from')).to.equal('noc@example.org')
      expect(await setting('mail.smtp_port')).to.equal(587)
      expect(await page.locator('[data-setting="mail.from"][data-changed]').count()).to.equal(0)

      // Fixed and saved: nothing unsaved; a reload shows the saved values.
      await input(page, 'mail.smtp_port').fill('2525')
      await section(page, 'mail').getByRole('button', { name: c.save }).click()
      await section(page, 'mail').getByRole('status').filter({ hasText: c.saved }).waitFor()
      expect(await unsavedBadge(page, 'mail').count()).to.equal(0)
      expect(await setting('mail.smtp_port')).to.equal(2525)
      await page.reload()
      await section(page, 'mail').locator('button').first().click()
      expect(await input(page, 'mail.smtp_port').inputValue()).to.equal('2525')
      expect(await input(page, 'mail.from').inputValue()).to.equal('noc@example.org')

      // Back to the default: on the port (2525, not 587), not on the encryption (its default).
      const resetOf = (key: string) => page.locator(`[data-setting="${key}"] [data-reset]`)
      expect(await resetOf('mail.smtp_port').textContent()).to.equal(c.reset)
      expect(await resetOf('mail.smtp_tls').count()).to.equal(0)
      await resetOf('mail.smtp_port').click()
      expect(await input(page, 'mail.smtp_port').inputValue()).to.equal('587')
      expect(await resetOf('mail.smtp_port').count()).to.equal(0)
      await unsavedBadge(page, 'mail').filter({ hasText: c.unsaved(1) }).waitFor()

      // A reload with that change unsaved asks through the browser (beforeunload); accepted, it reloads.
      const asked = new Promise<string>((resolve) => page.once('dialog', (d) => {
        resolve(d.type())
        void d.accept()
      }))
      await page.reload()
      expect(await asked).to.equal('beforeunload')
      await section(page, 'mail').locator('button').first().click()
      expect(await input(page, 'mail.smtp_port').inputValue()).to.equal('2525')

      // Changed again, "leave" leaves without saving.
      await input(page, 'mail.smtp_port').fill('2600')
      await page.getByTestId('whoami').click()
      await answerConfirm(page, 'confirm')
      await page.waitForFunction(() => location.pathname === '/account')
      expect(await setting('mail.smtp_port')).to.equal(2525)
      await page.context().close()
    })
  }
})
