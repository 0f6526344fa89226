/**
 * The console's one confirmation dialog (ui/src/components/Confirm.tsx) in a
 * real browser, in English at 1280×800 and in Russian at 768 px wide (and the
 * other two pairings): a device group's delete and a deploy's rollback open
 * it in the page (never the browser's confirm()), titled with the object and
 * listing what the action touches (the group's devices and subgroups; the
 * release made active and the one it replaces); Cancel and Escape change
 * nothing on the server; the confirm button (focused: Enter confirms) does
 * it. The dialog fits the narrow screen without a horizontal scroll.
 */
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { horizontalOverflow } from '../../../test/kit/browser.js'
import { context, screenshot, signInAt, browserSuite } from './browser.js'

const PASSWORD = 'Portcullis-Confirm-2026!'
const DAEMON = 'tac_plus-ng'

const CASES = [
  { locale: 'en-US', width: 1280, height: 800, delete: 'Delete', rollback: 'Roll back', cancel: 'Cancel', touches: 'What this touches', devices: 'Devices directly in it: 0', none: 'Nothing refers to it.', replaced: 'the active release', becomes: 'Becomes active again' },
  { locale: 'ru-RU', width: 768, height: 1024, delete: 'Удалить', rollback: 'Откатить', cancel: 'Отмена', touches: 'Что это затронет', devices: 'Устройств непосредственно в ней: 0', none: 'Ссылок нет.', replaced: 'активный выпуск', becomes: 'Снова станет активным' },
  { locale: 'en-US', width: 768, height: 1024, delete: 'Delete', rollback: 'Roll back', cancel: 'Cancel', touches: 'What this touches', devices: 'Devices directly in it: 0', none: 'Nothing refers to it.', replaced: 'the active release', becomes: 'Becomes active again' },
  { locale: 'ru-RU', width: 1280, height: 800, delete: 'Удалить', rollback: 'Откатить', cancel: 'Отмена', touches: 'Что это затронет', devices: 'Устройств непосредственно в ней: 0', none: 'Ссылок нет.', replaced: 'активный выпуск', becomes: 'Снова станет активным' },
] as const

