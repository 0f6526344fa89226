/**
 * The console's identity and administration screens in a real browser
 * (headless chromium) against the real server on a throwaway PostgreSQL, as a
 * person uses them: a user group and a role made from the permission list, a
 * user created in the group with the role (a weak password refused under its
 * input first), disabled, and that change found in the audit trail with its
 * before and after; a role granting what a delegated administrator lacks,
 * refused under that permission; a setting changed in Russian (a value out of
 * range refused under its input in Russian); a user's account acted on from
 * its dialog (the second factor reset, the setup link mailed to a real SMTP
 * listener, every session ended, the lockout cleared) and a role, a group and
 * that user deleted after their questions; users imported from a CSV file (a bad row refusing the
 * whole file first), then added to a group and removed from another at once, each keeping its other
 * groups (English at 1280×800, Russian at 768 px). What the screens show is
 * asserted, and the server is asked whether it holds what they say.
 */
import { expect } from 'chai'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { codeAt, enroll, wrongCode } from '../../../test/kit/mfa.js'
import { startSmtp, type TestSmtp } from '../../../test/kit/smtp.js'
import { context, heading, inputByLabel, inputError, launch, needConsole, screenshot, signInAt, startWithAdmin, clearRateLimits, answerConfirm } from './browser.js'

const PASSWORD = 'Portcullis-Idm-2026!'
const CAROL = 'Kestrel-Strong-Pass-42x'
const DAVE = 'Plover-Strong-Pass-42x'
const ERIN = 'Dunlin-Strong-Pass-42x'
const FRANK = 'Turnstone-Strong-Pass-42x'

const signIn = (page: Page, t: TestApp, to: string, username = 'admin', password = PASSWORD) => signInAt(page, t.url + to, username, password)

/** Waits for the open dialog or drawer to finish sliding in, so a screenshot shows it settled. */
const settled = (page: Page) => page.getByRole('dialog').last().evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)).then(() => undefined))

/** Picks `option` in the Mantine Select or MultiSelect of the dialog whose label is `label`. */
async function pick(page: Page, label: string, option: string) {
  await (await inputByLabel(page, label, { scope: page.getByRole('dialog') })).click()
  await page.getByRole('option', { name: option, exact: true }).click()
  await page.keyboard.press('Escape')
}

/**
 * Runs `fn` with the server mailing to a real SMTP listener and, with `publicUrl`, `identity.public_url`
 * set to the server (so mails carry links to it); the listener stops and the URL is unset after.
 */
