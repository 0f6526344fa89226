/**
 * The guest pages in a real browser (Debian's chromium): axe-core finds no serious or critical
 * violation on each step's page, in English and Russian, and a 375 px phone scrolls no sideways.
 * One browser for the whole file; the flows themselves are proven in the HTML-level tests.
 */
import { expect } from 'chai'
import type { Browser as Chromium } from 'playwright-core'
import { context, expectAccessible, horizontalOverflow, launch, needChromium } from '../../../test/kit/browser.js'
import { createPortal, db, freshMac, qs, signedRedirect, startPortalApp, type PortalApp } from './helpers.js'
import { runsOn } from '../../../test/kit/app.js'

// A browser run is engine-independent (the flows run on both engines in the HTML-level tests): once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('portal: the guest pages are accessible and fit a phone', function () {
  this.timeout(180_000)
  let a: PortalApp
  let chromium: Chromium
  before(async function () {
    needChromium(this)
    a = await startPortalApp()
    chromium = await launch()
  })
  after(async () => {
    await chromium?.close()
    await a?.stop()
  })

  for (const locale of ['en-US', 'ru-RU'] as const) {
    it(`every step's page (${locale}): the methods, a refused form, the code, the wait, the sponsor's page`, async () => {
      const p = await createPortal(a.t, {
        self_registration_fields: [{ name: 'company', label: { en: 'Company', ru: 'Компания' }, required: false }],
        branding: { primary_colour: '#0b6e4f', texts: { en: { title: 'Lobby', terms: 'Be nice.' }, ru: { title: 'Вестибюль', terms: 'Ведите себя хорошо.' } } },
      })
      const ctx = await context(chromium, { locale, width: 375, height: 740 })
      try {
        const page = await ctx.newPage()
        await page.setExtraHTTPHeaders({ 'x-forwarded-for': `10.77.${locale === 'en-US' ? 1 : 2}.${Math.floor(Math.random() * 250) + 1}` })
        const mac = freshMac()
        await page.goto(`${a.t.url}/portal/${p.slug}?${qs(signedRedirect(mac))}`)
        await expectAccessible(page, 'landing')
        expect(await horizontalOverflow(page), 'landing on a phone').to.equal(0)
        // A refused form: the error tied to its field.
        await page.fill('#reg-name', 'Ann')
        await page.fill('#reg-email', 'not-an-address')
        await page.evaluate(() => document.querySelectorAll('form').forEach((f) => f.setAttribute('novalidate', '')))
        await page.click('section[aria-labelledby="reg-h"] button[type=submit]')
        await page.waitForSelector('[aria-invalid=true]')
        await expectAccessible(page, 'refused form')
        await page.fill('#reg-email', 'ann@guest.test')
        await page.click('section[aria-labelledby="reg-h"] button[type=submit]')
        await page.waitForSelector('#code-code')
        await expectAccessible(page, 'code')
        expect(await horizontalOverflow(page), 'code page on a phone').to.equal(0)
        // The wait for a sponsor, and the sponsor's own page.
        const waiting = await ctx.newPage()
        await waiting.setExtraHTTPHeaders({ 'x-forwarded-for': `10.78.${locale === 'en-US' ? 1 : 2}.9` })
        await waiting.goto(`${a.t.url}/portal/${p.slug}?${qs(signedRedirect(freshMac()))}`)
        await waiting.fill('#sp-name', 'Bob')
        await waiting.fill('#sp-email', 'bob@guest.test')
        await waiting.fill('#sp-sponsor_email', 'host@example.com')
        await waiting.click('section[aria-labelledby="sp-h"] button[type=submit]')
        await waiting.waitForSelector('p[role=status]')
        await expectAccessible(waiting, 'waiting')
        const mail = await a.smtp.take('host@example.com')
        const path = /(\/api\/v1\/captive-portal\/sponsor\/callback\?token=[A-Za-z0-9_-]+)/.exec(mail.text)![1]
        const sponsor = await ctx.newPage()
        await sponsor.goto(a.t.url + path)
        await expectAccessible(sponsor, 'sponsor page')
        expect(await horizontalOverflow(sponsor), 'sponsor page on a phone').to.equal(0)
        await sponsor.click('button[type=submit] >> nth=0')
        await sponsor.waitForSelector('p[role=status]')
        await expectAccessible(sponsor, 'sponsor decided')
        // The guest's page checks by itself (wait.js; "Check now" without script) and moves on to the access.
        await waiting.waitForSelector(`h1:has-text("${locale === 'en-US' ? 'You are connected' : 'Вы подключены'}")`, { timeout: 20_000 })
        await expectAccessible(waiting, 'connected')
        expect(await db(a.t)('portal_sessions').where({ mac }).first()).to.include({ state: 'pending_code' })
      } finally {
        await ctx.close()
      }
    })
  }
})
