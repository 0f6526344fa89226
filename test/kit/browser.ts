/**
 * A real browser for the end-to-end tests: Debian's `chromium` (installed by .ci/run), driven by
 * playwright-core, which downloads nothing. Where chromium is missing the tests skip and say so.
 * `axe(page)` runs axe-core (the npm devDependency) in the page and answers its violations;
 * `expectAccessible` fails a test on any serious or critical one, listing them.
 */
import { expect } from 'chai'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AxeResults, Result } from 'axe-core'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { MENU_STATE_KEY, SECTION_IDS } from '../../ui/src/components/menu-ids.js'
import { skipBecause } from './skip.js'

/** CHROMIUM_PATH when set (a path that does not exist skips the tests), else Debian's. */
export const CHROMIUM = (process.env.CHROMIUM_PATH !== undefined ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser']).find((p) => existsSync(p)) ?? null

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
/** Where screenshots worth showing go (the README and docs/*.md link them). */
export const SCREENSHOTS = path.join(ROOT, 'docs/screenshots')

/** The first thing a browser suite's `before` does: skip, saying why, without chromium. */
export function needChromium(ctx: Mocha.Context): void {
  if (!CHROMIUM) skipBecause(ctx, 'chromium is not installed (Debian package `chromium`; .ci/run installs it)')
}

export async function launch(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where chromium refuses its sandbox. --disable-dev-shm-usage: containers' /dev/shm is small.
  return chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
}

/**
 * A fresh browser profile (no cookie, no language choice) in a language and at a size. The console's
 * menu has every section open (`menu: 'open'`, the default): the suites reach a screen by its link,
 * wherever it is; `menu: 'fresh'` leaves the sections as a first visit finds them (only the current
 * page's open), which console-navigation.test.ts tests.
 */
export async function context(browser: Browser, o: { locale: 'en-US' | 'ru-RU'; width?: number; height?: number; menu?: 'open' | 'fresh' }): Promise<BrowserContext> {
  const c = await browser.newContext({ locale: o.locale, viewport: { width: o.width ?? 1280, height: o.height ?? 800 }, reducedMotion: 'reduce' })
  c.setDefaultTimeout(15_000)
  if ((o.menu ?? 'open') === 'open') {
    const opened = JSON.stringify(Object.fromEntries(SECTION_IDS.map((id) => [id, true])))
    // Only when nothing is kept yet: what a test then opens or closes stays so, as for a user.
    await c.addInitScript(([key, value]) => {
      try {
        if (localStorage.getItem(key) === null) localStorage.setItem(key, value)
      } catch {
        // about:blank and opaque origins have no storage: nothing to open there.
      }
    }, [MENU_STATE_KEY, opened] as const)
  }
  return c
}

/** The viewport as a PNG, also written to docs/screenshots/<name>.png when a name is given. */
export async function screenshot(page: Page, name?: string, o: { fullPage?: boolean } = {}): Promise<Buffer> {
  if (name) mkdirSync(SCREENSHOTS, { recursive: true })
  return page.screenshot({ path: name ? path.join(SCREENSHOTS, `${name}.png`) : undefined, fullPage: o.fullPage ?? false })
}

/** How far the page is wider than the viewport, in CSS pixels (0: no horizontal scroll). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body?.scrollWidth ?? 0) - window.innerWidth)
}

let axeSource: string | undefined
function axeScript(): string {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  return axeSource
}

/**
 * axe-core's violations on the page as it is now (WCAG 2.x A and AA and best practices). The script
 * goes in through the DevTools protocol, not a <script> element, so a page's CSP (the portal allows
 * no inline script) does not stop it; it is injected again after each navigation. `include`: only
 * within these CSS selectors (the menu, a dialog), not the page around them.
 */
export async function axe(page: Page, include?: string[]): Promise<Result[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeScript())
  const results = (await page.evaluate(
    (within) =>
      (window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<unknown> } }).axe.run(within ? { include: within.map((sel) => [sel]) } : document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }),
    include ?? null,
  )) as AxeResults
  return results.violations
}

/** One line a violation: its rule, impact, help and the first elements it names. */
export function describeViolations(violations: Result[]): string {
  return violations.map((v) => `${v.impact ?? 'unknown'} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}${v.nodes.length > 3 ? ', …' : ''})`).join('\n')
}

/** Fails on any serious or critical axe-core violation, listing them; answers the lesser ones. */
export async function expectAccessible(page: Page, what = page.url(), include?: string[]): Promise<Result[]> {
  const violations = await axe(page, include)
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  if (grave.length > 0) expect.fail(`accessibility of ${what}: ${grave.length} serious or critical violation(s):\n${describeViolations(grave)}`)
  return violations
}
