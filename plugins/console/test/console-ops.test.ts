/**
 * The console's operations screens in a real browser (headless chromium)
 * against the real server on a throwaway PostgreSQL, as a person uses them:
 * the AAA policy (a rule made in the form, a bad prefix refused under its
 * input, a reorder by drag and one by keyboard, the policy test with its
 * trace beside the rules), deploys (the pending daemons, the dry run's diff,
 * an unchecked deploy refused, a deploy, a second one, the rollback to the
 * first), the policy test in Russian, the AAA logs (search, sort, the detail
 * drawer, a csv and an xlsx download), and what a reader without write
 * permissions is shown. The users, devices and profiles the rules name are
 * made through the API, the log entries written into the log table as the
 * ingester writes them: their own screens are not this file's subject.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { LOG_TABLE } from '../../aaa-logs/api.js'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { context, inputByLabel, inputError, launch, needConsole, pickOption, screenshot, signInAt, startWithAdmin, clearRateLimits, answerConfirm, signInWithToken } from './browser.js'

const PASSWORD = 'Portcullis-Ops-2026!'
const RULES = '/api/v1/aaa/policy/rules'

const signIn = (page: Page, t: TestApp, to: string) => signInAt(page, t.url + to, 'admin', PASSWORD)

/** The rule names in the order the list shows them. */
const shownOrder = (page: Page) => page.getByTestId('rules').locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rule')))
const apiOrder = async (t: TestApp) => ((await t.admin('GET', RULES)).body as { name: string }[]).map((r) => r.name)

/** Picks `label` in the Mantine Select whose label is `select` (a required one's label ends with an asterisk). */
const pick = (page: Page, select: string, label: string | RegExp) => pickOption(page, select, label)

