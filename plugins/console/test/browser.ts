/**
 * The console's end-to-end tests: the browser comes from the test kit (test/kit/browser.ts:
 * Debian's `chromium` through playwright-core); here what is the console's own (its build,
 * the first sign-in, Mantine's inputs).
 */
import { expect } from 'chai'
import type { Browser, Locator, Page } from 'playwright-core'
import type { TestApp, TestAppOptions } from '../../../test/kit/app.js'
import { launch } from '../../../test/kit/browser.js'
import { needConsole, startWithAdmin } from '../../../test/kit/console.js'

export { CHROMIUM, context, launch, SCREENSHOTS } from '../../../test/kit/browser.js'
export { needConsole, signInAt, signInWithToken, startWithAdmin } from '../../../test/kit/console.js'
import { screenshot as kitScreenshot } from '../../../test/kit/browser.js'

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

/**
 * Answers the console's own confirmation (ui/src/components/Confirm.tsx), which every destructive
 * action opens, once it shows: its confirm button (or Cancel), then waits for it to close. Returns
 * the dialog's text (its title, question and what the action touches), for a test to check.
 */
export async function answerConfirm(page: Page, answer: 'confirm' | 'cancel' = 'confirm'): Promise<string> {
  const dialog = page.getByTestId('confirm-dialog')
  await dialog.getByTestId('confirm-ok').waitFor()
  const text = (await dialog.textContent()) ?? ''
  await dialog.getByTestId(answer === 'confirm' ? 'confirm-ok' : 'confirm-cancel').click()
  await dialog.waitFor({ state: 'detached' })
  return text
}

/**
 * One browser suite's life, registered in the calling `describe`: the server with its administrator's
 * first password changed to `password`, one Chromium, the rate limits cleared before each test, both
 * stopped after. `ready` hands the two to the suite (its own `before` hooks, which run after this one,
 * make its records).
 */
export function browserSuite(o: TestAppOptions, password: string, ready: (t: TestApp, browser: Browser) => void): void {
  let t: TestApp | undefined
  let browser: Browser | undefined
  before(async function () {
    needConsole(this)
    t = await startWithAdmin(o, password)
    browser = await launch()
    ready(t, browser)
  })
  beforeEach(() => clearRateLimits(t))
  after(async () => {
    await browser?.close()
    await t?.stop()
  })
}

/** POSTs `body` to `path` as the administrator, expecting 201: the new record's id. */
export async function created(t: TestApp, path: string, body: object): Promise<string> {
  const r = await t.admin('POST', path, { body })
  expect(r.status, r.text).to.equal(201)
  return r.body.id as string
}
