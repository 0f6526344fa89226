/**
 * The console's end-to-end tests: the browser comes from the test kit (test/kit/browser.ts:
 * Debian's `chromium` through playwright-core); here what is the console's own (its build,
 * the first sign-in, Mantine's inputs).
 */
import { expect } from 'chai'
import { execSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Locator, Page } from 'playwright-core'
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp, type TestAppOptions } from '../../../test/kit/app.js'
import { needChromium } from '../../../test/kit/browser.js'
import { uiIsStale } from '../../../ui/scripts/ensure-built.js'

export { CHROMIUM, context, launch, SCREENSHOTS } from '../../../test/kit/browser.js'
import { screenshot as kitScreenshot } from '../../../test/kit/browser.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

/**
 * What every console suite does first: skip (saying why) without chromium,
 * and build the console when its sources are newer than the build, so the
 * browser is shown the code under test.
 */
export function needConsole(ctx: Mocha.Context): void {
  needChromium(ctx)
  if (uiIsStale()) execSync('npm run --silent build:ui', { cwd: ROOT, stdio: 'inherit' })
}

/** The server with `admin`'s first password already changed to `password` (the first sign-in asks for it). */
export async function startWithAdmin(o: TestAppOptions, password: string): Promise<TestApp> {
  const t = await startTestApp(o)
  const login = await t.req('POST', '/api/v1/auth/login', { body: { username: 'admin', password: TEST_ADMIN_PASSWORD } })
  const changed = await t.req('POST', '/api/v1/auth/change-password', { token: login.body.password_change_token, body: { current_password: TEST_ADMIN_PASSWORD, new_password: password } })
  expect(changed.status, changed.text).to.equal(200)
  return t
}

/** Opens `url` (the sign-in form shows) and signs in with Enter in the password input. */
export async function signInAt(page: Page, url: string, username: string, password: string): Promise<void> {
  await page.goto(url)
  await page.locator('input[name="username"]').fill(username)
  await page.locator('input[name="password"]').fill(password)
  await page.locator('input[name="password"]').press('Enter')
}

/** The viewport, written to docs/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await kitScreenshot(page, name)
}

/** The error text an input shows (Mantine links it with aria-describedby), once the input is marked invalid. */
export async function inputError(page: Page, name: string): Promise<string> {
  const input = page.locator(`[name="${name}"][aria-invalid="true"]`)
  await input.waitFor()
  const ids = (await input.getAttribute('aria-describedby')) ?? ''
  const texts = await Promise.all(ids.split(/\s+/).filter((id) => id.endsWith('-error')).map((id) => page.locator(`[id="${id}"]`).textContent()))
  return texts.join(' ').trim()
}

/** Text of the visible heading of level 1 (each page has one). */
export const heading = (page: Page) => page.getByRole('heading', { level: 1 })

/**
 * The input of the Mantine input (a Select, most often) whose label is `label`
 * (a required one's ends with an asterisk), within `scope`; `last`: the last
 * such, so a dialog's (drawn at the end of the page) before the page's filter
 * of the same name.
 */
export async function inputByLabel(page: Page, label: string, o: { scope?: Locator | Page; last?: boolean } = {}): Promise<Locator> {
  const labels = (o.scope ?? page).locator('label.mantine-InputWrapper-label').filter({ hasText: new RegExp(`^${label.replace(/[+]/g, '\\+')}\\s*\\*?$`) })
  const id = await (o.last ? labels.last() : labels.first()).getAttribute('for')
  return page.locator(`input[id="${id}"]`)
}

/** Picks `option` in the Mantine Select labelled `label` (see inputByLabel). */
export async function pickOption(page: Page, label: string, option: string | RegExp, o: { last?: boolean } = {}): Promise<void> {
  await (await inputByLabel(page, label, o)).click()
  await page.getByRole('option', { name: option }).click()
}

/**
 * Every browser test signs in from 127.0.0.1, the one client address the login limit counts (10 in any
 * minute, a sliding window): a file's tests are separate people, not one client, so each starts with the
 * limits cleared. (The limits themselves are tested in test/kernel/rate-limit.test.ts.)
 */
export async function clearRateLimits(t: TestApp | undefined): Promise<void> {
  await t?.app.db.knex('rate_limit_hits').del()
}
