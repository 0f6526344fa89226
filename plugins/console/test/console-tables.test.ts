/**
 * The lists' one table piece (ui/src/components/ListTable.tsx, BulkBar.tsx, list-state.ts) in a
 * real browser, in English at 1280×800 and in Russian at 768 px:
 * - devices: a column header sorts (the order on screen, `aria-sort` and the address change), the
 *   page, the sort, the search, the page size and the group filter survive a reload;
 * - three devices selected by their labelled checkboxes are disabled at once, moved to a group at
 *   once, and deleted at once only once confirmed (Cancel changes nothing): each checked on the server;
 * - axe-core finds nothing serious or critical in the list with rows selected;
 * - NAC sessions: two selected sessions get a re-authentication each, with one summary; a disconnect
 *   the NAS refuses is reported per session;
 * - the audit trail and the deploy history: a header sorts (the order, `aria-sort` and the address
 *   change), and a reload keeps the page, the size, the sort and the filters.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import type { Browser, Page } from 'playwright-core'
import { jsonText } from '../../../sdk/index.js'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { expectAccessible, horizontalOverflow } from '../../../test/kit/browser.js'
import { answerConfirm, clearRateLimits, context, launch, needConsole, screenshot, signInAt, startWithAdmin } from './browser.js'

const PASSWORD = 'Portcullis-Tables-2026!'
const COUNT = 22

const CASES = [
  { locale: 'en-US', width: 1280, height: 800, address: 'Address', disable: 'Disable', move: 'Move to group', moveOk: 'Move', group: 'Group', del: 'Delete', selected: 'Selected: 3', perPage: 'Rows per page', daemon: 'Daemon', reauth: 'Re-authenticate', disconnect: 'Disconnect', done: (a: string, ok: number, n: number) => `${a}: ${ok} of ${n} done.`, failed: 'Failed: 2', nak: 'refused by the NAS (NAK)' },
  { locale: 'ru-RU', width: 768, height: 1024, address: 'Адрес', disable: 'Отключить', move: 'Переместить в группу', moveOk: 'Переместить', group: 'Группа', del: 'Удалить', selected: 'Выбрано: 3', perPage: 'Строк на странице', daemon: 'Демон', reauth: 'Повторная аутентификация', disconnect: 'Отключить', done: (a: string, ok: number, n: number) => `${a}: выполнено ${ok} из ${n}.`, failed: 'Не удалось: 2', nak: 'отклонено NAS (NAK)' },
] as const

/** The names in the table's rows, top to bottom. */
const shownNames = (page: Page, testId: string, attr: string) => page.getByTestId(testId).locator(`tbody tr[${attr}]`).evaluateAll((rows, a) => rows.map((r) => r.getAttribute(a)), attr)
/** Waits until the devices table's first row is `name` (a function, not a string: the console's CSP has no eval). */
const firstDevice = (page: Page, name: string) => page.waitForFunction((x) => document.querySelector('[data-testid="devices-table"] tbody tr')?.getAttribute('data-device') === x, name)