// In the embedded run: the browser suites are split between the two runs so that they end together (suite time).
;(runsOn('embedded') ? describe : describe.skip)('console: the AAA policy, deploys and logs in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  beforeEach(() => clearRateLimits(t))
  let browser: Browser
  const ids: Record<string, string> = {}

  before(async function () {
    needConsole(this)
    // A server whose machine has no tac_plus-ng (as CI's has, through TAC_PLUS_NG): the deploy screen's
    // refused unchecked release is part of what is shown, and the screens must not depend on the machine.
    t = await startWithAdmin({ engine: 'embedded', plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'console'], env: { TAC_PLUS_NG: '/nonexistent/sbin/tac_plus-ng' } }, PASSWORD)
    // No tac_plus-ng is configured in the test server: its release cannot be checked, so let it through (the deploys test also shows the refusal).
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    const make = async (p: string, body: object) => {
      const r = await t.admin('POST', p, { body })
      expect(r.status, r.text).to.equal(201)
      return r.body.id as string
    }
    ids.alice = await make('/api/v1/users', { username: 'alice', password: 'Tq-Strong-Pass-9zX', display_name: 'Alice', network_login: true })
    ids.sw = await make('/api/v1/devices', { name: 'core-sw-1', address: '10.1.0.1', tacacs_key: 'tacacs-key-1', radius_secret: 'radius-secret-1' })
    ids.netadmin = await make('/api/v1/tacacs/profiles', { name: 'netadmin', privilege_level: 15 })
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  it('makes rules, reorders them by drag and by keyboard, and runs the policy test beside them', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/policy')
    await page.getByRole('heading', { name: 'AAA policy', level: 1 }).waitFor()
    await page.getByRole('navigation').getByRole('link', { name: 'AAA logs' }).waitFor()

    // A rule for alice on core-sw-1 with the netadmin profile; a bad NAS address prefix first, refused under its input.
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.locator('input[name="name"]').fill('alice-core')
    await pick(page, 'Who', 'alice')
    await page.getByRole('dialog').getByText('Device', { exact: true }).click()
    await pick(page, 'Where', /core-sw-1/)
    await pick(page, 'TACACS+ profile', 'netadmin')
    await page.locator('textarea[name="client_prefixes"]').fill('10.1.2.3/16')
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'client_prefixes')).to.include('10.1.0.0/16')
    expect(await apiOrder(t)).to.have.length(1)
    await page.locator('textarea[name="client_prefixes"]').fill('10.1.0.0/16')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('rules').locator('tr[data-rule="alice-core"]').waitFor()

    // A second one, no profile: a match is denied. New rules go just before the default.
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.locator('input[name="name"]').fill('alice-deny')
    await pick(page, 'Who', 'alice')
    await page.getByRole('dialog').getByText('Device', { exact: true }).click()
    await pick(page, 'Where', /core-sw-1/)
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('rules').locator('tr[data-rule="alice-deny"]').waitFor()
    expect(await shownOrder(page)).to.deep.equal(['alice-core', 'alice-deny', 'default'])

    // The test answers from the first rule that matches: permit.
    const test = page.getByTestId('policy-test')
    await test.locator('input[name="username"]').fill('alice')
    await pick(page, 'Device', /core-sw-1/)
    await test.getByRole('button', { name: 'Test' }).click()
    await test.getByTestId('decision').getByText('Permit').waitFor()
    await test.getByText('Matched rule alice-core').waitFor()

    // Drag the deny rule above: the server has the new order, and the same test now denies.
    await page.locator('tr[data-rule="alice-deny"]').dragTo(page.locator('tr[data-rule="alice-core"]'))
    await page.waitForFunction(() => document.querySelector('[data-testid="rules"] tbody tr')?.getAttribute('data-rule') === 'alice-deny')
    expect(await apiOrder(t)).to.deep.equal(['alice-deny', 'alice-core', 'default'])
    await test.getByRole('button', { name: 'Test' }).click()
    await test.getByTestId('decision').getByText('Deny').waitFor()
    expect(await test.getByTestId('trace').locator('tbody tr').count()).to.equal(1)
    await screenshot(page, 'policy')

    // By keyboard: focus the deny rule's row, Alt+↓ moves it below again.
    await page.locator('tr[data-rule="alice-deny"]').focus()
    await page.keyboard.press('Alt+ArrowDown')
    await page.waitForFunction(() => document.querySelector('[data-testid="rules"] tbody tr')?.getAttribute('data-rule') === 'alice-core')
    expect(await apiOrder(t)).to.deep.equal(['alice-core', 'alice-deny', 'default'])
    // Said to a screen reader, which does not see the row move.
    await page.getByRole('status').filter({ hasText: 'alice-deny moved to position 2.' }).waitFor({ state: 'attached' })
    // The focus stays on the moved rule: Alt+↑ at once moves it back up, Alt+↓ down again.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-rule') === 'alice-deny')
    await page.keyboard.press('Alt+ArrowUp')
    await page.waitForFunction(() => document.querySelector('[data-testid="rules"] tbody tr')?.getAttribute('data-rule') === 'alice-deny')
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-rule') === 'alice-deny')
    await page.keyboard.press('Alt+ArrowDown')
    await page.waitForFunction(() => document.querySelector('[data-testid="rules"] tbody tr')?.getAttribute('data-rule') === 'alice-core')
    expect(await apiOrder(t)).to.deep.equal(['alice-core', 'alice-deny', 'default'])
    // The ↑ button keeps the focus too (on the same button of the moved rule).
    await page.getByRole('button', { name: 'Move up alice-deny' }).focus()
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => document.querySelector('[data-testid="rules"] tbody tr')?.getAttribute('data-rule') === 'alice-deny')
    await page.waitForFunction(() => document.activeElement?.closest('tr')?.getAttribute('data-rule') === 'alice-deny')
    await page.keyboard.press('Alt+ArrowDown')
    await page.waitForFunction(() => document.querySelector('[data-testid="rules"] tbody tr')?.getAttribute('data-rule') === 'alice-core')
    // The default rule cannot be moved: it has no move buttons and is not draggable.
    expect(await page.locator('tr[data-rule="default"]').getAttribute('draggable')).to.equal('false')
    await page.context().close()
  })

  it('shows what is pending and its diff, deploys, deploys again and rolls back to the first release', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/deploys')
    await page.getByRole('heading', { name: 'Deploys', level: 1 }).waitFor()
    const pending = page.getByTestId('pending')
    await pending.getByRole('row', { name: /tac_plus-ng/ }).getByText('Never deployed').waitFor()

    // The dry run: the rendered tac_plus-ng configuration, with the rule made above in it; nothing deployed.
    await page.getByRole('button', { name: 'Show changes tac_plus-ng' }).click()
    const dry = page.getByTestId('dry-run')
    await dry.getByText('added').first().waitFor()
    expect(await dry.textContent()).to.include('alice-core')
    // The server's own file (the policy test's inputs) after the daemon's, folded, said not to be the daemon's.
    const files = await dry.locator('details').evaluateAll((ds) => ds.map((d) => [d.querySelector('code')?.textContent, (d as HTMLDetailsElement).open, d.hasAttribute('data-machine')]))
    expect(files.at(-1)).to.deep.equal(['policy-test-inputs.json', false, true])
    expect(files.filter((f) => f[2])).to.have.length(1)
    expect(files[0][1], 'a daemon file open').to.equal(true)
    expect(await dry.locator('details[data-machine]').textContent()).to.include('not read by the daemon')
    expect((await t.admin('GET', '/api/v1/deploys')).body.total).to.equal(0)
    await screenshot(page, 'deploy-diff')

    // Unchecked releases refused (the setting off): the server's reason in the alert, nothing active, the attempt in the history as failed.
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: false } })).status).to.be.oneOf([200, 204])
    await page.getByRole('button', { name: 'Deploy all' }).click()
    await answerConfirm(page)
    expect(await page.getByTestId('error-alert').textContent()).to.match(/tac_plus-ng could not be checked.*deploy\.allow_unchecked/s)
    await page.getByTestId('history').getByText('failed').first().waitFor()
    expect((await t.admin('GET', '/api/v1/deploys?status=active')).body.total_by_filter).to.equal(0)
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])

    await page.locator('input[name="comment"]').fill('first from the console')
    await page.getByRole('button', { name: 'Deploy all' }).click()
    await answerConfirm(page)
    await page.getByTestId('deploy-result').getByText(/Deployed: .*tac_plus-ng/).waitFor()
    await pending.getByRole('row', { name: /tac_plus-ng/ }).getByText('Up to date').waitFor()
    const first = (await t.admin('GET', '/api/v1/deploys?daemon=tac_plus-ng')).body.items[0]
    expect(first).to.include({ status: 'active', comment: 'first from the console', actor_name: 'admin' })

    // A change makes tac_plus-ng pending again; the second deploy supersedes the first.
    expect((await t.admin('DELETE', `${RULES}/${(await t.admin('GET', RULES)).body.find((r: { name: string }) => r.name === 'alice-deny').id}`)).status).to.equal(204)
    await page.reload()
    await pending.getByRole('row', { name: /tac_plus-ng/ }).getByText('Changes not deployed').waitFor()
    await page.getByRole('button', { name: 'Deploy tac_plus-ng' }).click()
    await answerConfirm(page)
    await page.getByTestId('deploy-result').getByText(/Deployed: tac_plus-ng/).waitFor()
    const history = page.getByTestId('history')
    await history.getByRole('row', { name: new RegExp(first.release) }).getByText('superseded').waitFor()

    // Roll back to the first release (confirmed): it is active again, the second rolled back.
    await history.getByRole('button', { name: `Roll back tac_plus-ng ${first.release}` }).click()
    await answerConfirm(page)
    await page.getByTestId('deploy-result').getByText(`Rolled back to tac_plus-ng ${first.release}.`).waitFor()
    await history.getByRole('row', { name: new RegExp(first.release) }).getByText('active').waitFor()
    const after = (await t.admin('GET', '/api/v1/deploys?daemon=tac_plus-ng')).body.items
    expect(after.map((d: { status: string }) => d.status)).to.deep.equal(['rolled_back', 'active', 'failed'])
    await screenshot(page, 'deploys')

    // A deploy's details: the files written as the server lists them (path, mode, SHA-256), the check and the reload.
    await history.getByRole('button', { name: `Details of tac_plus-ng ${first.release}` }).click()
    const details = page.getByTestId('deploy-details')
    const one = (await t.admin('GET', `/api/v1/deploys/${first.id}`)).body
    expect(one.files).to.not.be.empty
    for (const f of one.files) {
      const row = details.locator(`tr[data-path="${f.path}"]`)
      await row.getByText(f.sha256).waitFor()
      expect(await row.textContent()).to.include(f.mode)
    }
    await details.getByText(/^Configuration check: not checked/).waitFor()
    expect(new URL(page.url()).searchParams.get('deploy'), 'the open deploy is in the URL').to.equal(first.id)
    await page.keyboard.press('Escape')
    // The refused attempt, opened by its link: why its check refused it, as the server kept it.
    const failed = after[2]
    expect(failed.check_output).to.be.a('string').and.not.equal('')
    await page.goto(`${t.url}/deploys?deploy=${failed.id}`)
    expect((await page.getByTestId('check-output').textContent())?.trim()).to.equal(failed.check_output.trim())
    await page.context().close()
  })

  it('runs the policy test in Russian', async () => {
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await signIn(page, t, '/policy')
    await page.getByRole('heading', { name: 'Политика AAA', level: 1 }).waitFor()
    const test = page.getByTestId('policy-test')
    await test.locator('input[name="username"]').fill('bob')
    await test.locator('input[name="nas_ip"]').fill('10.1.0.1')
    await test.getByRole('button', { name: 'Проверить' }).click()
    // bob is no user: denied, the reason in the server's words.
    await test.getByTestId('decision').getByText('Запрещено').waitFor()
    // A bad address: refused under its input, in Russian.
    await test.locator('input[name="nas_ip"]').fill('10.1.0')
    await test.getByRole('button', { name: 'Проверить' }).click()
    expect(await inputError(page, 'nas_ip')).to.not.equal('')
    await screenshot(page, 'policy-ru')
    await page.context().close()
  })

  it('searches, sorts and opens the AAA logs, and downloads them as csv and xlsx', async () => {
    const row = (hour: number, username: string, action: 'permit' | 'deny', command: string, rule_name: string, profile: string | null) => ({
      id: randomUUID(), timestamp: new Date(Date.UTC(2026, 10, 20, hour)), username, action, command, rule_name, profile, service: 'shell',
      nas_ip: '10.1.0.1', node_id: randomUUID(), device_name: 'core-sw-1', source_file: '/var/log/tac_plus-ng/authz.log', source_offset: hour * 100,
    })
    await t.app.db.knex(LOG_TABLE.tacacs_authorization).insert([
      row(9, 'alice', 'permit', 'show version', 'alice-core', 'netadmin'),
      row(10, 'bob', 'deny', 'reload', 'default', null),
      row(11, 'carol', 'permit', 'show clock', 'alice-core', 'netadmin'),
    ])
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/logs')
    await page.getByRole('heading', { name: 'AAA logs', level: 1 }).waitFor()
    await page.getByRole('tab', { name: 'TACACS+ authorization' }).click()
    const table = page.getByTestId('logs-table')
    const users = () => table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-username')))
    // Newest first by default; the User header sorts by user, ascending on the first click, descending on a second
    // (the shared list piece: `aria-sort`, and the sort in the address, kept by a reload).
    await table.locator('tr[data-username="carol"]').waitFor()
    expect(await users()).to.deep.equal(['carol', 'bob', 'alice'])
    await table.getByRole('button', { name: /^User/ }).click()
    await page.waitForFunction(() => document.querySelector('[data-testid="logs-table"] tbody tr')?.getAttribute('data-username') === 'alice')
    expect(await users()).to.deep.equal(['alice', 'bob', 'carol'])
    await table.getByRole('button', { name: /^User/ }).click()
    await page.waitForFunction(() => document.querySelector('[data-testid="logs-table"] tbody tr')?.getAttribute('data-username') === 'carol')
    expect(await table.locator('th:has(button[data-sort="username"])').getAttribute('aria-sort')).to.equal('descending')
    expect(Object.fromEntries(new URL(page.url()).searchParams)).to.deep.include({ kind: 'tacacs/authorization', sort_by: 'username', sort_order: 'desc' })
    await page.reload()
    await table.locator('tr[data-username="carol"]').waitFor()
    expect(await users()).to.deep.equal(['carol', 'bob', 'alice'])
    expect(await page.getByRole('tab', { name: 'TACACS+ authorization' }).getAttribute('aria-selected')).to.equal('true')

    // Free text: the command; the search is kept in the URL.
    await page.locator('input[name="search"]').fill('reload')
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="logs-table"] tbody tr').length === 1)
    expect(await users()).to.deep.equal(['bob'])
    expect(new URL(page.url()).searchParams.get('search')).to.equal('reload')

    // The drawer: every field of the entry.
    await table.getByRole('button', { name: /^Details of bob/ }).click()
    const drawer = page.getByTestId('log-entry')
    await drawer.getByText('/var/log/tac_plus-ng/authz.log').waitFor()
    expect(await drawer.getByRole('row', { name: /Command/ }).textContent()).to.include('reload')
    await screenshot(page, 'logs')
    await page.keyboard.press('Escape')

    // The export holds what the list shows: the filtered entries.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export csv' }).click()])
    expect(csv.suggestedFilename()).to.match(/^tacacs-authorization-\d{8}-\d{6}\.csv$/)
    const text = readFileSync((await csv.path())!, 'utf8')
    expect(text).to.include('reload')
    expect(text).not.to.include('show clock')
    await page.getByTestId('export-result').getByText(/\(1 rows\)/).waitFor()
    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export xlsx' }).click()])
    expect(xlsx.suggestedFilename()).to.match(/\.xlsx$/)
    // An xlsx file is a zip: it starts with PK.
    expect(readFileSync((await xlsx.path())!).subarray(0, 2).toString()).to.equal('PK')

    // From the users screen, a user's entries: the logs open with the user filter set (kept in the URL).
    await page.getByRole('navigation').getByRole('link', { name: 'Users', exact: true }).click()
    await page.getByTestId('users-table').getByRole('link', { name: 'AAA logs of alice' }).click()
    await page.getByRole('heading', { name: 'AAA logs', level: 1 }).waitFor()
    expect(await page.locator('input[name="username"]').inputValue()).to.equal('alice')
    expect(new URL(page.url()).searchParams.get('username')).to.equal('alice')
    await page.getByRole('tab', { name: 'TACACS+ authorization' }).click()
    await table.locator('tr[data-username="alice"]').waitFor()
    expect(await users()).to.deep.equal(['alice'])
    expect(new URL(page.url()).searchParams.get('username'), 'the tab change keeps the filter in the URL').to.equal('alice')
    await page.context().close()
  })

  it('shows a reader what the permissions allow: the policy without changing it, no deploys', async () => {
    const token = await t.token({ permissions: ['aaa-policy.read', 'aaa-logs.read'] })
    const c = await context(browser, { locale: 'en-US' })
    // Signed in as this reader: the session cookie a sign-in would have set.
    await signInWithToken(c, t.url, token)
    const page = await c.newPage()
    await page.goto(t.url + '/policy')
    await page.getByRole('heading', { name: 'AAA policy', level: 1 }).waitFor()
    await page.locator('tr[data-rule="alice-core"]').waitFor()
    const menu = page.getByRole('navigation')
    expect(await menu.getByRole('link', { name: 'AAA logs' }).count()).to.equal(1)
    expect(await menu.getByRole('link', { name: 'Deploys' }).count()).to.equal(0)
    expect(await page.getByRole('button', { name: 'Add rule' }).count()).to.equal(0)
    expect(await page.getByRole('button', { name: /^Move (up|down)/ }).count()).to.equal(0)
    expect(await page.locator('tr[data-rule="alice-core"]').getAttribute('draggable')).to.equal('false')
    // The policy test is reading: it runs.
    await page.getByTestId('policy-test').locator('input[name="username"]').fill('alice')
    await page.getByTestId('policy-test').locator('input[name="nas_ip"]').fill('10.1.0.1')
    await page.getByTestId('policy-test').getByRole('button', { name: 'Test' }).click()
    await page.getByTestId('decision').waitFor()
    // Deploys by URL: the server refuses, the page says so.
    await page.goto(t.url + '/deploys')
    await page.getByRole('heading', { name: 'Deploys', level: 1 }).waitFor()
    expect(await page.getByTestId('error-alert').first().getAttribute('data-code')).to.equal('PERMISSION_DENIED')
    expect(await page.getByRole('button', { name: 'Deploy all' }).count()).to.equal(0)
    await c.close()
  })

  it('finds a user past the first page of a picker by typing, and shows an edited rule its user by name', async () => {
    // More users than a picker offers at once (50, by name), and more than the first 100 the console once
    // loaded whole: zz-late is not among them until typed.
    for (let i = 0; i < 110; i++) {
      const r = await t.admin('POST', '/api/v1/users', { body: { username: `bulk-${String(i).padStart(3, '0')}` } })
      expect(r.status, r.text).to.equal(201)
    }
    const late = await t.admin('POST', '/api/v1/users', { body: { username: 'zz-late', email: 'night.shift@example.net' } })
    expect(late.status, late.text).to.equal(201)
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/policy')
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.locator('input[name="name"]').fill('late-user')
    const who = await inputByLabel(page, 'Who')
    await who.click()
    await page.getByRole('option', { name: 'bulk-000' }).waitFor()
    expect(await page.getByRole('option').count()).to.equal(50)
    expect(await page.getByRole('option', { name: 'zz-late' }).count()).to.equal(0)
    // The server searches what is typed, e-mail included (the option shows the username only).
    await who.fill('night.shift')
    await page.getByRole('option', { name: 'zz-late' }).click()
    await page.getByRole('dialog').getByText('Device', { exact: true }).click()
    await pick(page, 'Where', /core-sw-1/)
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('rules').locator('tr[data-rule="late-user"]').waitFor()
    const rule = ((await t.admin('GET', RULES)).body as { id: string; name: string; who_user_id: string | null }[]).find((r) => r.name === 'late-user')
    expect(rule?.who_user_id).to.equal(late.body.id)

    // Opened again, the rule's user shows by name though the picker's first page lacks it.
    await page.getByRole('button', { name: 'Edit late-user' }).click()
    const whoAgain = await (await inputByLabel(page, 'Who', { last: true })).elementHandle()
    await page.waitForFunction((el) => (el as HTMLInputElement).value === 'zz-late', whoAgain, { timeout: 10_000 })
    await page.getByRole('button', { name: 'Cancel' }).click()

    // The list's user filter finds zz-late by typing, and shows the rules that name that user.
    const filter = await inputByLabel(page, 'Rules for user')
    await filter.fill('zz-l')
    await page.getByRole('option', { name: 'zz-late' }).click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="rules"] tbody tr').length === 1)
    expect(await shownOrder(page)).to.deep.equal(['late-user'])
    expect((await t.admin('DELETE', `${RULES}/${rule?.id}`)).status).to.equal(204)
    await page.context().close()
  })
})
