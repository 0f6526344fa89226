/**
 * The dashboard's activity cards and the logs screen's range and live tail (issue 34 item 14), signed
 * in as the admin, at 1280×800 and at 768 px, in English and in Russian:
 * - the TACACS+ chart's label and the bar of the minute the rows were logged say the counts inserted
 *   (2 succeeded, 3 failed), and the NAC chart its own;
 * - the top failing users list the user who failed, the devices list its device;
 * - a certificate that ends in 10 days is listed under the certificates expiring;
 * - the logs screen's "last 15 minutes" (RADIUS accounting) leaves out an entry of 20 minutes ago and
 *   shows one of 5, and the live tail shows, marked new and on top, an entry written after it opened;
 * - the live NAC sessions card counts the two open sessions, not a stopped one;
 * - a user with pki.view only sees the certificates and, on every other new card, that they may not.
 * Rows are written as the ingester writes them (the rollup's triggers fire).
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { createCa, createTemplate, csrWithSubject, issue } from '../../pki/test/helpers.js'
import { logTable } from '../../aaa-logs/test/helpers.js'
import { acctLine, recordAccounting } from '../../nac/test/radius-lines.js'
import { context, pickOption, signInAt, browserSuite } from './browser.js'

const PASSWORD = 'Portcullis-Dashboard-2026!'
const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'pki', 'nac', 'console']
const NODE = randomUUID()
const CN = 'expiring-soon.example.net'

const CASES = [
  { locale: 'en-US', width: 1280, counts: '2 succeeded, 3 failed', nac: '1 succeeded, 1 failed', range: 'Range', last15: 'Last 15 minutes', live: 'Live tail', tacacs: 'TACACS+' },
  { locale: 'ru-RU', width: 768, counts: 'успешно 2, неуспешно 3', nac: 'успешно 1, неуспешно 1', range: 'Период', last15: 'Последние 15 минут', live: 'Живой просмотр', tacacs: 'TACACS+' },
  { locale: 'en-US', width: 768, counts: '2 succeeded, 3 failed', nac: '1 succeeded, 1 failed', range: 'Range', last15: 'Last 15 minutes', live: 'Live tail', tacacs: 'TACACS+' },
  { locale: 'ru-RU', width: 1280, counts: 'успешно 2, неуспешно 3', nac: 'успешно 1, неуспешно 1', range: 'Период', last15: 'Последние 15 минут', live: 'Живой просмотр', tacacs: 'TACACS+' },
] as const

// A browser run is engine-independent: once per npm test, in the PostgreSQL run.
;(runsOn('postgres') ? describe : describe.skip)('console: the dashboard activity cards and the logs live tail', function () {
  this.timeout(600_000)
  let t: TestApp
  let browser: Browser
  let offset = 0
  // Every row of the charts at one instant: one minute, one hour, whatever the clock says.
  // Set when the suite's records are made, not when mocha loads the file: in a whole run that is an hour earlier.
  let at = ''
  const row = (username: string, timestamp = at) => ({ timestamp, username, nas_ip: '192.0.2.77', device_name: 'edge-dash', node_id: NODE, source_file: '/var/log/x.log', source_offset: offset++ })
  browserSuite({ plugins: PLUGINS, env: { TAC_PLUS_NG: '/nonexistent/sbin/tac_plus-ng' }, settings: { 'aaa-logs.ingest_enabled': false } }, PASSWORD, (app, b) => ([t, browser] = [app, b]))
  before(async () => {
    at = new Date(Date.now() - 5 * 60_000).toISOString()
    const knex = t.app.db.knex
    await logTable(knex, 'tacacs_authentication').insert([
      { ...row('alice-dash'), status: 'success' },
      { ...row('alice-dash'), status: 'success' },
      ...[1, 2, 3].map(() => ({ ...row('mallory-dash'), status: 'failure' as const })),
    ])
    await logTable(knex, 'radius_authentication').insert([
      { ...row('laptop-dash'), status: 'accept', auth_type: 'PEAP' },
      { ...row('aa-bb-cc-00-11-22'), status: 'reject', auth_type: 'MAB' },
    ])
    // The logs screen's part reads RADIUS accounting: nothing there counts in the charts or the failures.
    await logTable(knex, 'radius_accounting').insert([
      { ...row('old-entry', new Date(Date.now() - 20 * 60_000).toISOString()), acct_status_type: 'Start' },
      { ...row('recent-entry'), acct_status_type: 'Start' },
    ])
    // Live NAC sessions through the ingester's own step (FreeRADIUS accounting lines, parsed, folded
    // into sessions): two started, a third started and stopped. The card counts the two.
    const nowS = Math.floor(Date.now() / 1000)
    const lines = [
      acctLine({ ts: nowS - 30, mac: '02:da:5b:00:00:01', status: 'Start', sid: 'dash-live-1' }),
      acctLine({ ts: nowS - 20, mac: '02:da:5b:00:00:02', status: 'Start', sid: 'dash-live-2' }),
      acctLine({ ts: nowS - 40, mac: '02:da:5b:00:00:03', status: 'Start', sid: 'dash-ended' }),
      acctLine({ ts: nowS - 10, mac: '02:da:5b:00:00:03', status: 'Stop', sid: 'dash-ended', time: 30 }),
    ]
    await recordAccounting(knex, lines)
    const live = await t.admin('GET', '/api/v1/nac/sessions?state=live&per_page=1')
    expect(live.body.total_by_filter, live.text).to.equal(2)
    const ca = await createCa(t)
    const tpl = await createTemplate(t, { validity_days: 10 })
    await issue(t, ca.id, tpl.id, csrWithSubject([['CN', CN]]))
  })

  const card = (page: Page, id: string) => page.getByTestId(id)

  for (const c of CASES) {
    const lang = c.locale.slice(0, 2)
    it(`shows the authentications, top failures and expiring certificates, and the logs' last 15 minutes with a live tail (${lang}, ${c.width} px)`, async () => {
      const page = await (await context(browser, { locale: c.locale, width: c.width, height: 800 })).newPage()
      await signInAt(page, `${t.url}/`, 'admin', PASSWORD)

      // The charts (24 hours by default, hour buckets): the TACACS+ and NAC counts, the chart's label and its one bar.
      const chartT = card(page, 'chart-tacacs')
      const tLabel = await chartT.locator('svg').getAttribute('aria-label', { timeout: 20_000 })
      expect(tLabel).to.contain(c.counts)
      const bars = chartT.getByRole('img')
      expect(await bars.count()).to.equal(1)
      expect(await bars.first().getAttribute('aria-label')).to.match(new RegExp(`^\\d\\d:00: ${c.counts}$`))
      expect(await card(page, 'chart-nac').locator('svg').getAttribute('aria-label')).to.contain(c.nac)

      // Top failures: the user and the device; the certificate ending in 10 days.
      await card(page, 'top-users').getByText('mallory-dash').waitFor()
      expect(await card(page, 'top-users').locator('tbody tr').first().innerText()).to.match(/mallory-dash\s+3/)
      expect(await card(page, 'top-devices').locator('tbody tr').first().innerText()).to.match(/edge-dash \(192\.0\.2\.77\)\s+4/)
      await card(page, 'expiring-certificates').getByText(CN).waitFor()
      // The live NAC sessions: the two open ones, not the stopped one.
      expect(await card(page, 'nac-sessions').getByTestId('live-sessions').innerText()).to.equal('2')

      // The logs: the last 15 minutes (the entry of 20 minutes ago left out), then a live tail.
      await page.goto(`${t.url}/logs?kind=radius/accounting`)
      await page.locator('tr[data-username="old-entry"]').waitFor()
      await pickOption(page, c.range, c.last15)
      await page.locator('tr[data-username="old-entry"]').waitFor({ state: 'detached' })
      await page.locator('tr[data-username="recent-entry"]').waitFor()
      expect(new URL(page.url()).searchParams.get('range')).to.equal('15m')
      await page.getByRole('switch', { name: c.live }).check()
      const tailUser = `tail-${lang}-${c.width}`
      await logTable(t.app.db.knex, 'radius_accounting').insert({ ...row(tailUser, new Date().toISOString()), acct_status_type: 'Stop' })
      const fresh = page.locator(`tr[data-username="${tailUser}"][data-new="true"]`)
      await fresh.waitFor({ timeout: 20_000 })
      expect(await page.locator('tbody tr').first().getAttribute('data-username')).to.equal(tailUser)
      await page.context().close()
    })
  }

  it('says so on each card the user may not read, and shows the one they may (pki.view only)', async () => {
    const role = await t.admin('POST', '/api/v1/roles', { body: { name: 'cert-watcher', permissions: ['pki.view'] } })
    expect(role.status, role.text).to.equal(201)
    const user = await t.admin('POST', '/api/v1/users', { body: { username: 'cora', password: 'Cert-Watcher-Pass-42x', role_ids: [role.body.id] } })
    expect(user.status, user.text).to.equal(201)
    const page = await (await context(browser, { locale: 'en-US', width: 1280, height: 800 })).newPage()
    await signInAt(page, `${t.url}/`, 'cora', 'Cert-Watcher-Pass-42x')
    await card(page, 'expiring-certificates').getByText(CN).waitFor()
    for (const id of ['auth-activity', 'top-failures', 'pending-changes', 'nac-sessions']) {
      expect(await card(page, id).getByTestId('no-permission').innerText(), id).to.equal('Your roles do not let you see this.')
    }
    expect(await card(page, 'auth-activity').locator('svg').count()).to.equal(0)
    await page.context().close()
  })
})