async function withMail(t: TestApp, { publicUrl }: { publicUrl: boolean }, fn: (smtp: TestSmtp) => Promise<void>): Promise<void> {
  const smtp = await startSmtp()
  try {
    for (const [key, value] of Object.entries({ 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none', ...(publicUrl ? { 'identity.public_url': t.url } : {}) })) {
      const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
      expect(r.status, r.text).to.equal(200)
    }
    await fn(smtp)
  } finally {
    if (publicUrl) await t.admin('PUT', '/api/v1/settings/identity.public_url', { body: { value: null } })
    await smtp.stop()
  }
}

// In the embedded run: the browser suites are split between the two runs so that they end together (suite time).
;(runsOn('embedded') ? describe : describe.skip)('console: users, groups, roles, the audit trail and settings in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  beforeEach(() => clearRateLimits(t))
  let browser: Browser

  before(async function () {
    needConsole(this)
    t = await startWithAdmin({ engine: 'embedded', plugins: ['mfa', 'console'] }, PASSWORD)
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  it('makes a group and a role from the permission list, creates a user in them, disables it and finds the change in the audit trail', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/user-groups')
    await heading(page).filter({ hasText: 'User groups' }).waitFor()
    const nav = page.getByRole('navigation')
    for (const name of ['Users', 'User groups', 'Roles', 'Audit trail', 'Settings']) await nav.getByRole('link', { name, exact: true }).waitFor()

    // The group.
    await page.getByRole('button', { name: 'Add group' }).click()
    await page.locator('input[name="name"]').fill('netops')
    await page.locator('textarea[name="description"]').fill('Network operations')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('user-groups-table').locator('tr[data-group="netops"]').waitFor()

    // The role: two permissions ticked in the list /rbac/schema gives, grouped by who declares them, described.
    await nav.getByRole('link', { name: 'Roles', exact: true }).click()
    await heading(page).filter({ hasText: 'Roles' }).waitFor()
    await page.getByRole('button', { name: 'Add role' }).click()
    await page.locator('input[name="name"]').fill('helpdesk')
    const perms = page.getByTestId('permissions')
    await perms.locator('[data-plugin="mfa"]').getByText('mfa.manage').waitFor()
    await perms.getByRole('checkbox', { name: 'users.read', exact: true }).check()
    await perms.getByRole('checkbox', { name: 'audit.read', exact: true }).check()
    expect(await perms.locator('[data-plugin="mfa"]').textContent()).to.include("See users' second-factor status")
    await settled(page)
    await screenshot(page, 'roles')
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('roles-table').locator('tr[data-role="helpdesk"]').getByText('2 permissions').waitFor()
    const roles = (await t.admin('GET', '/api/v1/roles?search=helpdesk')).body.items
    expect(roles[0].permissions).to.deep.equal(['audit.read', 'users.read'])

    // The user: a weak password is refused under its input and nothing is made; then made, in the group, with the role.
    await nav.getByRole('link', { name: 'Users', exact: true }).click()
    await heading(page).filter({ hasText: 'Users' }).waitFor()
    await page.getByRole('button', { name: 'Add user' }).click()
    await page.locator('input[name="username"]').fill('carol')
    await page.locator('input[name="display_name"]').fill('Carol Jones')
    await page.locator('input[name="email"]').fill('carol@example.org')
    await page.locator('input[name="password"]').fill('short')
    await pick(page, 'Groups', 'netops')
    await pick(page, 'Roles given directly', 'helpdesk')
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'password')).to.not.equal('')
    expect((await t.admin('GET', '/api/v1/users?search=carol')).body.total_by_filter).to.equal(0)
    await page.locator('input[name="password"]').fill(CAROL)
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click()
    const row = page.getByTestId('users-table').locator('tr[data-user="carol"]')
    await row.getByText('netops').waitFor()
    const carol = (await t.admin('GET', '/api/v1/users?search=carol')).body.items[0]
    const group = (await t.admin('GET', '/api/v1/user-groups?search=netops')).body.items[0]
    expect(carol).to.include({ display_name: 'Carol Jones', email: 'carol@example.org', enabled: true, password_set: true })
    expect(carol.group_ids).to.deep.equal([group.id])
    expect(carol.role_ids).to.deep.equal([roles[0].id])
    // The password works: carol signs in through the API.
    expect((await t.req('POST', '/api/v1/auth/login', { body: { username: 'carol', password: CAROL } })).status).to.equal(200)

    // The group filter keeps the members; the group's member list shows carol.
    await page.getByRole('combobox', { name: 'Group', exact: true }).click()
    await page.getByRole('option', { name: 'netops', exact: true }).click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="users-table"] tbody tr').length === 1)
    expect(new URL(page.url()).searchParams.get('group')).to.equal(group.id)

    // Disable carol; the dialog shows her second factor (off) and the account actions.
    await row.getByRole('button', { name: 'Edit carol' }).click()
    await page.getByTestId('user-mfa').getByText('off').waitFor()
    await page.getByRole('dialog').getByRole('switch', { name: 'Enabled' }).uncheck()
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
    await row.getByText('disabled').waitFor()
    expect((await t.admin('GET', `/api/v1/users/${carol.id}`)).body.enabled).to.equal(false)
    await screenshot(page, 'users')

    // The audit trail: the update of carol, its before and after side by side, only the changed fields by default.
    await nav.getByRole('link', { name: 'Audit trail', exact: true }).click()
    await heading(page).filter({ hasText: 'Audit trail' }).waitFor()
    await page.locator('input[name="action"]').fill('user.update')
    await page.locator('input[name="resource_id"]').fill(carol.id)
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="audit-table"] tbody tr')].every((r) => r.getAttribute('data-action') === 'user.update'))
    const table = page.getByTestId('audit-table')
    expect(await table.locator('tbody tr').count()).to.equal(1)
    // The action in words, its code small beneath; the resource type in words.
    expect(await table.getByTestId('audit-action').locator('p').allTextContents()).to.deep.equal(['User: changed', 'user.update'])
    expect(await table.locator('tbody tr td').nth(3).textContent()).to.match(/^User/)
    await table.getByRole('button', { name: /^Details of user\.update/ }).click()
    const diff = page.getByTestId('audit-diff')
    const enabled = diff.locator('tr[data-field="enabled"]')
    await enabled.waitFor()
    expect((await enabled.locator('td').allTextContents()).map((s) => s.trim())).to.deep.equal(['enabledchanged', 'true', 'false'])
    expect(await page.getByTestId('audit-entry').textContent()).to.include('admin')
    expect(await diff.locator('tr[data-field="username"]').count()).to.equal(0)
    await settled(page)
    await screenshot(page, 'audit')
    await page.getByTestId('audit-entry').getByRole('switch', { name: 'Only the changed fields' }).uncheck()
    await diff.locator('tr[data-field="username"]').waitFor()
    await page.context().close()
  })

  it('shows the refusal of a permission the signed-in user lacks under that permission', async () => {
    const mk = async (p: string, body: object) => {
      const r = await t.admin('POST', p, { body })
      expect(r.status, r.text).to.equal(201)
      return r.body.id as string
    }
    const role = await mk('/api/v1/roles', { name: 'role-admin', permissions: ['roles.read', 'roles.write', 'rbac.read'] })
    await mk('/api/v1/users', { username: 'dana', password: 'Osprey-Strong-Pass-42x', role_ids: [role] })
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/roles', 'dana', 'Osprey-Strong-Pass-42x')
    await heading(page).filter({ hasText: 'Roles' }).waitFor()
    // dana may not read users: the menu leaves the screen out.
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Users', exact: true }).count()).to.equal(0)
    await page.getByRole('button', { name: 'Add role' }).click()
    await page.locator('input[name="name"]').fill('too-strong')
    const perms = page.getByTestId('permissions')
    await perms.getByRole('checkbox', { name: /^roles\.read/ }).check()
    await perms.getByRole('checkbox', { name: /^users\.write/ }).check()
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click()
    const refused = perms.locator('input[aria-invalid="true"]')
    await refused.waitFor()
    expect(await refused.getAttribute('value')).to.equal('users.write')
    expect(await page.getByTestId('error-alert').count()).to.equal(0)
    expect((await t.admin('GET', '/api/v1/roles?search=too-strong')).body.total_by_filter).to.equal(0)
    await page.context().close()
  })

  it('changes a setting in Russian, a value out of range refused under its input', async () => {
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await signIn(page, t, '/settings')
    await page.getByRole('heading', { name: 'Настройки', level: 1 }).waitFor()
    // The Mail section, opened; its one save sends its changes, a refusal shows under its input.
    const mail = page.locator('[data-settings-section="mail"]')
    await mail.getByRole('button').filter({ hasText: 'Почта' }).click()
    const port = page.locator('[data-setting="mail.smtp_port"]')
    await port.locator('input[name="mail.smtp_port"]').fill('70000')
    await mail.getByRole('button', { name: 'Сохранить: Почта' }).click()
    expect(await inputError(page, 'mail.smtp_port')).to.match(/[а-яё]/i)
    expect((await t.admin('GET', '/api/v1/settings/mail.smtp_port')).body.value).to.equal(587)
    await port.locator('input[name="mail.smtp_port"]').fill('2525')
    await mail.getByRole('button', { name: 'Сохранить: Почта' }).click()
    await mail.getByText('Сохранено настроек: 1.').waitFor()
    expect((await t.admin('GET', '/api/v1/settings/mail.smtp_port')).body.value).to.equal(2525)
    // A secret setting shows whether it is set, never what it is.
    const secret = page.locator('[data-setting="mail.smtp_password"]')
    expect(await secret.locator('input').inputValue()).to.equal('')
    await secret.getByText(/не задан/).waitFor()
    await screenshot(page, 'settings-ru')
    // The audit trail says that change in Russian words, the code beneath.
    await page.goto(t.url + '/audit')
    await page.getByRole('heading', { name: 'Журнал аудита', level: 1 }).waitFor()
    await page.locator('input[name="resource_id"]').fill('mail.smtp_port')
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('[data-testid="audit-table"] tbody tr[data-action]')]
      return rows.length > 0 && rows.every((r) => r.getAttribute('data-action')?.endsWith('setting.update'))
    })
    const [words, code] = await page.getByTestId('audit-table').getByTestId('audit-action').first().locator('p').allTextContents()
    expect(words).to.equal(code === 'setting.update' ? 'Настройка: изменение' : 'Настройка безопасности: изменение')
    await page.context().close()
  })

  // The users' CSV import (ui/src/pages/CsvImport.tsx, POST /users/import) and the bulk group actions
  // that keep a user's other groups (Users.tsx): English at 1280×800, Russian at 768 px.
  for (const c of [
    { locale: 'en-US', width: 1280, height: 800, lang: 'en', w: { import: 'Import CSV', run: 'Import', applied: 'Written', created: 'created', refused: 'refused', add: 'Add to group', addOk: 'Add', remove: 'Remove from group', removeOk: 'Remove', group: 'Group', perPage: 'Rows per page', done: (a: string, n: number) => `${a}: ${n} of ${n} done.` } },
    { locale: 'ru-RU', width: 768, height: 1024, lang: 'ru', w: { import: 'Импорт CSV', run: 'Импортировать', applied: 'Записано', created: 'создано', refused: 'отклонено', add: 'Добавить в группу', addOk: 'Добавить', remove: 'Убрать из группы', removeOk: 'Убрать', group: 'Группа', perPage: 'Строк на странице', done: (a: string, n: number) => `${a}: выполнено ${n} из ${n}.` } },
  ] as const) {
    it(`imports users from a CSV file, then adds the selected to a group and removes them from another, their other groups kept (${c.lang}, ${c.width} px)`, async () => {
      const [a, b] = [`imp-${c.lang}-a`, `imp-${c.lang}-b`]
      const ids: Record<string, string> = {}
      for (const name of [a, b]) {
        const r = await t.admin('POST', '/api/v1/user-groups', { body: { name } })
        expect(r.status, r.text).to.equal(201)
        ids[name] = r.body.id
      }
      const page = await (await context(browser, { locale: c.locale, width: c.width, height: c.height })).newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await signIn(page, t, `/users?search=imp-${c.lang}-`)
      await page.getByRole('button', { name: c.w.import }).click()
      const dialog = page.getByTestId('users-import')
      const csv = `username,display_name,groups\nimp-${c.lang}-1,One,${a}\nimp-${c.lang}-2,Two,${a}\nbad name,Three,\n`
      await dialog.locator('input[type="file"]').setInputFiles({ name: 'users.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
      // With the bad row, atomic: nothing written, every row reported, the bad one naming its column.
      await dialog.getByRole('button', { name: c.w.run, exact: true }).click()
      const report = page.getByTestId('import-report')
      await report.getByText(c.w.refused, { exact: true }).waitFor()
      const rows = await report.getByRole('row').allInnerTexts()
      expect(rows.length).to.equal(4)
      expect(rows[3]).to.include('bad name').and.include('username')
      expect((await t.admin('GET', `/api/v1/users?search=imp-${c.lang}-`)).body.total_by_filter, 'nothing written').to.equal(0)
      // The bad row out: both written, in their group, and in the list behind the dialog.
      await dialog.locator('input[type="file"]').setInputFiles({ name: 'users.csv', mimeType: 'text/csv', buffer: Buffer.from(csv.split('\n').slice(0, 3).join('\n') + '\n') })
      await dialog.getByRole('button', { name: c.w.run, exact: true }).click()
      await report.getByText(c.w.applied, { exact: true }).waitFor()
      expect(await report.getByText(c.w.created, { exact: true }).count()).to.equal(2)
      await page.keyboard.press('Escape')
      const table = page.getByTestId('users-table')
      for (const u of ['1', '2']) await table.getByText(`imp-${c.lang}-${u}`, { exact: true }).waitFor()
      // The page size's label is on screen, and names its select.
      await page.getByText(c.w.perPage, { exact: true }).waitFor()
      expect(await page.getByLabel(c.w.perPage).inputValue()).to.equal('20')

      const groupsOf = async () => {
        const list = (await t.admin('GET', `/api/v1/users?search=imp-${c.lang}-&sort_by=username`)).body.items as { group_ids: string[] }[]
        return list.map((u) => [...u.group_ids].sort())
      }
      const bulk = async (action: string, ok: string, group: string) => {
        await page.getByTestId('select-all').check()
        await page.getByTestId('bulk-bar').getByRole('button', { name: action, exact: true }).click()
        const chooser = page.getByTestId('bulk-choose')
        await chooser.getByLabel(c.w.group).click()
        await page.getByRole('option', { name: group, exact: true }).click()
        await chooser.getByRole('button', { name: ok, exact: true }).click()
        await page.getByTestId('bulk-result').getByText(c.w.done(action, 2)).waitFor()
      }
      // Added to b: each keeps a.
      await bulk(c.w.add, c.w.addOk, b)
      expect(await groupsOf()).to.deep.equal([[ids[a], ids[b]].sort(), [ids[a], ids[b]].sort()])
      // Removed from a: each keeps b.
      await bulk(c.w.remove, c.w.removeOk, a)
      expect(await groupsOf()).to.deep.equal([[ids[b]], [ids[b]]])
      expect(errors).to.deep.equal([])
      await page.context().close()
    })
  }

  it('fits a tablet: each screen scrolls its table in its own box, not the page sideways', async () => {
    const page = await (await context(browser, { locale: 'en-US', width: 820, height: 1180 })).newPage()
    await signIn(page, t, '/users')
    await heading(page).filter({ hasText: 'Users' }).waitFor()
    for (const [path, title] of [['/users', 'Users'], ['/user-groups', 'User groups'], ['/roles', 'Roles'], ['/audit', 'Audit trail'], ['/settings', 'Settings']]) {
      await page.goto(t.url + path)
      await heading(page).filter({ hasText: new RegExp(`^${title}$`) }).waitFor()
      await page.locator('table, [data-settings-section]').first().waitFor()
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), path).to.equal(true)
    }
    await page.context().close()
  })

  it('acts on an account (second factor, setup link, sessions, lockout) and deletes a role, a group and a user after asking', async () => {
    await withMail(t, { publicUrl: false }, async (smtp) => {
      const mk = async (p: string, body: object) => {
        const r = await t.admin('POST', p, { body })
        expect(r.status, r.text).to.equal(201)
        return r.body.id as string
      }
      // dave: in a group, with a role given directly and through the group, signed in, then enrolled in TOTP.
      const role = await mk('/api/v1/roles', { name: 'night-auditor', permissions: ['audit.read'] })
      const group = await mk('/api/v1/user-groups', { name: 'night-shift', role_ids: [role] })
      const dave = await mk('/api/v1/users', { username: 'dave', password: DAVE, email: 'dave@example.org', group_ids: [group], role_ids: [role] })
      const login = await t.req('POST', '/api/v1/auth/login', { body: { username: 'dave', password: DAVE } })
      expect(login.status, login.text).to.equal(200)
      const daveToken = login.body.access_token as string
      await enroll(t, 'dave', DAVE)
      expect((await t.req('GET', '/api/v1/auth/me', { token: daveToken })).status).to.equal(200)

      const page = await (await context(browser, { locale: 'en-US' })).newPage()
      const asked: string[] = []
      await signIn(page, t, '/users')
      const row = page.getByTestId('users-table').locator('tr[data-user="dave"]')
      await row.getByRole('button', { name: 'Edit dave' }).click()
      const account = page.getByTestId('account-actions')
      await page.getByTestId('user-mfa').getByText(/^on since/).waitFor()

      // The second factor, reset after the confirmation: off, and the server agrees.
      await account.getByRole('button', { name: 'Reset the second factor' }).click()
      asked.push(await answerConfirm(page))
      await account.getByRole('status').filter({ hasText: 'The second factor is removed.' }).waitFor()
      await page.getByTestId('user-mfa').getByText('off', { exact: true }).waitFor()
      expect(asked.pop()).to.include('Remove the authenticator of dave? Their next sign-in asks for no code.')
      expect((await t.admin('GET', `/api/v1/users/${dave}/mfa`)).body.enrolled).to.equal(false)

      // Off, the setup link can be mailed: dave receives a setup token that starts an enrollment.
      await account.getByRole('button', { name: 'Email the setup link' }).click()
      await account.getByRole('status').filter({ hasText: 'The setup link is mailed' }).waitFor()
      const mail = await smtp.take('dave@example.org')
      const setup = /setup token:\n\n(\S+)/.exec(mail.text)
      expect(setup, mail.text).to.not.equal(null)
      expect((await t.req('POST', '/api/v1/mfa/enrollment', { token: setup![1] })).status).to.equal(200)

      // Every session ended: dave's token no longer works.
      await account.getByRole('button', { name: 'End all sessions' }).click()
      asked.push(await answerConfirm(page))
      await account.getByRole('status').filter({ hasText: 'Every session of the user is ended.' }).waitFor()
      expect(asked.pop()).to.include('Sign dave out everywhere?')
      expect((await t.req('GET', '/api/v1/auth/me', { token: daveToken })).status).to.equal(401)

      // The lockout cleared: when is shown, and held by the server.
      await account.getByRole('button', { name: 'Clear the lockout' }).click()
      await account.getByRole('status').filter({ hasText: 'The lockout is cleared' }).waitFor()
      await account.getByText(/^Lockout last cleared/).waitFor()
      expect((await t.admin('GET', `/api/v1/users/${dave}`)).body.lockout_cleared_at).to.be.a('string')
      // The user's own audit trail, one click away: what was just done to dave is in it.
      await account.getByRole('link', { name: 'Audit trail of this record' }).click()
      await heading(page).filter({ hasText: 'Audit trail' }).waitFor()
      expect(await page.locator('input[name="resource_id"]').inputValue()).to.equal(dave)
      await page.getByTestId('audit-table').locator('tr[data-action="user.lockout_clear"]').waitFor()
      expect(await page.getByTestId('audit-table').locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')))).to.include('user.create')

      // The role: the question says whom it is taken from; deleted, dave and the group no longer hold it.
      await page.getByRole('navigation').getByRole('link', { name: 'Roles', exact: true }).click()
      await page.getByTestId('roles-table').getByRole('button', { name: 'Delete night-auditor' }).click()
      asked.push(await answerConfirm(page))
      await page.getByTestId('roles-table').locator('tr[data-role="night-auditor"]').waitFor({ state: 'detached' })
      expect(asked.pop()).to.include('Delete the role night-auditor? It is taken from 1 user(s) and 1 group(s).')
      expect((await t.admin('GET', `/api/v1/roles/${role}`)).status).to.equal(404)
      expect((await t.admin('GET', `/api/v1/users/${dave}`)).body.role_ids).to.deep.equal([])
      expect((await t.admin('GET', `/api/v1/user-groups/${group}`)).body.role_ids).to.deep.equal([])

      // The group, then the user.
      await page.getByRole('navigation').getByRole('link', { name: 'User groups', exact: true }).click()
      await page.getByTestId('user-groups-table').getByRole('button', { name: 'Delete night-shift' }).click()
      asked.push(await answerConfirm(page))
      await page.getByTestId('user-groups-table').locator('tr[data-group="night-shift"]').waitFor({ state: 'detached' })
      expect(asked.pop()).to.include('Delete the group night-shift? Its members lose its roles.')
      expect((await t.admin('GET', `/api/v1/user-groups/${group}`)).status).to.equal(404)
      expect((await t.admin('GET', `/api/v1/users/${dave}`)).body.group_ids).to.deep.equal([])
      await page.getByRole('navigation').getByRole('link', { name: 'Users', exact: true }).click()
      await page.getByTestId('users-table').getByRole('button', { name: 'Delete dave' }).click()
      asked.push(await answerConfirm(page))
      await page.getByTestId('users-table').locator('tr[data-user="dave"]').waitFor({ state: 'detached' })
      expect(asked.pop()).to.include('Delete the user dave?')
      expect((await t.admin('GET', `/api/v1/users/${dave}`)).status).to.equal(404)
      await page.context().close()
    })
  })

  it('sets up the second factor from the mailed link, signed out, then signs in with a code; the spent link is refused', async () => {
    await withMail(t, { publicUrl: true }, async (smtp) => {
      const made = await t.admin('POST', '/api/v1/users', { body: { username: 'erin', password: ERIN, email: 'erin@example.org' } })
      expect(made.status, made.text).to.equal(201)
      const erin = made.body.id as string
      expect((await t.admin('POST', `/api/v1/users/${erin}/mfa/enrollment-link`)).status).to.equal(202)
      // The console is served and identity.public_url set: the mail links to the setup page, the token in the fragment.
      const mail = await smtp.take('erin@example.org')
      const link = new RegExp(`${t.url.replace(/[.]/g, '\\.')}/mfa/setup#token=\\S+`).exec(mail.text)?.[0]
      expect(link, mail.text).to.be.a('string')

      const page = await (await context(browser, { locale: 'en-US' })).newPage()
      await page.goto(link!)
      await heading(page).filter({ hasText: 'Set up two-factor sign-in' }).waitFor()
      // The token left the address bar once read; the page asks for no token it already has.
      await page.waitForFunction(() => window.location.hash === '')
      expect(await page.locator('textarea[name="token"]').count()).to.equal(0)
      await page.getByRole('button', { name: 'Set up' }).click()
      const secret = ((await page.getByTestId('mfa-secret').textContent()) ?? '').trim()
      expect(secret).to.match(/^[A-Z2-7]{32}$/)
      // A wrong code is refused under the code input; the right one turns it on.
      await page.locator('input[name="code"]').fill(wrongCode(secret))
      await page.getByRole('button', { name: 'Turn on' }).click()
      expect(await inputError(page, 'code')).to.not.equal('')
      expect((await t.admin('GET', `/api/v1/users/${erin}/mfa`)).body.enrolled).to.equal(false)
      await page.locator('input[name="code"]').fill(codeAt(secret))
      await page.getByRole('button', { name: 'Turn on' }).click()
      await page.getByRole('status').filter({ hasText: 'Your authenticator app is set up.' }).waitFor()
      expect((await t.admin('GET', `/api/v1/users/${erin}/mfa`)).body.enrolled).to.equal(true)

      // Then the sign-in asks for a code, and takes the app's next one.
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.locator('input[name="username"]').fill('erin')
      await page.locator('input[name="password"]').fill(ERIN)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.locator('input[name="code"]').fill(codeAt(secret, 1))
      await page.getByRole('button', { name: 'Verify' }).click()
      expect(await page.getByTestId('whoami').textContent()).to.equal('erin')

      // The link again, in another browser: its token was spent by the confirmation.
      const again = await (await context(browser, { locale: 'en-US' })).newPage()
      await again.goto(link!)
      await again.getByRole('button', { name: 'Set up' }).click()
      await again.getByRole('alert').filter({ hasText: 'This setup link has expired or was used already.' }).waitFor()
      await again.context().close()
      await page.context().close()
    })
  })

  it('asks for the setup token when the setup page is opened without one, in Russian', async () => {
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await page.goto(t.url + '/mfa/setup')
    await heading(page).filter({ hasText: 'Настройка двухфакторного входа' }).waitFor()
    const start = page.getByRole('button', { name: 'Настроить' })
    expect(await start.isDisabled()).to.equal(true)
    await page.locator('textarea[name="token"]').fill('not-a-token')
    await start.click()
    await page.getByRole('alert').filter({ hasText: 'Срок действия ссылки истёк' }).waitFor()
    await page.context().close()
  })

  it('resets a forgotten password from the sign-in by the mailed link, a weak one refused, then signs in; the spent link is refused', async () => {
    await withMail(t, { publicUrl: true }, async (smtp) => {
      const made = await t.admin('POST', '/api/v1/users', { body: { username: 'frank', password: 'Forgotten-Strong-Pass-42x', email: 'frank@example.org' } })
      expect(made.status, made.text).to.equal(201)
      const page = await (await context(browser, { locale: 'en-US' })).newPage()
      await page.goto(t.url + '/')
      await page.getByRole('link', { name: 'Forgot your password?' }).click()
      await heading(page).filter({ hasText: 'Reset your password' }).waitFor()
      await page.locator('input[name="username_or_email"]').fill('frank@example.org')
      await page.getByRole('button', { name: 'Send the reset link' }).click()
      await page.getByRole('status').filter({ hasText: 'a reset link is on its way' }).waitFor()
      const mail = await smtp.take('frank@example.org')
      const link = new RegExp(`${t.url.replace(/[.]/g, '\\.')}/reset-password#token=\\S+`).exec(mail.text)?.[0]
      expect(link, mail.text).to.be.a('string')

      await page.goto(link!)
      await heading(page).filter({ hasText: 'Reset your password' }).waitFor()
      await page.waitForFunction(() => window.location.hash === '')
      expect(await page.locator('textarea[name="token"]').count(), 'the link brought the token').to.equal(0)
      // The policy refuses a weak password under its input (the token is not spent); two that differ never leave.
      await page.locator('input[name="new_password"]').fill('short')
      await page.locator('input[name="repeat_password"]').fill('short')
      await page.getByRole('button', { name: 'Set the new password' }).click()
      expect(await inputError(page, 'new_password')).to.not.equal('')
      await page.locator('input[name="new_password"]').fill(FRANK)
      await page.locator('input[name="repeat_password"]').fill(FRANK + '!')
      await page.getByRole('button', { name: 'Set the new password' }).click()
      expect(await inputError(page, 'repeat_password')).to.equal('The two passwords differ.')
      await page.locator('input[name="repeat_password"]').fill(FRANK)
      await page.getByRole('button', { name: 'Set the new password' }).click()
      await page.getByRole('status').filter({ hasText: 'Your password is set' }).waitFor()
      expect((await t.req('POST', '/api/v1/auth/login', { body: { username: 'frank', password: 'Forgotten-Strong-Pass-42x' } })).status).to.equal(401)

      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.locator('input[name="username"]').fill('frank')
      await page.locator('input[name="password"]').fill(FRANK)
      await page.getByRole('button', { name: 'Sign in' }).click()
      expect(await page.getByTestId('whoami').textContent()).to.equal('frank')

      // The link again: its token is spent; the refusal says so, with the way to a new link.
      const again = await (await context(browser, { locale: 'en-US' })).newPage()
      await again.goto(link!)
      await again.locator('input[name="new_password"]').fill(FRANK + '-2')
      await again.locator('input[name="repeat_password"]').fill(FRANK + '-2')
      await again.getByRole('button', { name: 'Set the new password' }).click()
      expect(await again.getByTestId('error-alert').getAttribute('data-code')).to.equal('RESET_TOKEN_INVALID')
      await again.getByRole('link', { name: 'Ask for a new link' }).waitFor()
      await again.context().close()
      await page.context().close()
    })
  })
})
