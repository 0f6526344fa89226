/**
 * The AAA policy test's answer as separate verdicts, in a real browser at
 * 1280×800, in English and in Russian: a command the profile's command set
 * denies, under a session the ruleset permits, shows Deny as the headline
 * (the command's verdict) with the session authorization's Permit beside it;
 * without a command the headline is the session's; with a login method
 * asked (the request opened from a link, as a deploy's impact opens it) the
 * authentication's verdict shows too. What the page says is compared with
 * the server's answer to the same request.
 */
import { expect } from 'chai'
import type { Browser } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { context, screenshot, signInAt, browserSuite, created } from './browser.js'

const PASSWORD = 'Portcullis-Verdicts-2026!'
const NAS = '10.8.0.1'

const LANGS = [
  { locale: 'en-US', run: 'Test', permit: 'Permit', deny: 'Deny', authentication: 'Authentication', session: 'Session authorization', command: 'Command', ofCommand: 'the command\'s verdict', ofSession: 'the session\'s verdict' },
  { locale: 'ru-RU', run: 'Проверить', permit: 'Разрешено', deny: 'Запрещено', authentication: 'Аутентификация', session: 'Авторизация сессии', command: 'Команда', ofCommand: 'решение по команде', ofSession: 'решение по сессии' },
] as const

;(runsOn('postgres') ? describe : describe.skip)('console: the policy test shows the authentication, session and command verdicts apart', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  browserSuite({ plugins: ['inventory', 'tacacs', 'aaa-policy', 'console'] }, PASSWORD, (app, b) => ([t, browser] = [app, b]))
  before(async () => {
    const make = (p: string, body: object) => created(t, p, body)
    const olga = await make('/api/v1/users', { username: 'olga', password: 'Tq-Strong-Pass-7kQ', network_login: true })
    const sw = await make('/api/v1/devices', { name: 'access-sw-8', address: `${NAS}/32`, tacacs_key: 'tacacs-key-8' })
    const set = await make('/api/v1/tacacs/command-sets', { name: 'show-not-configure', commands: [{ command: 'show', action: 'permit' }, { command: 'configure', action: 'deny' }] })
    const profile = await make('/api/v1/tacacs/profiles', { name: 'operator', privilege_level: 15, command_set_ids: [set] })
    await make('/api/v1/aaa/policy/rules', { name: 'olga-access', who: { user_id: olga }, where: { device_id: sw }, tacacs_profile_id: profile })
  })

  for (const l of LANGS) {
    const lang = l.locale.slice(0, 2)
    it(`a denied command is the headline, the session's permit beside it (${lang}, 1280×800)`, async () => {
      const request = { username: 'olga', nas_ip: NAS, protocol: 'tacacs', command: 'configure terminal' }
      const server = (await t.admin('POST', '/api/v1/aaa/policy/test', { body: request })).body
      expect(server.decision, 'the session is permitted').to.equal('permit')
      expect(server.command_decision.decision, 'the command is denied').to.equal('deny')

      const page = await (await context(browser, { locale: l.locale, width: 1280, height: 800 })).newPage()
      await signInAt(page, t.url + '/policy', 'admin', PASSWORD)
      const test = page.getByTestId('policy-test')
      await test.locator('input[name="username"]').fill('olga')
      await test.locator('input[name="nas_ip"]').fill(NAS)
      await test.locator('input[name="command"]').fill('configure terminal')
      await test.getByRole('button', { name: l.run, exact: true }).click()
      const headline = test.getByTestId('decision')
      await headline.getByText(l.deny, { exact: true }).waitFor()
      expect(await headline.getAttribute('data-of')).to.equal('command')
      await test.getByText(l.ofCommand, { exact: true }).waitFor()
      expect(await test.getByTestId('verdict-session').textContent()).to.equal(`${l.session}: ${l.permit}`)
      expect(await test.getByTestId('verdict-command').textContent()).to.equal(`${l.command}: ${l.deny}`)
      expect(await test.getByTestId('verdict-authentication').count(), 'no login method asked: no authentication verdict').to.equal(0)
      await test.getByTestId('verdicts').scrollIntoViewIfNeeded()
      await screenshot(page, `policy-test-verdicts-${lang}`)

      // A permitted command: the headline follows it.
      await test.locator('input[name="command"]').fill('show version')
      await test.getByRole('button', { name: l.run, exact: true }).click()
      await headline.getByText(l.permit, { exact: true }).waitFor()
      expect(await test.getByTestId('verdict-command').textContent()).to.equal(`${l.command}: ${l.permit}`)

      // No command: the headline is the session's, and there is no command verdict.
      await test.locator('input[name="command"]').fill('')
      await test.getByRole('button', { name: l.run, exact: true }).click()
      await test.getByText(l.ofSession, { exact: true }).waitFor()
      expect(await headline.getAttribute('data-of')).to.equal('session')
      expect(await test.getByTestId('verdict-command').count()).to.equal(0)

      // A login method asked (the request from a link, answered at once): the authentication's verdict too.
      const withLogin = { ...request, method: 'pap' }
      const answered = (await t.admin('POST', '/api/v1/aaa/policy/test', { body: withLogin })).body
      expect(answered.method).to.equal('pap')
      await page.goto(`${t.url}/policy?test=${encodeURIComponent(JSON.stringify(withLogin))}`)
      await page.getByTestId('verdict-authentication').getByText(`${l.authentication}: ${l.permit}`).waitFor()
      expect(await page.getByTestId('decision').textContent()).to.equal(l.deny)
      expect(await page.getByTestId('verdict-session').textContent()).to.equal(`${l.session}: ${l.permit}`)
      await page.context().close()
    })
  }
})