// A browser run is engine-independent: once per npm test, in the PostgreSQL run (docs/testing.md: the runs
// balanced). What Cancel leaves and Confirm does is asked of the server.
;(runsOn('postgres') ? describe : describe.skip)('console: the one confirmation dialog, for a delete and a rollback', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  // No tac_plus-ng on the machine needed: its releases are let through unchecked.
  browserSuite({ plugins: ['inventory', 'tacacs', 'console'], env: { TAC_PLUS_NG: '/nonexistent/sbin/tac_plus-ng' } }, PASSWORD, (app, b) => ([t, browser] = [app, b]))
  before(async () => {
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    // Two releases of the daemon (a device added between them): the first, superseded, can be rolled back to.
    for (const name of ['edge-1', 'edge-2']) {
      const d = await t.admin('POST', '/api/v1/devices', { body: { name, address: name === 'edge-1' ? '10.7.0.1' : '10.7.0.2', tacacs_key: `key-${name}` } })
      expect(d.status, d.text).to.equal(201)
      const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: DAEMON } })
      expect(r.status, r.text).to.equal(201)
    }
  })

  const dialogOf = (page: Page) => page.getByTestId('confirm-dialog')
  /** The dialog once open and settled (its transition done), with its text. */
  async function opened(page: Page): Promise<string> {
    const dialog = dialogOf(page)
    await dialog.getByTestId('confirm-ok').waitFor()
    await dialog.evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)).then(() => undefined))
    return (await dialog.textContent()) ?? ''
  }
  const closed = (page: Page) => dialogOf(page).waitFor({ state: 'detached' })

  for (const c of CASES) {
    const lang = c.locale.slice(0, 2)
    it(`deletes a device group and rolls back a release only when confirmed (${lang}, ${c.width} px)`, async () => {
      const group = `grp-${lang}-${c.width}`
      const made = await t.admin('POST', '/api/v1/device-groups', { body: { name: group } })
      expect(made.status, made.text).to.equal(201)
      const groupExists = async () => (await t.admin('GET', `/api/v1/device-groups/${made.body.id}`)).status === 200
      const browserDialogs: string[] = []
      const page = await (await context(browser, { locale: c.locale, width: c.width, height: c.height })).newPage()
      page.on('dialog', (d) => { browserDialogs.push(d.message()); void d.dismiss() })
      await signInAt(page, t.url + '/device-groups', 'admin', PASSWORD)
      const del = page.getByRole('button', { name: `${c.delete} ${group}` })

      // (a) The delete asks in the page, titled with the group, naming what it touches.
      await del.click()
      const text = await opened(page)
      expect(await page.getByRole('dialog', { name: `${c.delete}: ${group}` }).getAttribute('data-testid'), 'the dialog is labelled by its title').to.equal('confirm-dialog')
      // …and what the server says refers to it (GET /device-groups/{id}/references, asked as the dialog opens): nothing here.
      expect(text).to.include(group).and.include(c.touches).and.include(c.devices).and.include(c.none)
      expect(await horizontalOverflow(page), 'no horizontal scroll').to.equal(0)
      const box = await dialogOf(page).boundingBox()
      expect(box!.x).to.be.at.least(0)
      expect(box!.x + box!.width).to.be.at.most(c.width)
      // The confirm button has the focus (Enter confirms).
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).to.equal('confirm-ok')
      if (lang === 'en' && c.width === 1280) await screenshot(page, 'confirm-delete')
      // (b) Cancel: nothing deleted.
      await dialogOf(page).getByRole('button', { name: c.cancel, exact: true }).click()
      await closed(page)
      expect(await groupExists()).to.equal(true)
      // (d) Escape: nothing deleted either.
      await del.click()
      await opened(page)
      await page.keyboard.press('Escape')
      await closed(page)
      expect(await groupExists()).to.equal(true)
      // (c) Enter on the focused confirm button: deleted, on the screen and on the server.
      await del.click()
      await opened(page)
      await page.keyboard.press('Enter')
      await closed(page)
      await del.waitFor({ state: 'detached' })
      expect(await groupExists()).to.equal(false)

      // The rollback: to the newest release that is not active, named with the one it replaces.
      const history = async () => (await t.admin('GET', `/api/v1/deploys?daemon=${DAEMON}`)).body.items as { id: string; release: string; status: string }[]
      const before = await history()
      const active = before.find((d) => d.status === 'active')!
      const target = before.find((d) => d.status === 'superseded' || d.status === 'rolled_back')!
      await page.goto(t.url + '/deploys')
      const rollback = page.getByTestId('history').getByRole('button', { name: `${c.rollback} ${DAEMON} ${target.release}` })
      // The releases replaced are read from the system info: wait for the pending table to show it.
      await page.getByTestId('pending').getByText(active.release).waitFor()
      await rollback.click()
      const asked = await opened(page)
      expect(asked).to.include(target.release).and.include(DAEMON).and.include(c.becomes).and.include(`${c.replaced} ${active.release}`)
      expect(await horizontalOverflow(page), 'no horizontal scroll').to.equal(0)
      if (lang === 'ru' && c.width === 768) await screenshot(page, 'confirm-rollback-ru-narrow')
      await page.keyboard.press('Escape')
      await closed(page)
      await rollback.click()
      await opened(page)
      await dialogOf(page).getByRole('button', { name: c.cancel, exact: true }).click()
      await closed(page)
      expect(await history(), 'cancelled twice: nothing rolled back').to.deep.equal(before)
      await rollback.click()
      await opened(page)
      await dialogOf(page).getByRole('button', { name: c.rollback, exact: true }).click()
      await closed(page)
      await page.getByTestId('deploy-result').waitFor()
      const now = await history()
      expect(now.find((d) => d.id === target.id)!.status).to.equal('active')
      expect(now.find((d) => d.id === active.id)!.status).to.equal('rolled_back')
      expect(browserDialogs, 'asked in the page, never by the browser').to.deep.equal([])
      await page.context().close()
    })
  }
})
