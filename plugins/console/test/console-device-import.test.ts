/**
 * The devices screen's CSV import and covering-address search (ui/src/pages/CsvImport.tsx,
 * DeviceCovering.tsx), at 1280×800 in English and at 768 px in Russian: a CSV file chosen in the
 * import dialog, its report's rows on screen and the devices in the list; an address typed and the
 * entries containing it listed, the one the daemons use marked.
 */
import { expect } from 'chai'
import type { Browser } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { clearRateLimits, context, launch, needConsole, signInAt, startWithAdmin } from './browser.js'

const PASSWORD = 'Portcullis-Import-2026!'

const CASES = [
  { locale: 'en-US', width: 1280, net: '10.77.1', words: { import: 'Import CSV', run: 'Import', applied: 'Written', created: 'created', refused: 'refused', covering: 'Which device covers an address', find: 'Find', tacacs: 'Used by TACACS+', none: 'No device entry contains this address.' } },
  { locale: 'ru-RU', width: 768, net: '10.77.2', words: { import: 'Импорт CSV', run: 'Импортировать', applied: 'Записано', created: 'создано', refused: 'отклонено', covering: 'Какое устройство покрывает адрес', find: 'Найти', tacacs: 'Используется TACACS+', none: 'Ни одна запись устройства не содержит этот адрес.' } },
] as const

// Pinned to the embedded run (the PostgreSQL run holds the other console tests).
;(runsOn('embedded') ? describe : describe.skip)('console: device CSV import and the covering-address search', function () {
  this.timeout(600_000)
  let t: TestApp
  let browser: Browser
  before(async function () {
    needConsole(this)
    t = await startWithAdmin({ plugins: ['inventory', 'console'] }, PASSWORD)
    browser = await launch()
  })
  beforeEach(() => clearRateLimits(t))
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  for (const c of CASES) {
    it(`${c.locale} at ${c.width} px: imports a file and finds the entry covering an address`, async () => {
      const ctx = await context(browser, { locale: c.locale, width: c.width })
      const page = await ctx.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await signInAt(page, `${t.url}/devices`, 'admin', PASSWORD)
      const w = c.words
      await page.getByRole('button', { name: w.import }).click()
      const dialog = page.getByTestId('devices-import')
      const csv = `name,address,tacacs_key,enabled\nsite-${c.net.replace(/\./g, '-')},${c.net}.0/24,Key-one-1,yes\ncore-${c.net.replace(/\./g, '-')},${c.net}.9,,true\nbad name,${c.net}.10,,\n`
      await dialog.locator('input[type="file"]').setInputFiles({ name: 'devices.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
      // With the bad row, atomic: nothing written, every row reported.
      await dialog.getByRole('button', { name: w.run, exact: true }).click()
      const report = page.getByTestId('import-report')
      await report.getByText(w.refused, { exact: true }).waitFor()
      const rows = await report.getByRole('row').allInnerTexts()
      expect(rows.length).to.equal(4)
      expect(rows[3]).to.include('bad name').and.include('name')
      expect(rows.join(' ')).to.not.include('Key-one-1')
      // The bad row out: both written, and in the list behind the dialog.
      const fixed = csv.split('\n').slice(0, 3).join('\n') + '\n'
      await dialog.locator('input[type="file"]').setInputFiles({ name: 'devices.csv', mimeType: 'text/csv', buffer: Buffer.from(fixed) })
      await dialog.getByRole('button', { name: w.run, exact: true }).click()
      await report.getByText(w.applied, { exact: true }).waitFor()
      expect(await report.getByText(w.created, { exact: true }).count()).to.equal(2)
      await page.keyboard.press('Escape')
      await page.getByTestId('devices-table').getByText(`${c.net}.0/24`).waitFor()
      // The covering search: the /32 inside the /24 is the one used.
      const covering = page.getByTestId('device-covering')
      await covering.getByLabel(w.covering).fill(`${c.net}.9`)
      await covering.getByRole('button', { name: w.find }).click()
      const found = covering.getByRole('row')
      await covering.getByText(w.tacacs).waitFor()
      const lines = await found.allInnerTexts()
      expect(lines.length).to.equal(3)
      expect(lines[1]).to.include(`${c.net}.9/32`).and.include(w.tacacs)
      expect(lines[2]).to.include(`${c.net}.0/24`).and.not.include(w.tacacs)
      await covering.getByLabel(w.covering).fill('192.0.2.200')
      await covering.getByRole('button', { name: w.find }).click()
      await covering.getByText(w.none).waitFor()
      expect(errors).to.deep.equal([])
      await ctx.close()
    })
  }
})
