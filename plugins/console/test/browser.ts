/**
 * The browser for the console's end-to-end tests: Debian's `chromium`
 * (installed by .ci/run), driven by playwright-core, which downloads nothing.
 * Where chromium is missing the tests skip and say so.
 */
import { expect } from 'chai'
import { execSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core'
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp, type TestAppOptions } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { uiIsStale } from '../../../ui/scripts/ensure-built.js'

/** CHROMIUM_PATH when set (a path that does not exist skips the tests), else Debian's. */
export const CHROMIUM = (process.env.CHROMIUM_PATH !== undefined ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser']).find((p) => existsSync(p)) ?? null

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
export const SCREENSHOTS = path.join(ROOT, 'docs/screenshots')

/**
 * What every console suite does first: skip (saying why) without chromium,
 * and build the console when its sources are newer than the build, so the
 * browser is shown the code under test.
 */
export function needConsole(ctx: Mocha.Context): void {
  if (!CHROMIUM) skipBecause(ctx, 'chromium is not installed (Debian package `chromium`; .ci/run installs it)')
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

export async function launch(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where chromium refuses its sandbox.
  return chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
}

/** A fresh browser profile (no token, no language choice) in a language and at a size. */
export async function context(browser: Browser, o: { locale: 'en-US' | 'ru-RU'; width?: number; height?: number }): Promise<BrowserContext> {
  const c = await browser.newContext({ locale: o.locale, viewport: { width: o.width ?? 1280, height: o.height ?? 800 }, reducedMotion: 'reduce' })
  c.setDefaultTimeout(15_000)
  return c
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) })
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
