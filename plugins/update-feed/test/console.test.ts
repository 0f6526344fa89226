/**
 * The dashboard's update-check card in a real browser (headless chromium): an administrator's
 * "Check now" asks the feed (nock) and the card shows the newer release with its notes linked, the
 * advisory that affects this version flagged with its hostile title as plain text (no markup, no
 * script run), and min_supported as advice; a refused answer afterwards keeps the good manifest
 * shown and says why. A reader with system.info.read sees the card without the button.
 * Embedded run only.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import nock from 'nock'
import type { Browser } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { clearRateLimits, context, launch, needConsole, signInAt, startWithAdmin } from '../../console/test/browser.js'
import { envelope, interceptFeed, manifest, releaseFeed, testKey } from './helpers.js'

const PASSWORD = 'Portcullis-Feed-2026!'
const FEED = 'https://feed.example.test'
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'

// The card reads what the API answers, the same on both engines: the PostgreSQL run only (the shorter one; the API tests run on both).
;(runsOn('postgres') ? describe : describe.skip)('console: the update-check card in a browser', function () {
  this.timeout(180_000)
  let t: TestApp
  let browser: Browser
  let dir: string
  const key = testKey()

  before(async function () {
    needConsole(this)
    dir = mkdtempSync(path.join(os.tmpdir(), 'update-feed-ui-'))
    const keysFile = path.join(dir, 'keys.json')
    writeFileSync(keysFile, JSON.stringify({ 'test-a': key.publicB64 }))
    t = await startWithAdmin(
      {
        plugins: ['update-feed', 'console'],
        options: { 'update-feed.trusted_keys_file': keysFile },
        settings: { 'update_feed.enabled': true, 'update_feed.url': `${FEED}/m.json` },
        env: { SERVICE_VERSION: '0.1.3' },
      },
      PASSWORD,
    )
    interceptFeed()
    browser = await launch()
  })
  after(async () => {
    releaseFeed()
    await browser?.close()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
  beforeEach(() => clearRateLimits(t))

  it('an administrator checks now: the newer release, its notes, the affecting advisory as text, min_supported as advice', async () => {
    const m = manifest({ min_supported: '0.1.4' })
    m.advisories[0].title = HOSTILE
    nock(FEED).get('/m.json').query(true).reply(200, envelope(m, key, 'test-a'))
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signInAt(page, t.url + '/', 'admin', PASSWORD)
    const card = page.getByTestId('update-feed')
    await card.getByText('never checked').waitFor()
    await card.getByTestId('update-feed-check').click()
    await card.getByTestId('update-available').waitFor()
    expect(await card.getByTestId('update-available').textContent()).to.equal('Version 0.2.0 is available.')
    expect(await card.getByRole('link', { name: 'Release notes' }).getAttribute('href')).to.equal(m.release_notes_url)
    const advisories = card.getByTestId('update-feed-advisories')
    expect(await advisories.textContent()).to.contain(HOSTILE)
    expect(await advisories.locator('img, script').count(), 'no markup from the manifest').to.equal(0)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).to.equal(undefined)
    // The advisory that does not affect 0.1.3 is not listed.
    expect(await advisories.textContent()).not.to.contain('PCS-2026-0002')
    expect(await card.getByTestId('below-min-supported').textContent()).to.contain('0.1.4')

    // A tampered answer: refused, said why, the good manifest still shown.
    const tampered = JSON.parse(envelope(manifest({ latest: '9.9.9', issued_at: '2026-12-01T00:00:00Z' }), key, 'test-a'))
    tampered.signature = Buffer.alloc(64, 1).toString('base64')
    nock(FEED).get('/m.json').query(true).reply(200, JSON.stringify(tampered))
    await card.getByTestId('update-feed-check').click()
    await card.getByText('answer refused').waitFor()
    expect(await card.textContent()).to.contain('the signature does not match')
    expect(await card.getByTestId('update-available').textContent()).to.equal('Version 0.2.0 is available.')
    await page.context().close()
  })

  it('a reader with system.info.read sees the card without "Check now"', async () => {
    const role = await t.admin('POST', '/api/v1/roles', { body: { name: 'feed-reader', permissions: ['system.info.read'] } })
    expect(role.status, role.text).to.equal(201)
    const user = await t.admin('POST', '/api/v1/users', { body: { username: 'reader', password: PASSWORD, must_change_password: false, role_ids: [role.body.id] } })
    expect(user.status, user.text).to.equal(201)
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await signInAt(page, t.url + '/', 'reader', PASSWORD)
    const card = page.getByTestId('update-feed')
    await card.getByText('Доступна версия 0.2.0.').waitFor()
    expect(await card.getByTestId('update-feed-check').count()).to.equal(0)
    await page.context().close()
  })
})
