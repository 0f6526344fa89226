/**
 * A refused deploy in the console, in a real browser at 1280×800, in English and in Russian:
 * "Deploy all" with a tac_plus-ng whose check fails (a checker printing an error) and a
 * FreeRADIUS whose check passes. The history says under each failed release why it was not
 * activated (FreeRADIUS: because of the tac_plus-ng check; deploy it alone); the console offers
 * "Deploy freeradius only", which deploys it (after the usual confirmation); the dashboard lists
 * the failure as a link that opens the deploy's details, with the check's output folded under
 * its first meaningful line.
 */
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { horizontalOverflow } from '../../../test/kit/browser.js'
import { answerConfirm, clearRateLimits, context, launch, needConsole, screenshot, signInAt, startWithAdmin } from './browser.js'

const PASSWORD = 'Portcullis-DeployFail-2026!'
const FREERADIUS_PRESENT = spawnSync('sh', ['-c', 'command -v freeradius']).status === 0
if (!FREERADIUS_PRESENT) console.log('      skipped: the console after a refused deploy (FreeRADIUS 3.2, Debian: freeradius, is not installed)')

const CASES = [
  { locale: 'en-US', checkFailed: 'Configuration check: failed', deployAll: 'Deploy all', only: 'Deploy freeradius only', line: 'Not activated: the check of tac_plus-ng failed in the same deploy; deploy freeradius alone to activate it', failed: 'Deploy of tac_plus-ng failed', reason: 'The check of tac_plus-ng failed', detail: 'freeradius passed its check but was not activated' },
  { locale: 'ru-RU', checkFailed: 'Проверка конфигурации: не пройдена', deployAll: 'Развернуть всё', only: 'Развернуть только freeradius', line: 'Не активирован: в том же развёртывании не прошла проверка tac_plus-ng; разверните freeradius отдельно, чтобы активировать его', failed: 'Развёртывание tac_plus-ng не удалось', reason: 'Проверка tac_plus-ng не пройдена', detail: 'freeradius прошёл проверку, но не активирован' },
] as const

// A browser run is engine-independent: once per npm test, in the PostgreSQL run (docs/testing.md: the runs balanced).
;(runsOn('postgres') && FREERADIUS_PRESENT ? describe : describe.skip)('console: a deploy refused by one daemon\'s check', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  const bin = mkdtempSync(path.join(os.tmpdir(), 'portcullis-console-check-'))
  beforeEach(() => clearRateLimits(t))

  before(async function () {
    needConsole(this)
    const checker = path.join(bin, 'tac_plus-ng')
    writeFileSync(checker, '#!/bin/sh\necho "" >&2\necho "tac_plus-ng.cfg:3: unrecognized keyword \'bogus\'" >&2\necho "parse error" >&2\nexit 1\n')
    chmodSync(checker, 0o755)
    t = await startWithAdmin({ plugins: ['inventory', 'tacacs', 'radius', 'console'], env: { TAC_PLUS_NG: checker } }, PASSWORD)
    expect((await t.admin('POST', '/api/v1/devices', { body: { name: 'sw1', address: '192.0.2.10', tacacs_key: 'k1', radius_secret: 's1' } })).status).to.equal(201)
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    rmSync(bin, { recursive: true, force: true })
  })

  for (const c of CASES) {
    const lang = c.locale.slice(0, 2)
    it(`says why, offers the daemon that can be deployed, and links the failure from the dashboard (${lang}, 1280 px)`, async () => {
      const page = await (await context(browser, { locale: c.locale, width: 1280, height: 800 })).newPage()
      await signInAt(page, t.url + '/deploys', 'admin', PASSWORD)
      const pending = page.getByTestId('pending')
      await pending.getByText('freeradius').first().waitFor()
      await pending.getByRole('button', { name: c.deployAll, exact: true }).click()
      await answerConfirm(page)
      const alert = pending.getByTestId('error-alert')
      await alert.waitFor()
      expect(await alert.getAttribute('data-code')).to.equal('DEPLOY_CHECK_FAILED')
      expect(await alert.textContent()).to.include(c.detail)

      // The history: the FreeRADIUS release's line under its status says why, in words.
      const history = page.getByTestId('history')
      await history.getByTestId('failure-reason').filter({ hasText: c.line }).first().waitFor()
      await history.getByTestId('failure-reason').filter({ hasText: c.reason }).first().waitFor()
      expect(await horizontalOverflow(page), 'no horizontal scroll').to.equal(0)
      await screenshot(page, `deploy-refused-${lang}`)

      // The suggestion deploys FreeRADIUS alone (asked first, like every deploy).
      const only = page.getByTestId('deploy-alone').getByRole('button', { name: c.only })
      await only.click()
      const asked = await answerConfirm(page)
      expect(asked).to.include('freeradius').and.not.include('tac_plus-ng:')
      await page.getByTestId('deploy-result').waitFor()
      const fr = (await t.admin('GET', '/api/v1/deploys?daemon=freeradius')).body.items[0]
      expect(fr).to.include({ status: 'active', failure_reason: null })

      // The dashboard: the failure is a link to its details.
      await page.goto(t.url + '/')
      const link = page.getByTestId('failures').getByTestId('failed-deploy-link').filter({ hasText: c.failed }).first()
      await link.waitFor()
      await link.click()
      await page.getByTestId('deploy-details').waitFor()
      const id = new URL(page.url()).searchParams.get('deploy')
      const one = (await t.admin('GET', `/api/v1/deploys/${id}`)).body
      expect(one).to.include({ daemon: 'tac_plus-ng', status: 'failed', failure_reason: 'check_failed' })
      await page.getByTestId('deploy-failure-reason').getByText(c.reason).waitFor()
      await page.getByTestId('deploy-details').getByText(c.checkFailed, { exact: true }).waitFor()
      // The output folded under its first meaningful line (the checker's first line is blank).
      const folded = page.getByTestId('check-output-folded')
      expect((await folded.locator('summary').textContent()) ?? '').to.include("tac_plus-ng.cfg:3: unrecognized keyword 'bogus'")
      expect(await page.getByTestId('check-output').isVisible()).to.equal(false)
      await folded.locator('summary').click()
      await page.getByTestId('check-output').getByText(/parse error/).waitFor()
      await screenshot(page, `deploy-refused-details-${lang}`)
      await page.context().close()
    })
  }
})
