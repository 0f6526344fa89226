/**
 * The change impact on the Deploys screen in a real browser, against real log
 * rows (written into the aaa-logs tables as the ingester writes them): a rule
 * deployed that lets the network engineers onto a core switch, the engineers'
 * real command authorizations of the last days, then an edit that leaves frank
 * out. The screen says who loses access in the server's own words, the
 * drill-down names frank, the rule and both answers, its links open the policy
 * test filled with frank's request (deployed: permit, edited: deny), Deploy asks
 * first (cancelled: nothing deployed), and the deploy's audit entry keeps the
 * summary that was shown. Run from console-config.test.ts, whose server (the
 * same plugins, PostgreSQL run) it shares: a boot of its own would cost the
 * suite seconds for nothing; its names are its own so neither sees the other's.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import type { Browser, Page } from 'playwright-core'
import type { TestApp } from '../../../test/kit/app.js'
import { context, screenshot, signInAt, signInWithToken } from './browser.js'

const NAS = '10.9.0.1'

/** The server (inventory, tacacs, radius, aaa-policy, aaa-logs, console; tac_plus-ng not installed), its browser and admin's password. */
export function describeImpact(shared: () => { t: TestApp; browser: Browser; password: string }) {
  describe('whose access changes, before a deploy', function () {
    let t: TestApp
    let browser: Browser
    let password: string
    let ruleId: string
    let erinId: string

    before(async function () {
      ;({ t, browser, password } = shared())
      expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
      const make = async (p: string, body: object) => {
        const r = await t.admin('POST', p, { body })
        expect(r.status, r.text).to.equal(201)
        return r.body.id as string
      }
      const neteng = await make('/api/v1/user-groups', { name: 'impact-neteng', role_ids: [] })
      erinId = await make('/api/v1/users', { username: 'erin', password: 'Tq-Strong-Pass-9zX', network_login: true, group_ids: [neteng] })
      await make('/api/v1/users', { username: 'frank', password: 'Tq-Strong-Pass-9zY', network_login: true, group_ids: [neteng] })
      const sw = await make('/api/v1/devices', { name: 'edge-sw-9', address: `${NAS}/32`, tacacs_key: 'tacacs-key-1' })
      const shows = await make('/api/v1/tacacs/command-sets', { name: 'impact-show', commands: [{ command: 'show', action: 'permit' }] })
      const profile = await make('/api/v1/tacacs/profiles', { name: 'impact-admin', privilege_level: 15, command_set_ids: [shows] })
      ruleId = await make('/api/v1/aaa/policy/rules', { name: 'neteng-edge', who: { group_id: neteng }, where: { device_id: sw }, tacacs_profile_id: profile })
      expect((await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })).status).to.equal(201)

      // What the daemon logged over the last days: both engineers on the switch, frank's commands more often.
      const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000)
      let offset = 0
      const row = (username: string, hoursAgo: number, command: string | null) => ({
        id: randomUUID(), timestamp: at(hoursAgo), username, nas_ip: NAS, node_id: randomUUID(), device_name: 'edge-sw-9', client_address: '203.0.113.5',
        source_file: '/var/log/tac_plus-ng/authz.log', source_offset: (offset += 100), action: 'permit' as const, rule_name: 'neteng-edge', profile: 'impact-admin', service: 'shell', priv_lvl: 15, command,
      })
      await t.app.db.knex('aaa_log_tacacs_authz').insert([
        row('erin', 30, null), row('erin', 29, 'show running-config'),
        row('frank', 20, null), row('frank', 19, 'show running-config'), row('frank', 18, 'show running-config'), row('frank', 2, 'show running-config'),
      ])
      // The edit: the rule now names erin only; frank falls through to the default rule.
      const edit = await t.admin('PUT', `/api/v1/aaa/policy/rules/${ruleId}`, { body: { who: { user_id: erinId } } })
      expect(edit.status, edit.text).to.equal(200)
    })

    const signIn = (page: Page, to: string) => signInAt(page, t.url + to, 'admin', password)

    it('says it in Russian, from the same numbers', async () => {
      const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
      await signIn(page, '/deploys')
      await page.getByRole('heading', { name: 'Развёртывания', level: 1 }).waitFor()
      await page.getByRole('button', { name: 'Показать изменения tac_plus-ng' }).click()
      const said = await page.getByTestId('impact-aaa').getByTestId('impact-summary').textContent()
      expect(said).to.match(/^1 пользователь теряет доступ к 1 устройству; 1 правило теперь решает \d+ запрос(а|ов)?, которые раньше решало не оно$/)
      // frank's command, before and after: why, in the server's Russian (the policy test's words).
      await page.getByTestId('impact-aaa').getByTestId('impact-details').locator('summary').click()
      const change = page.getByTestId('impact-aaa').getByTestId('impact-changes').locator('tr[data-change="permit_to_deny"][data-user="frank"]').filter({ hasText: 'show running-config' })
      await change.waitFor()
      const reasons = await change.getByTestId('impact-reason').allTextContents()
      expect(reasons).to.have.length(2)
      expect(reasons[0]).to.match(/^правило neteng-edge разрешает с профилем TACACS\+ impact-admin; /)
      for (const r of reasons) expect(r, 'no English left').to.not.match(/\b(rule|permits|denies|matched)\b/)
      await page.context().close()
    })

    it('shows the impact beside the diff, drills down to frank, opens the policy test with his request, confirms the deploy and audits what was shown', async () => {
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
      // The window's requests outside the edit's reach: counted, said, not replayed.
      const unaffected = aaa.getByTestId('impact-unaffected')
      if (api.requests.unaffected.events > 0) expect(await unaffected.textContent()).to.match(new RegExp(`^${api.requests.unaffected.events.toLocaleString('en-US')} other real requests? of the window no edit reaches`))
      else expect(await unaffected.count()).to.equal(0)
      await page.getByTestId('dry-run').getByText('tac_plus-ng.cfg', { exact: true }).waitFor()

      // The drill-down: frank among the users, his command among the changes, permit by the rule before, deny after.
      await aaa.getByTestId('impact-details').locator('summary').click()
      const users = aaa.getByTestId('impact-groups')
      await users.locator('tr[data-name="frank"]').waitFor()
      expect(await users.locator('tbody tr').first().getAttribute('data-name'), 'the biggest change first').to.equal('frank')
      await aaa.locator('label').filter({ hasText: /^Rules$/ }).click()
      const rules = aaa.getByRole('table', { name: 'Rules' })
      await rules.locator('tbody tr').first().waitFor()
      expect(await rules.locator('tbody tr').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-name')))).to.deep.equal(api.groups.rules.map((g: { name: string }) => g.name))
      const change = aaa.getByTestId('impact-changes').locator('tr[data-change="permit_to_deny"][data-user="frank"]').filter({ hasText: 'show running-config' })
      await change.waitFor()
      const cells = change.locator('td')
      expect(await cells.nth(2).textContent()).to.include('Permit').and.include('neteng-edge').and.include('impact-admin').and.include('impact-show')
      expect(await cells.nth(3).textContent()).to.include('Deny')
      expect(await cells.nth(2).getByTestId('impact-reason').textContent()).to.match(/^rule neteng-edge permits with TACACS\+ profile impact-admin; /)
      expect(await cells.nth(4).textContent()).to.equal('3')
      // The sentence at the top, the drill-down's changes below it.
      await aaa.getByTestId('impact-summary').evaluate((e) => { e.scrollIntoView(); window.scrollBy(0, -150) })
      await screenshot(page, 'deploy-impact')

      // "Why": the policy test filled with frank's request, answered at once, against the deployed policy and the edited one.
      const deployedHref = await change.getByRole('link', { name: 'Test against the deployed policy' }).getAttribute('href')
      await change.getByRole('link', { name: 'Test against the edited policy' }).click()
      await page.getByRole('heading', { name: 'AAA policy', level: 1 }).waitFor()
      const test = page.getByTestId('policy-test')
      expect(await test.locator('input[name="username"]').inputValue()).to.equal('frank')
      expect(await test.locator('input[name="command"]').inputValue()).to.equal('show running-config')
      await test.getByTestId('decision').getByText('Deny').waitFor()
      await page.goto(t.url + deployedHref!)
      await page.getByTestId('policy-test').getByTestId('decision').getByText('Permit').waitFor()
      await page.getByTestId('policy-test').getByText('Matched rule neteng-edge').waitFor()

      // Deploy asks first in the console's confirmation, naming how much would be denied; cancelled, nothing is deployed.
      await page.goto(t.url + '/deploys')
      const before = (await t.admin('GET', '/api/v1/deploys?daemon=tac_plus-ng')).body.total
      await page.getByRole('button', { name: 'Deploy tac_plus-ng' }).click()
      const confirm = page.getByTestId('confirm-dialog')
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
      await signInWithToken(c, t.url, token)
      const page = await c.newPage()
      await page.goto(t.url + '/deploys')
      await page.getByRole('heading', { name: 'Deploys', level: 1 }).waitFor()
      await page.getByRole('button', { name: 'Show changes tac_plus-ng' }).click()
      expect(await page.getByTestId('impact-aaa').getByTestId('impact-unavailable').textContent()).to.equal('Not shown: you may not read this policy or its logs.')
      await c.close()
    })
  })
}
