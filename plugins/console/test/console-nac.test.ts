/**
 * The console's NAC screens in a real browser (headless chromium) against the
 * real server on a throwaway PostgreSQL, as a person uses them: an endpoint
 * group, an endpoint in it (a multicast MAC refused under its input, the
 * address shown canonical with its vendor), an authorization profile (a VLAN
 * out of range refused under its input, the reply it sends shown), NAC rules
 * with conditions (made in the form), a reorder by drag and one by keyboard,
 * the policy test with its trace beside the rules (the answer following the
 * order), the policy test in Russian, and what a reader without the write
 * permissions is shown; an endpoint's device type set by hand and handed back
 * to profiling, the CoA history with its filters (reached from the endpoint),
 * and a NAS's CoA settings (a port out of range refused under its input).
 */
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { context, inputError, launch, needConsole, screenshot, signInAt, startWithAdmin, clearRateLimits, answerConfirm, signInWithToken } from './browser.js'

const PASSWORD = 'Portcullis-Nac-2026!'
const RULES = '/api/v1/nac/policy/rules'

const signIn = (page: Page, t: TestApp, to: string, username = 'admin', password = PASSWORD) => signInAt(page, t.url + to, username, password)

/** Picks `option` in the Mantine Select or MultiSelect whose input is labelled `label` (its label element or aria-label). */
async function pick(page: Page, label: string | RegExp, option: string | RegExp) {
  // force: a MultiSelect's pills box lies over its input (a person clicks the box).
  await page.getByRole('dialog').getByLabel(label).first().click({ force: true })
  await page.getByRole('option', { name: option }).first().click()
}

const shownOrder = (page: Page) => page.getByTestId('nac-rules').locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rule')))
const apiOrder = async (t: TestApp) => ((await t.admin('GET', RULES)).body as { name: string }[]).map((r) => r.name)
/** Waits until the list's first row is the rule `name` (a function, not a string: the console's CSP has no eval). */
const firstRule = (page: Page, name: string) => page.waitForFunction((n) => document.querySelector('[data-testid="nac-rules"] tbody tr')?.getAttribute('data-rule') === n, name)

