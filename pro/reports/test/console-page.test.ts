/**
 * The console's Reports page (pro/reports/web/reports.js) in a real browser
 * against the real server, as an administrator uses it: a new report with a
 * schedule the server refuses (the reason shown under the cron input), then
 * saved; its hostile name shown as text; run now, the run seen done, its PDF
 * downloaded; edited; delete after the page's own confirmation (never the browser's).
 * A fixture plugin gives the one report source. Embedded engine only.
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { context, launch } from '../../../test/kit/browser.js'
import { needConsole, signInAt, startWithAdmin } from '../../../test/kit/console.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const PASSWORD = 'Portcullis-Reports-2026!'

const NAME = 'Weekly <img src=x onerror="window.__pwned=1"> & co'

// One run is enough for a page that reads what the API answers (the same on both engines): the PostgreSQL one, the shorter.
;(runsOn('postgres') ? describe : describe.skip)('reports: the console page in a browser', function () {
  this.timeout(180_000)
  let t: TestApp
  let browser: Browser

  before(async function () {
    // Skips without chromium (saying why); builds the console when its sources are newer than the build.
    needConsole(this)
    t = await startWithAdmin({ plugins: ['inventory', 'console', path.join(here, '../index.ts'), path.join(here, 'page-fixture/index.ts')] }, PASSWORD)
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  it('creates a report (a refused schedule shown at its input first), runs it, downloads the PDF, edits it, deletes it after confirming', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    // A window.confirm would answer here; the page must ask in its own dialog.
    const browserDialogs: string[] = []
    page.on('dialog', (d) => { browserDialogs.push(d.message()); void d.dismiss() })
    await signInAt(page, t.url + '/x/pro-reports/reports', 'admin', PASSWORD)
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor()
    await page.getByRole('link', { name: 'Reports' }).waitFor() // in the console's menu

    await page.getByRole('button', { name: 'New report' }).click()
    const form = page.getByTestId('report-form')
    await form.getByLabel('Name').fill(NAME)
    await form.getByLabel(/Sample events/).check()
    await form.getByLabel('XLSX').check()
    await form.getByLabel('Time zone').fill('Europe/Moscow')
    await form.getByLabel('Run on a schedule').check()
    await form.getByLabel(/^Schedule/).fill('* * * * *')
    await form.getByRole('button', { name: 'Save' }).click()
    // The server's refusal under the input it names, the input marked invalid.
    const cron = form.locator('input[name="schedule.cron"][aria-invalid="true"]')
    await cron.waitFor()
    const errorId = await cron.getAttribute('aria-describedby')
    expect(await page.locator(`[id="${errorId}"]`).textContent()).to.match(/hour/i)
    expect((await t.admin('GET', '/api/v1/reports/definitions')).body.total).to.equal(0)

    await form.getByLabel(/^Schedule/).fill('0 7 * * 1')
    await form.getByRole('button', { name: 'Save' }).click()
    const row = page.getByTestId('report-definitions').locator('tbody tr').filter({ hasText: 'Weekly' })
    await row.waitFor()
    expect(await row.locator('strong').textContent()).to.equal(NAME)
    expect(await row.textContent()).to.include('0 7 * * 1 (Europe/Moscow)')
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).to.equal(undefined)

    await row.getByRole('button', { name: 'Run now' }).click()
    const done = page.getByTestId('report-runs').locator('tr[data-state="done"]')
    await done.waitFor({ timeout: 60_000 })
    expect(await done.textContent()).to.include('Sample events: 3')
    const [file] = await Promise.all([page.waitForEvent('download'), done.getByRole('button', { name: /^PDF/ }).click()])
    expect(file.suggestedFilename()).to.match(/\.pdf$/)
    const pdf = readFileSync((await file.path())!)
    expect(pdf.subarray(0, 5).toString('latin1')).to.equal('%PDF-')
    await done.getByRole('button', { name: /^XLSX/ }).waitFor()

    // Edit: the form holds the saved values; a change is saved with PATCH.
    await row.getByRole('button', { name: 'Edit' }).click()
    expect(await form.getByLabel('Name').inputValue()).to.equal(NAME)
    expect(await form.getByLabel(/^Schedule/).inputValue()).to.equal('0 7 * * 1')
    await form.getByLabel('Description').fill('Mondays, for the NOC')
    await form.getByRole('button', { name: 'Save' }).click()
    await row.getByText('Mondays, for the NOC').waitFor()

    // Delete: the page's own dialog; Cancel keeps the report, Delete removes it.
    await row.getByRole('button', { name: 'Delete' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Delete this report?' })
    await dialog.waitFor()
    expect(await dialog.textContent()).to.include(NAME)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect((await t.admin('GET', '/api/v1/reports/definitions')).body.total).to.equal(1)
    await row.getByRole('button', { name: 'Delete' }).click()
    await dialog.getByRole('button', { name: 'Delete' }).click()
    await page.getByText('Report deleted.').waitFor()
    // The toast shows before the list is drawn again: wait for the table to go rather than count it at once.
    await page.getByTestId('report-definitions').waitFor({ state: 'detached' })
    expect((await t.admin('GET', '/api/v1/reports/definitions')).body.total).to.equal(0)
    expect(browserDialogs).to.deep.equal([])
    await page.context().close()
  })
})
