/**
 * The console's configuration-tracking screens in a real browser against the real server, as an
 * administrator uses them: a collector added, its one-time enrollment token shown once with the
 * `portcullis collector enroll` line (gone after a reload), the collector enrolled with that token
 * turning active with its contract matching; a device's history with the diff between two versions
 * and, beside it, who changed it (a TACACS+ accounting record of alice's, marked as matching the
 * diff); the search over the latest configurations; a compliance rule added in its dialog and the
 * device failing it. axe-core finds no serious or critical violation on any of these screens.
 *
 * Versions come in through the collector wire itself (test/kit/ncm-collector.ts signs as an
 * enrolled collector): this suite is about the screens, the SSH side is test/e2e/ncm.test.ts's.
 * Pinned to the embedded run: a browser run is engine-independent, and the PostgreSQL run is the
 * suite's critical path (suite time).
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { axe, describeViolations, expectAccessible } from '../../../test/kit/browser.js'
import { clearRateLimits, context, launch, needConsole, screenshot, signInAt, startWithAdmin } from './browser.js'
import { CISCO_IOS, takeJob, TestCollector } from '../../../test/kit/ncm-collector.js'

const PASSWORD = 'Portcullis-Ncm-2026!'
const N = '/api/v1/ncm'
const CONFIG = (extra: string[] = []) => ['hostname sw-lobby', '!', 'interface GigabitEthernet0/1', ' description uplink', '!', ...extra, 'line vty 0 4', ' transport input ssh', '!', 'end', ''].join('\n')

/**
 * axe-core over one part of the page (a dialog): with a modal open, the page behind its overlay is
 * dimmed on purpose, which axe would count as low contrast. The whole pages are checked without one.
 */
async function accessibleIn(page: Page, what: string, selector: string): Promise<void> {
  await axe(page)
  const results = (await page.evaluate(
    (sel) => (window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<unknown> } }).axe.run({ include: [[sel]] }, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }),
    selector,
  )) as { violations: Parameters<typeof describeViolations>[0] }
  const grave = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  if (grave.length > 0) expect.fail(`accessibility of ${what}: ${grave.length} serious or critical violation(s):\n${describeViolations(grave)}`)
}

const signIn = (page: Page, t: TestApp, to: string) => signInAt(page, t.url + to, 'admin', PASSWORD)

