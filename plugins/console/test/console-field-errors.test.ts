/**
 * A form says what it allows before anyone fails, and every field's error at once
 * (ui/src/api/rules.ts, components/errors.tsx), in the devices' form, at 1280×800 and 768 px,
 * in English and Russian:
 * - the name input's help (the schema's pattern and length in words) shows before typing;
 * - a name with a space and a vendor too long show both errors under their inputs at once,
 *   and no request reaches the server (the browser checked the body against the same schema);
 * - a refusal only the server can make (the name already taken) still shows under its input.
 */
import { expect } from 'chai'
import type { Browser } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { clearRateLimits, context, inputError, launch, needConsole, signInAt, startWithAdmin } from './browser.js'

const PASSWORD = 'Portcullis-Field-Errors-2026!'
const TAKEN = 'edge-taken'

const CASES = [
  {
    locale: 'en-US', width: 1280, height: 800, add: 'Add device', create: 'Create',
    help: 'Latin letters, digits and . _ -, starting with a letter or digit; no spaces; up to 64 characters',
    nameError: 'Allowed: Latin letters, digits and . _ -, starting with a letter or digit; no spaces.',
    vendorError: 'Must be at most 64 characters long.',
    taken: /already/,
  },
  {
    locale: 'ru-RU', width: 768, height: 1024, add: 'Добавить устройство', create: 'Создать',
    help: 'Латинские буквы, цифры и . _ -, первый символ — буква или цифра; без пробелов; до 64 символов',
    nameError: 'Допустимо: латинские буквы, цифры и . _ -, первый символ — буква или цифра; без пробелов.',
    vendorError: 'Максимальная длина — 64 символа.',
    taken: /уже/,
  },
  {
    locale: 'ru-RU', width: 1280, height: 800, add: 'Добавить устройство', create: 'Создать',
    help: 'Латинские буквы, цифры и . _ -, первый символ — буква или цифра; без пробелов; до 64 символов',
    nameError: 'Допустимо: латинские буквы, цифры и . _ -, первый символ — буква или цифра; без пробелов.',
    vendorError: 'Максимальная длина — 64 символа.',
    taken: /уже/,
  },
  {
    locale: 'en-US', width: 768, height: 1024, add: 'Add device', create: 'Create',
    help: 'Latin letters, digits and . _ -, starting with a letter or digit; no spaces; up to 64 characters',
    nameError: 'Allowed: Latin letters, digits and . _ -, starting with a letter or digit; no spaces.',
    vendorError: 'Must be at most 64 characters long.',
    taken: /already/,
  },
] as const

// A browser run is engine-independent: once per npm test, in the PostgreSQL run.
;(runsOn('postgres') ? describe : describe.skip)('console: what a field allows, and every field error at once', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  beforeEach(() => clearRateLimits(t))

  before(async function () {
    needConsole(this)
    t = await startWithAdmin({ plugins: ['inventory', 'console'] }, PASSWORD)
    const d = await t.admin('POST', '/api/v1/devices', { body: { name: TAKEN, address: '10.98.0.1' } })
    expect(d.status, d.text).to.equal(201)
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  CASES.forEach((c, i) => {
    it(`shows the name's rule before typing, two bad fields at once without a request, and a server refusal (${c.locale.slice(0, 2)}, ${c.width} px)`, async () => {
      const page = await (await context(browser, { locale: c.locale, width: c.width, height: c.height })).newPage()
      const posts: string[] = []
      page.on('request', (r) => {
        if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/devices') posts.push(r.url())
      })
      await signInAt(page, t.url + '/devices', 'admin', PASSWORD)
      await page.getByRole('button', { name: c.add, exact: true }).click()
      const form = page.getByTestId('device-form')
      const name = form.locator('input[name="name"]')

      // (1) The help under the name input, before anything is typed.
      const helpId = (await name.getAttribute('aria-describedby'))?.split(/\s+/).find((id) => id.endsWith('-description'))
      expect(helpId, 'the name input is described by its help').to.be.a('string')
      const help = page.locator(`[id="${helpId}"]`)
      await help.waitFor({ state: 'visible' })
      expect((await help.textContent())?.trim()).to.equal(c.help)
      expect(await name.inputValue()).to.equal('')

      // (2) Two bad fields: both errors at once, and nothing sent.
      await name.fill('core switch')
      await form.locator('input[name="address"]').fill(`10.98.1.${i + 1}`)
      await form.locator('input[name="vendor"]').fill('v'.repeat(65))
      await form.getByRole('button', { name: c.create, exact: true }).click()
      expect(await inputError(page, 'name')).to.equal(c.nameError)
      expect(await inputError(page, 'vendor')).to.equal(c.vendorError)
      await page.waitForTimeout(300)
      expect(posts, 'no request reached the server').to.deep.equal([])
      expect(await form.getByTestId('error-alert').count(), 'no alert: each error is under its input').to.equal(0)

      // (3) What only the server knows: the name is taken. Its refusal shows under the name input.
      await name.fill(TAKEN)
      await form.locator('input[name="vendor"]').fill('Cisco')
      await form.getByRole('button', { name: c.create, exact: true }).click()
      expect(await inputError(page, 'name')).to.match(c.taken)
      expect(posts, 'this time the form was sent').to.have.length(1)
      expect(await form.locator('input[name="vendor"][aria-invalid="true"]').count(), 'the vendor error is gone').to.equal(0)
      await page.context().close()
    })
  })
})
