/**
 * One sign-in per browser (issue 34 item 11; docs/security.md "The console's session"): the session
 * is the server's HttpOnly cookie, so every tab of the browser shares it and no script reads it.
 * In English at 1280×800 and in Russian at 768 px, each with its own user who has an authenticator:
 * - the sign-in with the password and the code, in one tab;
 * - a second tab of the same browser opened at a deep link shows that screen, no sign-in asked;
 * - the page's scripts see no token (not in document.cookie, not in sessionStorage);
 * - a sign-out in the first tab: the second tab's next request (a menu link) lands on the sign-in.
 */
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { codeAt, enroll } from '../../../test/kit/mfa.js'
import { context, heading, signInAt, browserSuite } from './browser.js'

const PASSWORD = 'Portcullis-Sessions-2026!'
const USER_PASSWORD = 'Two-Tabs-One-Sign-In-42'
const CASES = [
  { locale: 'en-US', width: 1280, user: 'tabs-en', users: 'Users', roles: 'Roles', signOut: 'Sign out', menu: 'Menu', signIn: 'Sign in' },
  { locale: 'ru-RU', width: 768, user: 'tabs-ru', users: 'Пользователи', roles: 'Роли', signOut: 'Выйти', menu: 'Меню', signIn: 'Войти' },
] as const

// A browser run is engine-independent: once per npm test, in the PostgreSQL run.
;(runsOn('postgres') ? describe : describe.skip)('console: one sign-in per browser', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  const secrets = new Map<string, string>()
  browserSuite({ plugins: ['mfa', 'console'] }, PASSWORD, (app, b) => ([t, browser] = [app, b]))
  before(async () => {
    for (const c of CASES) {
      const r = await t.admin('POST', '/api/v1/users', { body: { username: c.user, password: USER_PASSWORD, is_admin: true } })
      expect(r.status, r.text).to.equal(201)
      secrets.set(c.user, await enroll(t, c.user, USER_PASSWORD))
    }
  })

  const signInForm = (page: Page) => page.locator('input[name="username"]')

  for (const c of CASES) {
    const lang = c.locale.slice(0, 2)
    it(`keeps the sign-in for a second tab and ends it in both at the sign-out (${lang}, ${c.width} px)`, async () => {
      const ctx = await context(browser, { locale: c.locale, width: c.width, height: 800 })
      const first = await ctx.newPage()
      await signInAt(first, t.url + '/', c.user, USER_PASSWORD)
      // The code of the next step: enrolment spent the current one.
      await first.locator('input[name="code"]').fill(codeAt(secrets.get(c.user)!, 1))
      await first.locator('input[name="code"]').press('Enter')
      await first.getByRole('button', { name: c.signOut, exact: true }).waitFor()

      // A link opened in a new tab: the screen, without the sign-in.
      const second = await ctx.newPage()
      await second.goto(t.url + '/users')
      await heading(second).filter({ hasText: c.users }).waitFor()
      expect(await signInForm(second).count()).to.equal(0)
      await second.getByRole('cell', { name: c.user, exact: true }).waitFor()

      // Out of scripts' reach: the cookie is HttpOnly, and nothing is kept in the tab.
      const seen = await second.evaluate(() => ({ cookie: document.cookie, stored: Object.keys(sessionStorage).concat(Object.keys(localStorage)) }))
      expect(seen.cookie).not.to.contain('portcullis_session')
      expect(seen.stored.filter((k) => /token|session/i.test(k))).to.deep.equal([])

      // Signed out in the first tab: it shows the sign-in at once.
      await first.getByRole('button', { name: c.signOut, exact: true }).click()
      await signInForm(first).waitFor()
      // The second tab still shows its screen; its next request (a menu link) finds no session.
      if (c.width < 992) await second.getByRole('button', { name: c.menu, exact: true }).click()
      await second.getByRole('link', { name: c.roles, exact: true }).click()
      await signInForm(second).waitFor()
      await second.getByRole('button', { name: c.signIn, exact: true }).waitFor()
      await ctx.close()
    })
  }
})