;(runsOn('embedded') ? describe : describe.skip)('console: configuration tracking (collectors, history with the diff and who changed it, compliance) in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  let deviceId = ''
  let token = ''
  let collector: TestCollector
  let groupId = ''
  const ok = async (method: string, path: string, body: unknown, status = 201) => {
    const r = await t.admin(method, path, { body })
    expect(r.status, `${method} ${path} ${r.text}`).to.equal(status)
    return r.body
  }
  /** A fetch as the enrolled collector reports it: "fetch now", the job taken, `text` uploaded as its output. */
  const upload = async (text: string) => {
    const job = await takeJob(t, collector, deviceId)
    const r = await collector.upload(TestCollector.ok(job, text))
    expect(r.status, r.text).to.equal(200)
  }
  beforeEach(() => clearRateLimits(t))

  before(async function () {
    needConsole(this)
    t = await startWithAdmin({ engine: 'embedded', plugins: ['inventory', 'aaa-logs', 'ncm', 'console'], settings: { 'aaa-logs.ingest_enabled': false } }, PASSWORD)
    groupId = (await ok('POST', '/api/v1/device-groups', { name: 'lobby' })).id
    deviceId = (await ok('POST', '/api/v1/devices', { name: 'sw-lobby', address: '127.0.0.11/32', device_group_id: groupId })).id
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  it('adds a collector: the token is shown once with the enroll command, and the enrolled collector turns active with its contract matching', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/ncm/collectors')
    await page.getByRole('heading', { name: 'Configuration collectors', level: 1 }).waitFor()
    await page.getByText('No collectors yet.').waitFor()
    await page.getByRole('button', { name: 'Add collector' }).click()
    await page.locator('input[name="name"]').fill('branch-1')
    await page.getByRole('button', { name: 'Create' }).click()
    const command = (await page.getByTestId('enroll-command').textContent()) ?? ''
    expect(command).to.match(new RegExp(`^portcullis collector enroll --core ${t.url.replace(/[.]/g, '\\.')} --token (pcc_[A-Za-z0-9_-]{43}) --name branch-1$`))
    token = /--token (\S+)/.exec(command)![1]
    // After the dialog's opening transition: half-faded text is what axe would measure otherwise.
    await page.waitForTimeout(500)
    await accessibleIn(page, 'the enrollment token dialog', '.mantine-Modal-content')
    await screenshot(page, 'ncm-enrollment-token')
    await page.getByRole('button', { name: 'Done' }).click()
    const row = page.locator('[data-collector="branch-1"]')
    await expect(await row.getByTestId('collector-state').textContent()).to.equal('waiting for enrollment')

    // Once: after a reload nothing on the page holds the token.
    await page.reload()
    await row.waitFor()
    expect(await page.content()).to.not.include(token)

    collector = new TestCollector(t.url)
    const enrolled = await collector.enroll(token, { name: 'branch-1' })
    expect(enrolled.status, enrolled.text).to.equal(201)
    await row.getByTestId('collector-state').filter({ hasText: 'active' }).waitFor({ timeout: 30_000 })
    expect(await row.getByTestId('collector-contract').textContent()).to.equal('match')
    await expectAccessible(page, 'the collectors')
    await screenshot(page, 'ncm-collectors')
    await page.close()
  })

  it('shows a device\'s history: the diff between two versions and, beside it, alice\'s command matching the change', async () => {
    const cred = await ok('POST', `${N}/credentials`, { name: 'lobby-login', username: 'backup', auth: 'password', password: 'Switch-Pass-12' })
    await ok('POST', `${N}/schedules`, { device_group_id: groupId, collector_id: collector.id, credential_id: cred.id, profile_id: CISCO_IOS, interval_minutes: 10080, enabled: true })

    await upload(CONFIG(['no ip http server', '!']))
    const between = new Date()
    // What the ingester would have stored from tac_plus-ng's accounting log: alice's command on this switch.
    await t.app.db.knex('aaa_log_tacacs_acct').insert({
      id: randomUUID(), timestamp: between, username: 'alice', nas_ip: '127.0.0.11', node_id: randomUUID(), device_name: 'sw-lobby',
      source_file: '/var/log/tacacs/accounting.log', source_offset: 1, action: 'stop', service: 'shell', command: 'ip http server <cr>',
    })
    await new Promise((r) => setTimeout(r, 20))
    await upload(CONFIG(['ip http server', '!']))

    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/ncm/devices')
    await page.getByRole('heading', { name: 'Configuration history', level: 1 }).waitFor()
    await page.getByTestId('ncm-search').fill('ip http server')
    const hits = page.getByTestId('ncm-search-results')
    await hits.locator('[data-hit="sw-lobby"]').waitFor()
    await page.locator('[data-device="sw-lobby"]').getByRole('link', { name: 'sw-lobby' }).click()
    await page.getByRole('heading', { name: 'Configuration history: sw-lobby', level: 1 }).waitFor()
    await expect(await page.getByTestId('ncm-versions').locator('tbody tr').count()).to.equal(2)
    const diff = page.getByTestId('ncm-diff')
    await diff.locator('[data-line="+ip http server"]').waitFor()
    await diff.locator('[data-line="-no ip http server"]').waitFor()
    const who = page.getByTestId('ncm-who-changed')
    const alice = who.locator('tr[data-user="alice"]')
    await alice.waitFor()
    expect(await alice.getAttribute('data-matches')).to.equal('yes')
    expect(await alice.textContent()).to.include('ip http server')
    await expectAccessible(page, 'a device\'s history with the diff and who changed it')
    await screenshot(page, 'ncm-device-history')
    await page.close()
  })

  it('adds a "must not contain" rule in its dialog, and the device fails it', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/ncm/compliance')
    await page.getByRole('heading', { name: 'Configuration compliance', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.locator('input[name="name"]').fill('no-http-server')
    await page.locator('input[name="pattern"]').fill('ip http server')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.locator('[data-rule="no-http-server"]').waitFor()
    const result = page.locator('[data-result="no-http-server/sw-lobby"]')
    await result.waitFor({ timeout: 60_000 })
    expect(await result.getAttribute('data-status')).to.equal('fail')
    expect(await result.textContent()).to.include('ip http server')
    await expectAccessible(page, 'the compliance report')
    await screenshot(page, 'ncm-compliance')
    await page.close()
  })
})