// In the embedded run: the browser suites are split between the two runs so that they end together (suite time).
;(runsOn('embedded') ? describe : describe.skip)('console: the NAC screens in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  beforeEach(() => clearRateLimits(t))
  let browser: Browser
  let nas: LoopbackNas | undefined

  before(async function () {
    needConsole(this)
    // A NAS that does not answer a CoA is given up on quickly (the screen shows the timeout, not a hang).
    t = await startWithAdmin({ engine: 'embedded', plugins: ['inventory', 'radius', 'nac', 'console'], settings: { 'nac.coa_timeout_ms': 300, 'nac.coa_retries': 0 } }, PASSWORD)
    // The switch the policy test names; its own screen is not this file's subject.
    const sw = await t.admin('POST', '/api/v1/devices', { body: { name: 'access-sw-1', address: '10.2.0.1', radius_secret: 'radius-secret-1' } })
    expect(sw.status, sw.text).to.equal(201)
    browser = await launch()
  })
  after(async () => {
    nas?.close()
    await browser?.close()
    await t?.stop()
  })

  it('makes an endpoint group, an endpoint in it and an authorization profile, each refusal under its input', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/nac/endpoint-groups')
    await page.getByRole('heading', { name: 'Endpoint groups', level: 1 }).waitFor()
    const nav = page.getByRole('navigation')
    for (const s of ['Endpoints', 'Authorization profiles', 'NAC policy']) await nav.getByRole('link', { name: s }).waitFor()

    await page.getByRole('button', { name: 'Add group' }).click()
    await page.locator('input[name="name"]').fill('printers')
    await page.locator('textarea[name="description"]').fill('Office printers (MAB)')
    await page.getByRole('button', { name: 'Create' }).click()
    const row = page.getByTestId('endpoint-groups-table').locator('tr[data-group="printers"]')
    await row.getByText('Office printers (MAB)').waitFor()

    // Its endpoint count links to its endpoints: none yet.
    await row.getByRole('link', { name: 'Show the endpoints of printers' }).click()
    await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).to.equal('/nac/endpoints')
    await page.getByText('No endpoints yet.').waitFor()

    // A multicast address is no endpoint's: refused under the MAC input, nothing made.
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await page.locator('input[name="mac"]').fill('01:00:5E:00:00:FB')
    await pick(page, 'Group', 'printers')
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'mac')).to.match(/group|multicast/i)
    expect((await t.admin('GET', '/api/v1/nac/endpoints')).body.total).to.equal(0)
    // Written the Windows way, shown canonical, with its vendor from the IEEE registry, in the group.
    await page.locator('input[name="mac"]').fill('00-1B-63-84-45-E6')
    await page.locator('textarea[name="description"]').fill('Printer, 2nd floor')
    await page.getByRole('button', { name: 'Create' }).click()
    const ep = page.getByTestId('endpoints-table').locator('tr[data-mac="00:1b:63:84:45:e6"]')
    await ep.getByText('printers').waitFor()
    expect(await ep.textContent()).to.include('Apple')
    // The same MAC in another notation: 409 under the input.
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await page.locator('input[name="mac"]').fill('001b.6384.45e6')
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'mac')).to.not.equal('')
    await page.getByRole('button', { name: 'Cancel' }).click()
    // Search by a MAC fragment in yet another notation, and the vendor filter.
    await page.getByRole('searchbox').fill('84-45-E6')
    await ep.waitFor()
    await page.getByLabel('Vendor starts with').fill('cisco')
    await page.getByText('0 in all').waitFor()
    await page.getByLabel('Vendor starts with').fill('')
    await page.getByRole('searchbox').fill('')
    await ep.waitFor()

    // A profile: VLAN 5000 is out of range, refused under the VLAN input; 30 is taken and its reply shown.
    await nav.getByRole('link', { name: 'Authorization profiles' }).click()
    await page.getByRole('heading', { name: 'Authorization profiles', level: 1 }).waitFor()
    await page.getByTestId('profiles-table').locator('tr[data-profile="deny"]').getByText('Access-Reject', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Add profile' }).click()
    await page.locator('input[name="name"]').fill('printers-vlan')
    await page.locator('input[name="vlan"]').fill('5000')
    await page.locator('input[name="acl"]').fill('PRINTERS-IN')
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'vlan')).to.include('5000')
    // A timer refused where it belongs too: below a minute.
    await page.locator('input[name="vlan"]').fill('30')
    await page.locator('input[name="session_timeout"]').fill('30')
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'session_timeout')).to.not.equal('')
    await page.locator('input[name="session_timeout"]').fill('3600')
    await page.getByRole('button', { name: 'Create' }).click()
    const prof = page.getByTestId('profiles-table').locator('tr[data-profile="printers-vlan"]')
    await prof.getByText('Tunnel-Private-Group-Id = 30').waitFor()
    await prof.getByText('Filter-Id = PRINTERS-IN').waitFor()
    await screenshot(page, 'nac-profiles')
    await page.context().close()
  })

  it('makes NAC rules with conditions, reorders them by drag and by keyboard, and runs the policy test beside them', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/nac/policy')
    await page.getByRole('heading', { name: 'NAC policy', level: 1 }).waitFor()
    await page.getByTestId('nac-rules').locator('tr[data-rule="default"]').waitFor()

    // MAB for the printers group gets the printers VLAN; a bad time window first, refused under its condition.
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.locator('input[name="name"]').fill('printers-mab')
    await pick(page, 'Authorization profile', 'printers-vlan')
    await pick(page, 'Add condition', 'Method')
    await pick(page, 'Method', 'mab')
    await pick(page, 'Add condition', 'Endpoint group')
    await pick(page, 'Endpoint group', 'printers')
    await pick(page, 'Add condition', 'Time window')
    await page.getByRole('dialog').getByLabel('To (HH:MM)').fill('08:00')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.locator('[data-condition="time_window"] [data-testid="condition-error"]').waitFor()
    expect(await apiOrder(t)).to.deep.equal(['default'])
    await page.getByRole('dialog').getByRole('button', { name: 'Remove condition: Time window' }).click()
    await page.getByRole('button', { name: 'Create' }).click()
    const printers = page.getByTestId('nac-rules').locator('tr[data-rule="printers-mab"]')
    await printers.getByText('Endpoint group: printers').waitFor()

    // Every other MAB request denied: made below, before the default rule.
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.locator('input[name="name"]').fill('mab-deny')
    await pick(page, 'Authorization profile', /^deny/)
    await pick(page, 'Add condition', 'Method')
    await pick(page, 'Method', 'mab')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('nac-rules').locator('tr[data-rule="mab-deny"]').waitFor()
    expect(await shownOrder(page)).to.deep.equal(['printers-mab', 'mab-deny', 'default'])

    // The printer's MAB request: accepted by the first rule, with the VLAN; the trace has that one rule.
    const test = page.getByTestId('nac-policy-test')
    await test.locator('input[name="mac"]').fill('00:1b:63:84:45:e6')
    await test.locator('input[name="nas_ip"]').fill('10.2.0.1')
    await test.getByRole('button', { name: 'Test' }).click()
    await test.getByTestId('nac-decision').getByText('Accept').waitFor()
    await test.getByText('Rule printers-mab decided').waitFor()
    await test.getByTestId('nac-reply').getByText(/Tunnel-Private-Group-Id = 30/).waitFor()
    expect(await test.getByTestId('nac-trace').locator('tbody tr').count()).to.equal(1)
    await test.getByTestId('nac-resolved').getByText(/in printers/).waitFor()
    // An unknown MAC passes the first rule by (its reason shown) and is denied by the second.
    await test.locator('input[name="mac"]').fill('00:1b:63:00:00:01')
    await test.getByRole('button', { name: 'Test' }).click()
    await test.getByTestId('nac-decision').getByText('Reject').waitFor()
    await test.getByTestId('nac-trace').locator('tr[data-step="printers-mab"]').getByText(/none of the endpoint groups/).waitFor()

    // Drag the deny rule above: the server has the new order, and the printer is now rejected.
    await test.locator('input[name="mac"]').fill('00:1b:63:84:45:e6')
    await page.locator('tr[data-rule="mab-deny"]').dragTo(page.locator('tr[data-rule="printers-mab"]'))
    await firstRule(page, 'mab-deny')
    expect(await apiOrder(t)).to.deep.equal(['mab-deny', 'printers-mab', 'default'])
    await test.getByRole('button', { name: 'Test' }).click()
    await test.getByText('Rule mab-deny decided').waitFor()
    await test.getByTestId('nac-decision').getByText('Reject').waitFor()
    await screenshot(page, 'nac-policy')

    // By keyboard: focus the deny rule's row, Alt+↓ moves it below again (and a screen reader hears it).
    await page.locator('tr[data-rule="mab-deny"]').focus()
    await page.keyboard.press('Alt+ArrowDown')
    await firstRule(page, 'printers-mab')
    expect(await apiOrder(t)).to.deep.equal(['printers-mab', 'mab-deny', 'default'])
    await page.getByRole('status').filter({ hasText: 'mab-deny moved to position 2.' }).waitFor({ state: 'attached' })
    // The focus stays on the moved rule, for the next Alt+↑ / Alt+↓.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-rule') === 'mab-deny')
    // The default rule does not move.
    expect(await page.locator('tr[data-rule="default"]').getAttribute('draggable')).to.equal('false')
    await page.context().close()
  })

  it('runs the NAC policy test in Russian, a bad switch address refused under its input in Russian', async () => {
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await signIn(page, t, '/nac/policy')
    await page.getByRole('heading', { name: 'Политика NAC', level: 1 }).waitFor()
    const test = page.getByTestId('nac-policy-test')
    await test.locator('input[name="mac"]').fill('00:1b:63:84:45:e6')
    await test.locator('input[name="nas_ip"]').fill('10.99.0.1')
    await test.getByRole('button', { name: 'Проверить' }).click()
    const said = await inputError(page, 'nas_ip')
    expect(said).to.include('10.99.0.1')
    expect(said).to.match(/[а-я]/i)
    await test.locator('input[name="nas_ip"]').fill('10.2.0.1')
    await test.getByRole('button', { name: 'Проверить' }).click()
    await test.getByTestId('nac-decision').getByText('Допуск').waitFor()
    await test.getByText('Решило правило printers-mab').waitFor()
    await page.context().close()
  })

  it('shows a reader the NAC screens without their write controls, and leaves out a screen without its permission', async () => {
    const token = await t.token({ permissions: ['nac.read', 'nac.policy.read'] })
    const c = await context(browser, { locale: 'en-US' })
    await signInWithToken(c, t.url, token)
    const page = await c.newPage()
    await page.goto(t.url + '/nac/policy')
    await page.getByRole('heading', { name: 'NAC policy', level: 1 }).waitFor()
    await page.getByTestId('nac-rules').locator('tr[data-rule="printers-mab"]').waitFor()
    expect(await page.getByRole('button', { name: 'Add rule' }).count()).to.equal(0)
    expect(await page.getByRole('button', { name: /^Move (up|down)/ }).count()).to.equal(0)
    expect(await page.locator('tr[data-rule="printers-mab"]').getAttribute('draggable')).to.equal('false')
    // The policy test is a read: the reader runs it, here opened as a deploy's change impact links it (the request in `test`), answered at once.
    await page.goto(t.url + '/nac/policy?test=' + encodeURIComponent(JSON.stringify({ method: 'mab', mac: '00:1b:63:84:45:e6', nas: '10.2.0.1' })))
    await page.getByTestId('nac-decision').getByText('Accept').waitFor()
    expect(await page.getByTestId('nac-policy-test').locator('input[name="mac"]').inputValue()).to.equal('00:1b:63:84:45:e6')
    expect(await page.getByTestId('nac-policy-test').locator('input[name="nas_ip"]').inputValue()).to.equal('10.2.0.1')
    await page.getByRole('navigation').getByRole('link', { name: 'Endpoints' }).click()
    await page.getByTestId('endpoints-table').locator('tr[data-mac="00:1b:63:84:45:e6"]').waitFor()
    expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).to.equal(0)
    await c.close()

    // Endpoints only: the profiles and the policy are not in the menu, and by URL the server refuses.
    const c2 = await context(browser, { locale: 'en-US' })
    await signInWithToken(c2, t.url, await t.token({ permissions: ['nac.read'] }))
    const p2 = await c2.newPage()
    await p2.goto(t.url + '/nac/profiles')
    await p2.getByRole('heading', { name: 'Authorization profiles', level: 1 }).waitFor()
    expect(await p2.getByTestId('error-alert').first().getAttribute('data-code')).to.equal('PERMISSION_DENIED')
    const menu = p2.getByRole('navigation')
    await menu.getByRole('link', { name: 'Endpoint groups' }).waitFor()
    expect(await menu.getByRole('link', { name: 'NAC policy' }).count()).to.equal(0)
    expect(await menu.getByRole('link', { name: 'Authorization profiles' }).count()).to.equal(0)
    await c2.close()
  })

  it('lists sessions with their state, filters and exports them, and sends a CoA whose answer it shows', async () => {
    // A NAS on loopback (the nac plugin's CoA test NAS: it checks the signature and answers as told), the switch for it in the inventory.
    const address = `127.0.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`
    nas = await LoopbackNas.start(address, 'coa-secret-1')
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: 'access-sw-2', address, vendor: 'Cisco', radius_secret: 'coa-secret-1' } })
    expect(dev.status, dev.text).to.equal(201)
    expect((await t.admin('PUT', `/api/v1/nac/coa-nas/${dev.body.id}`, { body: { port: nas.port } })).status).to.equal(200)
    // What the accounting ingester writes (telemetry: no API writes it): the printer seen on that NAS, its live session, and an ended one.
    const knex = t.app.db.knex
    await knex('nac_endpoints').where({ mac: '00:1b:63:84:45:e6' }).update({ last_nas_ip: address, last_nas_port: 'GigabitEthernet1/0/7', last_seen_at: new Date(), last_auth_result: 'accept' })
    const now = Date.now()
    await knex('nac_sessions').insert([
      { nas_ip: address, acct_session_id: 'S-LIVE-1', mac: '00:1b:63:84:45:e6', username: '001b638445e6', nas_port: 'GigabitEthernet1/0/7', nas_port_type: 'Ethernet', framed_ip: '10.30.0.17', vlan: '30', started_at: new Date(now - 3_600_000), last_update_at: new Date(now - 60_000), interim_interval: 600 },
      { nas_ip: address, acct_session_id: 'S-ENDED-1', mac: '00:1b:63:00:00:02', username: 'bob', nas_port: 'GigabitEthernet1/0/9', started_at: new Date(now - 7_200_000), last_update_at: new Date(now - 5_000_000), stopped_at: new Date(now - 5_000_000) },
    ])

    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/nac/sessions')
    await page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor()
    const table = page.getByTestId('sessions-table')
    await table.locator('tr[data-session="S-LIVE-1"]').getByText('live').waitFor()
    await table.locator('tr[data-session="S-ENDED-1"]').getByText('ended').waitFor()
    // The state filter: the ended one alone; an ended session has no CoA.
    await page.getByText('ended', { exact: true }).first().click()
    await page.getByText('1 in all').waitFor()
    expect(await table.locator('tr[data-session="S-ENDED-1"]').getByRole('button', { name: /^CoA/ }).count()).to.equal(0)
    await page.getByText('All', { exact: true }).click()
    await page.getByText('2 in all').waitFor()
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export csv' }).click()])
    expect(csv.suggestedFilename()).to.match(/^nac-sessions-.*\.csv$/)
    await page.getByText(/\(2 rows\)/).waitFor()

    // Re-authenticate: the NAS gets one signed CoA-Request, and its ACK shows.
    await table.locator('tr[data-session="S-LIVE-1"]').getByRole('button', { name: 'CoA 00:1b:63:84:45:e6' }).click()
    await page.getByRole('menuitem', { name: 'Re-authenticate' }).click()
    await page.getByTestId('coa-result').getByText(/acknowledged \(ACK\)/).waitFor()
    expect(nas.received).to.have.length(1)
    expect(nas.received[0].code).to.equal(43)
    expect(nas.received[0].signed).to.equal(true)
    // Disconnect, confirmed; this time the NAS refuses it with an Error-Cause, which shows with its name.
    nas.answer = { kind: 'nak', errorCause: 503 }
    await table.locator('tr[data-session="S-LIVE-1"]').getByRole('button', { name: 'CoA 00:1b:63:84:45:e6' }).click()
    await page.getByRole('menuitem', { name: 'Disconnect' }).click()
    await answerConfirm(page)
    await page.getByTestId('coa-result').getByText(/refused by the NAS \(NAK\).*503/).waitFor()
    expect(nas.received[1].code).to.equal(40)
    await screenshot(page, 'nac-sessions')
    await page.context().close()
  })

  it('makes a profiling rule in the form, applies it, and the endpoint shows the device type it gives', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/nac/profiling-rules')
    await page.getByRole('heading', { name: 'Profiling rules', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Add profiling rule' }).click()
    await page.locator('input[name="name"]').fill('apple-printers')
    await page.locator('input[name="device_type"]').fill('printer')
    await page.locator('input[name="certainty"]').fill('80')
    await page.locator('input[name="conditions[0].value"]').fill('Apple')
    // A certainty above 100 is refused under its input.
    await page.locator('input[name="certainty"]').fill('180')
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'certainty')).to.not.equal('')
    await page.locator('input[name="certainty"]').fill('80')
    await page.getByRole('button', { name: 'Create' }).click()
    const row = page.getByTestId('profiling-rules-table').locator('tr[data-profiling-rule="apple-printers"]')
    await row.getByText('MAC vendor starts with “Apple”').waitFor()
    await page.getByRole('button', { name: 'Apply to every endpoint now' }).click()
    await page.getByTestId('apply-result').getByText(/1 changed/).waitFor()
    await page.getByRole('navigation').getByRole('link', { name: 'Endpoints' }).click()
    const ep = page.getByTestId('endpoints-table').locator('tr[data-mac="00:1b:63:84:45:e6"]')
    await ep.getByText('printer', { exact: true }).waitFor()
    await ep.getByText(/80% sure/).waitFor()
    await page.context().close()
  })

  it('imports endpoints from a CSV file: atomic first (a bad row, nothing written, the row named), then the rows that pass', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/nac/endpoints')
    await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Import csv' }).click()
    const dialog = page.getByTestId('endpoint-import')
    const csv = 'mac,description,endpoint_group\r\n00:1B:63:00:00:10,Scanner,printers\r\n01:00:5e:00:00:01,Not an endpoint,\r\n'
    await dialog.locator('input[type="file"]').setInputFiles({ name: 'endpoints.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await dialog.getByRole('button', { name: 'Import' }).click()
    const report = dialog.getByTestId('import-report')
    await report.getByText('Nothing written').waitFor()
    await report.getByText('1 created, 0 updated, 0 unchanged, 0 skipped, 1 refused.').waitFor()
    await report.getByRole('row', { name: /01:00:5e:00:00:01/ }).getByText('mac', { exact: true }).waitFor()
    expect((await t.admin('GET', '/api/v1/nac/endpoints?mac=00:1b:63:00:00:10')).body.total_by_filter).to.equal(0)
    await dialog.getByText('Write the rows that pass', { exact: false }).click()
    await dialog.getByRole('button', { name: 'Import' }).click()
    await report.getByText('Written').waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    const row = page.getByTestId('endpoints-table').locator('tr[data-mac="00:1b:63:00:00:10"]')
    await row.getByText('printers').waitFor()
    await screenshot(page, 'nac-endpoints')
    await page.context().close()
  })

  it('sets a device type by hand and back, shows the CoA history with its filters, and changes a NAS\'s CoA settings (a bad port refused)', async () => {
    const mac = '00:1b:63:84:45:e6'
    const ep = (await t.admin('GET', `/api/v1/nac/endpoints?mac=${mac}`)).body.items[0] as { id: string }
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/nac/endpoints')
    await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor()
    const row = page.getByTestId('endpoints-table').locator(`tr[data-mac="${mac}"]`)
    await row.getByRole('button', { name: `Edit ${mac}` }).click()
    const box = page.getByTestId('endpoint-device-type')
    await box.locator('input[name="device_type"]').fill('label-printer')
    await box.getByRole('button', { name: 'Set by hand' }).click()
    await box.getByText('Set by hand: profiling does not change it.').waitFor()
    let e = (await t.admin('GET', `/api/v1/nac/endpoints/${ep.id}`)).body
    expect([e.device_type, e.device_type_confidence]).to.deep.equal(['label-printer', 100])
    await page.getByRole('button', { name: 'Cancel' }).click()
    await row.getByText('set by hand', { exact: true }).waitFor()
    await row.getByText(/100% sure: set by hand by admin/).waitFor()
    // Back to profiling: the type is cleared for profiling to decide again, the mark goes.
    await row.getByRole('button', { name: `Edit ${mac}` }).click()
    await box.getByRole('button', { name: 'Back to profiling' }).click()
    await box.getByText('Not set: profiling decides.').waitFor()
    e = (await t.admin('GET', `/api/v1/nac/endpoints/${ep.id}`)).body
    expect([e.device_type, e.device_type_confidence]).to.deep.equal([null, null])

    // The endpoint's CoA history, from its dialog: the requests the sessions test sent by hand are there, newest first.
    await box.getByRole('link', { name: `CoA history of ${mac}` }).click()
    await page.getByRole('tab', { name: 'CoA history', selected: true }).waitFor()
    const history = page.getByTestId('coa-table')
    await page.getByRole('button', { name: `Stop filtering by ${mac}` }).waitFor()
    const all = (await t.admin('GET', `/api/v1/nac/coa-requests?endpoint_id=${ep.id}&per_page=100`)).body as { total: number; items: { id: string; result: string }[] }
    expect(all.total).to.be.greaterThan(1)
    await page.getByText(`${all.total} in all`).waitFor()
    expect(await history.locator('tbody tr').first().getAttribute('data-coa')).to.equal(all.items[0].id)
    // The time header reverses the order (the route's one sort), kept in the address.
    const oldest = (await t.admin('GET', `/api/v1/nac/coa-requests?endpoint_id=${ep.id}&sort_order=asc&per_page=1`)).body.items[0].id as string
    const timeTh = history.locator('th:has(button[data-sort="created_at"])')
    await timeTh.getByRole('button').click()
    await page.waitForFunction((id) => document.querySelector('[data-testid="coa-table"] tbody tr')?.getAttribute('data-coa') === id, oldest)
    expect(await timeTh.getAttribute('aria-sort')).to.equal('ascending')
    expect(new URL(page.url()).searchParams.get('sort_order')).to.equal('asc')
    // Filtered by hand and ACK: the re-authentication alone.
    await page.getByLabel('Reason', { exact: true }).first().click()
    await page.getByRole('option', { name: 'by hand' }).click()
    await page.getByLabel('Result', { exact: true }).first().click()
    await page.getByRole('option', { name: 'acknowledged (ACK)' }).click()
    await page.getByText('1 in all').waitFor()
    const ack = history.locator('tbody tr[data-result="ack"]')
    await ack.getByText('Re-authenticate').waitFor()
    await ack.getByText('admin').waitFor()
    expect(await history.locator('tbody tr').count()).to.equal(1)
    // Its NAS's name narrows the list to that NAS too.
    await ack.getByRole('button', { name: 'access-sw-2', exact: true }).click()
    await page.getByRole('button', { name: 'Stop filtering by access-sw-2' }).waitFor()
    expect(new URL(page.url()).searchParams.get('device')).to.equal('access-sw-2')
    await page.getByText('1 in all').waitFor()

    // The NAS's CoA settings, from the device column: the effective values, a port out of range refused under its input.
    const dev = (await t.admin('GET', '/api/v1/devices?search=access-sw-2')).body.items[0] as { id: string }
    const before = (await t.admin('GET', `/api/v1/nac/coa-nas/${dev.id}`)).body
    await ack.getByRole('button', { name: 'CoA settings of access-sw-2' }).click()
    const form = page.getByTestId('coa-nas-form')
    await form.getByTestId('coa-nas-effective').getByText(`Now: port ${before.port}, dialect Cisco`, { exact: false }).waitFor()
    expect(await form.locator('input[name="port"]').inputValue()).to.equal(String(before.port))
    await form.locator('input[name="port"]').fill('70000')
    await form.getByRole('button', { name: 'Save' }).click()
    expect(await inputError(page, 'port')).to.not.equal('')
    expect((await t.admin('GET', `/api/v1/nac/coa-nas/${dev.id}`)).body).to.deep.equal(before)
    // The RFC 5176 dialect on port 3799.
    await form.locator('input[name="port"]').fill('3799')
    await form.getByLabel('Dialect').click()
    await page.getByRole('option', { name: 'RFC 5176', exact: true }).click()
    await form.getByRole('button', { name: 'Save' }).click()
    await form.waitFor({ state: 'detached' })
    let nasNow = (await t.admin('GET', `/api/v1/nac/coa-nas/${dev.id}`)).body
    expect([nasNow.port, nasNow.dialect, nasNow.effective_dialect]).to.deep.equal([3799, 'rfc5176', 'rfc5176'])
    // Back to the settings: the override goes.
    await ack.getByRole('button', { name: 'CoA settings of access-sw-2' }).click()
    await form.getByText('Now: port 3799, dialect RFC 5176').waitFor()
    await form.page().getByRole('button', { name: 'Back to the settings' }).click()
    await form.getByText('Now: port 3799, dialect Cisco', { exact: false }).waitFor()
    nasNow = (await t.admin('GET', `/api/v1/nac/coa-nas/${dev.id}`)).body
    expect([nasNow.port, nasNow.dialect]).to.deep.equal([null, 'auto'])
    await page.context().close()
  })
})