// Engine-independent; in the embedded run (the browser suites split between the runs).
;(runsOn('embedded') ? describe : describe.skip)('console: sortable lists kept in the address, and bulk actions', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  let nas: LoopbackNas
  let nasAddress: string
  beforeEach(() => clearRateLimits(t))

  before(async function () {
    needConsole(this)
    // A NAS that does not answer is given up on quickly.
    t = await startWithAdmin({ engine: 'embedded', plugins: ['inventory', 'radius', 'aaa-policy', 'nac', 'console'], settings: { 'nac.coa_timeout_ms': 300, 'nac.coa_retries': 0 } }, PASSWORD)
    nasAddress = `127.0.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`
    nas = await LoopbackNas.start(nasAddress, 'tables-coa-secret')
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: 'tables-nas', address: nasAddress, radius_secret: 'tables-coa-secret' } })
    expect(dev.status, dev.text).to.equal(201)
    expect((await t.admin('PUT', `/api/v1/nac/coa-nas/${dev.body.id}`, { body: { port: nas.port } })).status).to.equal(200)
    browser = await launch()
  })
  after(async () => {
    nas?.close()
    await browser?.close()
    await t?.stop()
  })

  for (const [n, c] of CASES.entries()) {
    const lang = c.locale.slice(0, 2)
    it(`devices: sort, page, size and filters in the address; bulk disable, move and delete (${lang}, ${c.width} px)`, async () => {
      // 22 devices whose address order is the reverse of their name order; a group to move three into.
      const prefix = `tb${lang}`
      const name = (i: number) => `${prefix}-sw-${String(i).padStart(2, '0')}`
      const ids = new Map<string, string>()
      for (let i = 1; i <= COUNT; i++) {
        const r = await t.admin('POST', '/api/v1/devices', { body: { name: name(i), address: `10.${60 + n}.0.${100 - i}` } })
        expect(r.status, r.text).to.equal(201)
        ids.set(name(i), r.body.id)
      }
      const grp = await t.admin('POST', '/api/v1/device-groups', { body: { name: `${prefix}-moved` } })
      expect(grp.status, grp.text).to.equal(201)

      const page = await (await context(browser, { locale: c.locale, width: c.width, height: c.height })).newPage()
      await signInAt(page, `${t.url}/devices?search=${prefix}`, 'admin', PASSWORD)
      const table = page.getByTestId('devices-table')
      const names = () => shownNames(page, 'devices-table', 'data-device')
      await table.locator(`tr[data-device="${name(1)}"]`).waitFor()
      expect(await names()).to.deep.equal(Array.from({ length: 20 }, (_, i) => name(i + 1)), 'by name, 20 a page')
      const addressTh = table.locator('th:has(button[data-sort="address"])')
      expect(await addressTh.getAttribute('aria-sort')).to.equal('none')
      expect(await addressTh.getByRole('button').textContent()).to.include(c.address)

      // Sorted by address (a click), then the other way (a second one): the order and the address follow.
      await addressTh.getByRole('button').click()
      await firstDevice(page, name(COUNT))
      expect(await addressTh.getAttribute('aria-sort')).to.equal('ascending')
      expect(new URL(page.url()).searchParams.get('sort_by')).to.equal('address')
      await addressTh.getByRole('button').click()
      await firstDevice(page, name(1))
      expect(await addressTh.getAttribute('aria-sort')).to.equal('descending')
      expect(new URL(page.url()).searchParams.get('sort_order')).to.equal('desc')
      // Page 2 of 2: the last two by address, descending.
      await page.getByRole('button', { name: '2', exact: true }).click()
      await table.locator(`tr[data-device="${name(22)}"]`).waitFor()
      expect(await names()).to.deep.equal([name(21), name(22)])
      const url = page.url()
      expect(new URL(url).searchParams.get('page')).to.equal('2')
      expect(await horizontalOverflow(page), 'no horizontal scroll').to.equal(0)

      // A reload lands on the same list: search, sort (aria-sort too) and page.
      await page.reload()
      await table.locator(`tr[data-device="${name(22)}"]`).waitFor()
      expect(page.url()).to.equal(url)
      expect(await names()).to.deep.equal([name(21), name(22)])
      expect(await addressTh.getAttribute('aria-sort')).to.equal('descending')
      expect(await page.locator('main input[type="search"]').inputValue()).to.equal(prefix)

      // The page size: 50 shows all 22 (back to page 1); kept in the address and after a reload.
      await page.getByLabel(c.perPage).selectOption('50')
      await table.locator(`tr[data-device="${name(3)}"]`).waitFor()
      expect(await names()).to.have.length(COUNT)
      expect(new URL(page.url()).searchParams.get('per_page')).to.equal('50')
      expect(new URL(page.url()).searchParams.get('page')).to.equal(null)
      await page.reload()
      await table.locator(`tr[data-device="${name(3)}"]`).waitFor()
      expect(await names()).to.have.length(COUNT)
      expect(await page.getByLabel(c.perPage).inputValue()).to.equal('50')

      // Three selected by their labelled checkboxes, then disabled at once.
      const three = [name(3), name(7), name(11)]
      for (const x of three) await page.getByRole('checkbox', { name: new RegExp(` ${x}$`) }).check()
      const bar = page.getByTestId('bulk-bar')
      expect(await bar.getByTestId('bulk-count').textContent()).to.equal(c.selected)
      // The table with its checkboxes, sort buttons and the toolbar: nothing serious or critical for axe-core.
      await expectAccessible(page, `devices, three selected (${lang})`, ['main'])
      await bar.getByRole('button', { name: c.disable, exact: true }).click()
      await page.getByTestId('bulk-result').getByText(c.done(c.disable, 3, 3)).waitFor()
      for (const x of three) expect((await t.admin('GET', `/api/v1/devices/${ids.get(x)}`)).body.enabled, x).to.equal(false)
      expect((await t.admin('GET', `/api/v1/devices/${ids.get(name(4))}`)).body.enabled, 'one not selected').to.equal(true)

      // The same three moved to the group (picked in the dialog).
      for (const x of three) await page.getByRole('checkbox', { name: new RegExp(` ${x}$`) }).check()
      await bar.getByRole('button', { name: c.move, exact: true }).click()
      const chooser = page.getByTestId('bulk-choose')
      await chooser.getByLabel(c.group).click()
      await page.getByRole('option', { name: `${prefix}-moved` }).click()
      await chooser.getByRole('button', { name: c.moveOk, exact: true }).click()
      await page.getByTestId('bulk-result').getByText(c.done(c.move, 3, 3)).waitFor()
      for (const x of three) expect((await t.admin('GET', `/api/v1/devices/${ids.get(x)}`)).body.device_group_id, x).to.equal(grp.body.id)

      // The group filter (in the address): the three alone, also after a reload.
      await page.goto(`${t.url}/devices?group=${grp.body.id}`)
      await table.locator(`tr[data-device="${name(11)}"]`).waitFor()
      expect((await names()).sort()).to.deep.equal(three)
      await page.reload()
      await table.locator(`tr[data-device="${name(11)}"]`).waitFor()
      expect((await names()).sort()).to.deep.equal(three)

      // An AAA policy rule names the first of them: the server would refuse that delete (409 while it does).
      const holder = (await t.admin('POST', '/api/v1/user-groups', { body: { name: `bulk-hold-${n}` } })).body
      const rule = await t.admin('POST', '/api/v1/aaa/policy/rules', { body: { name: `bulk-hold-${n}`, who: { group_id: holder.id }, where: { device_id: ids.get(three[0]) } } })
      expect(rule.status, rule.text).to.equal(201)

      // Select all (the page's three), delete: the dialog names how many and which, and what holds one of
      // them (read from each device's references when asked); Cancel keeps them.
      await page.getByTestId('select-all').check()
      expect(await bar.getByTestId('bulk-count').textContent()).to.equal(c.selected)
      await bar.getByRole('button', { name: c.del, exact: true }).click()
      await page.getByTestId('confirm-blocking').getByText(new RegExp(`^${three[0]}: .*bulk-hold-${n}$`)).waitFor()
      const asked = await answerConfirm(page, 'cancel')
      expect(asked).to.include('3')
      for (const x of three) expect(asked).to.include(x)
      expect((await t.admin('DELETE', `/api/v1/aaa/policy/rules/${rule.body.id}`)).status).to.equal(204)
      for (const x of three) expect((await t.admin('GET', `/api/v1/devices/${ids.get(x)}`)).status, `${x} kept`).to.equal(200)
      if (lang === 'en') await screenshot(page, 'table-bulk')
      await bar.getByRole('button', { name: c.del, exact: true }).click()
      await answerConfirm(page, 'confirm')
      await page.getByTestId('bulk-result').getByText(c.done(c.del, 3, 3)).waitFor()
      for (const x of three) expect((await t.admin('GET', `/api/v1/devices/${ids.get(x)}`)).status, `${x} deleted`).to.equal(404)
      expect((await t.admin('GET', `/api/v1/devices/${ids.get(name(4))}`)).status, 'one not selected').to.equal(200)
      await page.context().close()
    })

    it(`NAC sessions: a CoA for the selected sessions, one summary, failures per session (${lang}, ${c.width} px)`, async () => {
      // Two endpoints last seen on the loopback NAS, each with a live session (what accounting writes).
      const macs = [`02:00:5e:10:0${n}:01`, `02:00:5e:10:0${n}:02`]
      const knex = t.app.db.knex
      const now = Date.now()
      // The other case's sessions on this NAS have ended: the list (live, this NAS) shows these two alone.
      await knex('nac_sessions').where({ nas_ip: nasAddress }).whereNull('stopped_at').update({ stopped_at: new Date(now - 1000) })
      for (const [i, mac] of macs.entries()) {
        const e = await t.admin('POST', '/api/v1/nac/endpoints', { body: { mac } })
        expect(e.status, e.text).to.equal(201)
        await knex('nac_endpoints').where({ id: e.body.id }).update({ last_nas_ip: nasAddress, last_nas_port: `Gi1/0/${i + 1}`, last_seen_at: new Date(), last_auth_result: 'accept' })
        await knex('nac_sessions').insert({ nas_ip: nasAddress, acct_session_id: `TB-${lang}-${i}`, mac, username: `tb-${lang}-user-${i}`, nas_port: `Gi1/0/${i + 1}`, started_at: new Date(now - 600_000), last_update_at: new Date(now - 60_000), interim_interval: 600 })
      }
      const page = await (await context(browser, { locale: c.locale, width: c.width, height: c.height })).newPage()
      await signInAt(page, `${t.url}/nac/sessions?state=live&nas_ip=${nasAddress}`, 'admin', PASSWORD)
      const table = page.getByTestId('sessions-table')
      await table.locator(`tr[data-session="TB-${lang}-1"]`).waitFor()
      expect(await table.locator('tbody tr').count(), 'the state and NAS filters from the address').to.equal(2)
      await page.getByTestId('select-all').check()
      const bar = page.getByTestId('bulk-bar')
      const before = nas.received.length
      nas.answer = { kind: 'ack' }
      await bar.getByRole('button', { name: c.reauth, exact: true }).click()
      await page.getByTestId('bulk-result').getByText(c.done(c.reauth, 2, 2)).waitFor()
      expect(nas.received.length - before, 'one CoA-Request a session').to.equal(2)

      // A disconnect, asked first (both sessions named), which the NAS refuses: each failure listed.
      nas.answer = { kind: 'nak', errorCause: 503 }
      await page.getByTestId('select-all').check()
      await bar.getByRole('button', { name: c.disconnect, exact: true }).click()
      const asked = await answerConfirm(page, 'confirm')
      for (const mac of macs) expect(asked).to.include(mac)
      const result = page.getByTestId('bulk-result')
      await result.getByText(c.done(c.disconnect, 0, 2)).waitFor()
      expect(await result.textContent()).to.include(c.failed).and.include(c.nak).and.include(macs[0]).and.include(macs[1])
      // The failed sessions stay selected, to retry.
      expect(await page.getByTestId('select-all').isChecked()).to.equal(true)
      expect(await horizontalOverflow(page), 'no horizontal scroll').to.equal(0)
      await page.context().close()
    })

    it(`the audit trail and the deploy history: a header sorts (order, aria-sort, address), a reload keeps page, size, sort and filters (${lang}, ${c.width} px)`, async () => {
      // Three audit entries of one device (created, changed, deleted), found by its id.
      const made = await t.admin('POST', '/api/v1/devices', { body: { name: `tb${lang}-audited`, address: `10.${70 + n}.0.1` } })
      expect(made.status, made.text).to.equal(201)
      expect((await t.admin('PUT', `/api/v1/devices/${made.body.id}`, { body: { vendor: 'cisco' } })).status).to.equal(200)
      expect((await t.admin('DELETE', `/api/v1/devices/${made.body.id}`)).status).to.equal(204)
      const actions = ((await t.admin('GET', `/api/v1/audit?resource_id=${made.body.id}`)).body.items as { action: string }[]).map((e) => e.action).sort()
      expect(actions).to.have.length(3)

      const page = await (await context(browser, { locale: c.locale, width: c.width, height: c.height })).newPage()
      await signInAt(page, `${t.url}/audit?resource_id=${made.body.id}`, 'admin', PASSWORD)
      const audit = page.getByTestId('audit-table')
      const shown = () => audit.locator('tbody tr[data-action]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')))
      const firstAction = (x: string) => page.waitForFunction((a) => document.querySelector('[data-testid="audit-table"] tbody tr')?.getAttribute('data-action') === a, x)
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-table"] tbody tr[data-action]').length === 3)
      const actionTh = audit.locator('th:has(button[data-sort="action"])')
      expect(await audit.locator('th:has(button[data-sort="at"])').getAttribute('aria-sort'), 'newest first by default').to.equal('descending')
      expect(await actionTh.getAttribute('aria-sort')).to.equal('none')
      await actionTh.getByRole('button').click()
      await firstAction(actions[0])
      expect(await shown()).to.deep.equal(actions)
      expect(await actionTh.getAttribute('aria-sort')).to.equal('ascending')
      await actionTh.getByRole('button').click()
      await firstAction(actions[2])
      expect(await shown()).to.deep.equal([...actions].reverse())
      await page.getByLabel(c.perPage).selectOption('100')
      expect(Object.fromEntries(new URL(page.url()).searchParams)).to.deep.equal({ resource_id: made.body.id, sort_by: 'action', sort_order: 'desc', per_page: '100' })
      await page.reload()
      await firstAction(actions[2])
      expect(await shown()).to.deep.equal([...actions].reverse())
      expect(await actionTh.getAttribute('aria-sort')).to.equal('descending')
      expect(await page.locator('input[name="resource_id"]').inputValue()).to.equal(made.body.id)
      expect(await page.getByLabel(c.perPage).inputValue()).to.equal('100')
      expect(await horizontalOverflow(page), 'no horizontal scroll').to.equal(0)

      // 22 releases of a daemon of this case, one a minute: r-05 active, r-10 failed, the others superseded.
      const daemon = `tb-${lang}-daemon`
      const release = (i: number) => `${lang}-r-${String(i).padStart(2, '0')}`
      const base = Date.now() - 3_600_000
      await t.app.db.knex('deploys').insert(Array.from({ length: COUNT }, (_, k) => ({
        id: randomUUID(), daemon, release: release(k + 1), status: k + 1 === 5 ? 'active' : k + 1 === 10 ? 'failed' : 'superseded',
        files: jsonText([]), created_at: new Date(base + k * 60_000), actor_name: 'admin',
      })))
      const releases = () => page.getByTestId('history-table').locator('tbody tr[data-release]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-release')))
      const firstRelease = (x: string) => page.waitForFunction((r) => document.querySelector('[data-testid="history-table"] tbody tr')?.getAttribute('data-release') === r, x)
      await page.goto(`${t.url}/deploys?daemon=${daemon}`)
      await firstRelease(release(COUNT))
      expect(await releases(), 'newest first, 20 a page').to.have.length(20)
      const history = page.getByTestId('history-table')
      const statusTh = history.locator('th:has(button[data-sort="status"])')
      await statusTh.getByRole('button').click()
      await firstRelease(release(5))
      expect((await releases()).slice(0, 2), 'active, then failed, then superseded').to.deep.equal([release(5), release(10)])
      expect(await statusTh.getAttribute('aria-sort')).to.equal('ascending')
      expect(await history.locator('th:has(button[data-sort="created_at"])').getAttribute('aria-sort')).to.equal('none')
      await page.getByTestId('history').getByRole('button', { name: '2', exact: true }).click()
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-table"] tbody tr[data-release]').length === 2)
      const url = page.url()
      expect(Object.fromEntries(new URL(url).searchParams)).to.deep.equal({ daemon, sort_by: 'status', sort_order: 'asc', page: '2' })
      const second = await releases()
      await page.reload()
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-table"] tbody tr[data-release]').length === 2)
      expect(page.url()).to.equal(url)
      expect(await releases(), 'the same page after a reload').to.deep.equal(second)
      expect(await statusTh.getAttribute('aria-sort')).to.equal('ascending')
      expect(await page.getByTestId('history').getByLabel(c.daemon, { exact: true }).inputValue()).to.equal(daemon)
      expect(await horizontalOverflow(page), 'no horizontal scroll').to.equal(0)
      await page.context().close()
    })
  }
})
