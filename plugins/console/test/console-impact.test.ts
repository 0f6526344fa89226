/**
 * The change impact on the Deploys screen in a real browser, against real log
 * rows (written into the aaa-logs tables as the ingester writes them): a rule
 * deployed that lets the network engineers onto a core switch, the engineers'
 * real command authorizations of the last days, then an edit that leaves bob
 * out. The screen says who loses access in the server's own words, the
 * drill-down names bob, the rule and both answers, its links open the policy
 * test filled with bob's request (deployed: permit, edited: deny), Deploy asks
 * first (cancelled: nothing deployed), and the deploy's audit entry keeps the
 * summary that was shown. PostgreSQL run only (see below).
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { context, launch, needConsole, screenshot, signInAt, startWithAdmin } from './browser.js'

const PASSWORD = 'Portcullis-Impact-2026!'
const NAS = '10.1.0.1'

// One run is enough for a screen that shows what the API answers (the same on both engines): the PostgreSQL one, the shorter.
;(runsOn('postgres') ? describe : describe.skip)('console: whose access changes, before a deploy', function () {
  this.timeout(180_000)
  let t: TestApp
  let browser: Browser
  let ruleId: string
  let aliceId: string

  before(async function () {
    needConsole(this)
    t = await startWithAdmin({ engine: 'postgres', plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'console'], env: { TAC_PLUS_NG: '/nonexistent/sbin/tac_plus-ng' } }, PASSWORD)
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    const make = async (p: string, body: object) => {
      const r = await t.admin('POST', p, { body })
      expect(r.status, r.text).to.equal(201)
      return r.body.id as string
    }
    const neteng = await make('/api/v1/user-groups', { name: 'neteng', role_ids: [] })
    aliceId = await make('/api/v1/users', { username: 'alice', password: 'Tq-Strong-Pass-9zX', network_login: true, group_ids: [neteng] })
    await make('/api/v1/users', { username: 'bob', password: 'Tq-Strong-Pass-9zY', network_login: true, group_ids: [neteng] })
    const sw = await make('/api/v1/devices', { name: 'core-sw-1', address: `${NAS}/32`, tacacs_key: 'tacacs-key-1' })
    const profile = await make('/api/v1/tacacs/profiles', { name: 'netadmin', privilege_level: 15 })
    ruleId = await make('/api/v1/aaa/policy/rules', { name: 'neteng-core', who: { group_id: neteng }, where: { device_id: sw }, tacacs_profile_id: profile })
    expect((await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })).status).to.equal(201)

    // What the daemon logged over the last days: both engineers on the switch, bob's commands more often.
    const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000)
    let offset = 0
    const row = (username: string, hoursAgo: number, command: string | null) => ({
      id: randomUUID(), timestamp: at(hoursAgo), username, nas_ip: NAS, node_id: randomUUID(), device_name: 'core-sw-1', client_address: '203.0.113.5',
      source_file: '/var/log/tac_plus-ng/authz.log', source_offset: (offset += 100), action: 'permit' as const, rule_name: 'neteng-core', profile: 'netadmin', service: 'shell', priv_lvl: 15, command,
    })
    await t.app.db.knex('aaa_log_tacacs_authz').insert([
      row('alice', 30, null), row('alice', 29, 'show running-config'),
      row('bob', 20, null), row('bob', 19, 'show running-config'), row('bob', 18, 'show running-config'), row('bob', 2, 'show running-config'),
    ])
    // The edit: the rule now names alice only; bob falls through to the default rule.
    const edit = await t.admin('PUT', `/api/v1/aaa/policy/rules/${ruleId}`, { body: { who: { user_id: aliceId } } })
    expect(edit.status, edit.text).to.equal(200)
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  const signIn = (page: Page, to: string) => signInAt(page, t.url + to, 'admin', PASSWORD)

  it('shows the impact beside the diff, drills down to bob, opens the policy test with his request, confirms the deploy and audits what was shown', async () => {
    const api = (await t.admin('POST', '/api/v1/aaa/policy/impact', { body: {} })).body
    expect(api.summary.permit_to_deny.requests, JSON.stringify(api.summary)).to.be.greaterThan(0)
    expect(api.summary.users_losing_access).to.equal(1)

    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    const browserDialogs: string[] = []
    page.on('dialog', (d) => { browserDialogs.push(d.message()); void d.dismiss() })
    await signIn(page, '/deploys')
    await page.getByRole('heading', { name: 'Deploys', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Show all changes' }).click()

    // The sentence, built by the console from the numbers, reads as the server's; the diff beside it; the NAC report not loaded, said so.
    const aaa = page.getByTestId('impact-aaa')
    expect(await page.getByTestId('impact-nac').getByTestId('impact-unavailable').textContent()).to.equal('Not available: its plugin is not loaded.')
    await aaa.getByTestId('impact-summary').waitFor()
    expect(await aaa.getByTestId('impact-summary').textContent()).to.equal(api.summary.text)
    expect(api.summary.text).to.match(/^1 user loses access to 1 device/)
    await page.getByTestId('dry-run').getByText('tac_plus-ng.cfg').waitFor()

    // The drill-down: bob among the users, his command among the changes, permit by the rule before, deny after.
    await aaa.getByTestId('impact-details').locator('summary').click()
    const users = aaa.getByTestId('impact-groups')
    await users.locator('tr[data-name="bob"]').waitFor()
    expect(await users.locator('tbody tr').first().getAttribute('data-name'), 'the biggest change first').to.equal('bob')
    await aaa.getByRole('radio', { name: 'Rules' }).check({ force: true })
    await users.locator('tr[data-name]').first().waitFor()
    const change = aaa.getByTestId('impact-changes').locator('tr[data-change="permit_to_deny"][data-user="bob"]').filter({ hasText: 'show running-config' })
    await change.waitFor()
    const cells = change.locator('td')
    expect(await cells.nth(2).textContent()).to.include('Permit').and.include('neteng-core').and.include('netadmin')
    expect(await cells.nth(3).textContent()).to.include('Deny')
    expect(await cells.nth(4).textContent()).to.equal('3')
    await screenshot(page, 'deploy-impact')

    // "Why": the policy test filled with bob's request, answered at once, against the deployed policy and the edited one.
    const deployedHref = await change.getByRole('link', { name: 'Test against the deployed policy' }).getAttribute('href')
    await change.getByRole('link', { name: 'Test against the edited policy' }).click()
    await page.getByRole('heading', { name: 'AAA policy', level: 1 }).waitFor()
    const test = page.getByTestId('policy-test')
    expect(await test.locator('input[name="username"]').inputValue()).to.equal('bob')
    expect(await test.locator('input[name="command"]').inputValue()).to.equal('show running-config')
    await test.getByTestId('decision').getByText('Deny').waitFor()
    await page.goto(t.url + deployedHref!)
    await page.getByTestId('policy-test').getByTestId('decision').getByText('Permit').waitFor()
    await page.getByTestId('policy-test').getByText('Matched rule neteng-core').waitFor()

    // Deploy asks first, naming how much would be denied; cancelled, nothing is deployed.
    await page.goto(t.url + '/deploys')
    const before = (await t.admin('GET', '/api/v1/deploys?daemon=tac_plus-ng')).body.total
    await page.getByRole('button', { name: 'Deploy tac_plus-ng' }).click()
    const confirm = page.getByTestId('impact-confirm')
    await confirm.waitFor()
    const denied = api.summary.permit_to_deny
    expect(await confirm.textContent()).to.include(`${denied.requests} requests that are permitted today are denied after this deploy (${denied.events} real requests in the last 7 days)`)
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await confirm.waitFor({ state: 'detached' })
    expect((await t.admin('GET', '/api/v1/deploys?daemon=tac_plus-ng')).body.total).to.equal(before)

    // Confirmed: deployed, and the audit entry keeps the summary shown.
    await page.getByRole('button', { name: 'Deploy tac_plus-ng' }).click()
    await confirm.getByRole('button', { name: 'Deploy anyway' }).click()
    await page.getByTestId('deploy-result').getByText(/Deployed: tac_plus-ng/).waitFor()
    const deployed = (await t.admin('GET', '/api/v1/deploys?daemon=tac_plus-ng&status=active')).body.items[0]
    const entry = (await t.admin('GET', `/api/v1/audit?resource_type=deploy&resource_id=${deployed.id}`)).body.items.find((a: { action: string }) => a.action === 'deploy.activate')
    expect(entry.after.impact).to.deep.include({ text: `AAA policy: ${api.summary.text}`, window_days: 7, permit_to_deny: denied, confirmed: true, sources: [{ name: 'aaa', state: 'complete' }] })
    expect(browserDialogs, 'asked in the page, never by the browser').to.deep.equal([])
    await page.context().close()
  })

  it('tells a deployer who may not read the logs that the impact is not shown', async () => {
    const token = await t.token({ permissions: ['deploy.read', 'deploy.write', 'system.info.read', 'aaa-policy.read'] })
    const c = await context(browser, { locale: 'en-US' })
    await c.addInitScript((tk) => sessionStorage.setItem('portcullis.token', tk), token)
    const page = await c.newPage()
    await page.goto(t.url + '/deploys')
    await page.getByRole('heading', { name: 'Deploys', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Show changes tac_plus-ng' }).click()
    expect(await page.getByTestId('impact-aaa').getByTestId('impact-unavailable').textContent()).to.equal('Not shown: you may not read this policy or its logs.')
    await c.close()
  })
})
