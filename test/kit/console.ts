/**
 * What every browser suite of the console needs, whichever plugin's pages it
 * tests (plugins/console/test, a Pro plugin's page): the console built from the
 * sources under test, a server whose admin has signed in once, a sign-in.
 */
import { expect } from 'chai'
import { execSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { uiIsStale } from '../../ui/scripts/ensure-built.js'
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp, type TestAppOptions } from './app.js'
import { needChromium } from './browser.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

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


/**
 * Signs the browser context in with a session token minted for a test (`t.token({ permissions })`): the
 * console's session is the server's HttpOnly cookie (docs/security.md), so the token goes where a
 * sign-in would have put it, for every page of the context.
 */
export async function signInWithToken(c: BrowserContext, url: string, token: string): Promise<void> {
  const { hostname } = new URL(url)
  await c.addCookies([{ name: 'portcullis_session', value: token, domain: hostname, path: '/api/', httpOnly: true, sameSite: 'Strict' }])
}
