/**
 * The console's TACACS+ / RADIUS configuration screens in a real browser
 * (headless chromium) against the real server on a throwaway PostgreSQL, as a
 * person uses them: a command set with nested commands and argument rules (a
 * regex outside the allowed subset refused under its input, a command moved
 * up), a TACACS+ profile using it, an AAA policy rule giving the profile with
 * a time window and its tac_plus-ng preview, the profile's delete dialog naming
 * the rule it would be cleared from, the command set's delete refused
 * (409) with the profile that uses it shown, a RADIUS profile (a bad reply
 * attribute refused under its input), the FreeRADIUS files deployed, masked
 * then revealed, a log exclusion, the refused delete in Russian, and what a
 * reader without write permissions is shown. The user and device the rule
 * names are made through the API: their screens are not this file's subject.
 */
import { expect } from 'chai'
import type { Browser, Locator, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { answerConfirm, context, inputByLabel, inputError, launch, needConsole, screenshot, signInAt, startWithAdmin, clearRateLimits, signInWithToken } from './browser.js'
import { describeImpact } from './impact-steps.js'

const PASSWORD = 'Portcullis-Config-2026!'

const signIn = (page: Page, t: TestApp, to: string) => signInAt(page, t.url + to, 'admin', PASSWORD)

/** Picks `option` in the Mantine Select whose input is `input` (a locator). */
async function choose(page: Page, input: Locator, option: string | RegExp) {
  await input.click()
  await page.getByRole('option', { name: option, exact: typeof option === 'string' }).click()
}

/** The Select whose label is `label` (a required one's label ends with an asterisk), within `scope`. */
const byLabel = (page: Page, label: string, scope: Locator | Page = page) => inputByLabel(page, label, { scope })

;(runsOn('postgres') ? describe : describe.skip)('console: command sets, TACACS+ and RADIUS profiles, log exclusions in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  beforeEach(() => clearRateLimits(t))
  let browser: Browser

  before(async function () {
    needConsole(this)
    t = await startWithAdmin({ engine: 'postgres', plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'console'], env: { TAC_PLUS_NG: '/nonexistent/sbin/tac_plus-ng' } }, PASSWORD)
    for (const [p, body] of [
      ['/api/v1/users', { username: 'alice', password: 'Tq-Strong-Pass-9zX', display_name: 'Alice', network_login: true }],
      ['/api/v1/devices', { name: 'core-sw-1', address: '10.1.0.1', tacacs_key: 'tacacs-key-1', radius_secret: 'radius-secret-1' }],
    ] as const) {
      const r = await t.admin('POST', p, { body })
      expect(r.status, r.text).to.equal(201)
    }
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  it('makes a command set with nested commands and argument rules, a profile and a rule using it, and refuses to delete the set in use', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/tacacs/command-sets')
    await page.getByRole('heading', { name: 'Command sets', level: 1 }).waitFor()
    const menu = page.getByRole('navigation')
    for (const link of ['Command sets', 'TACACS+ profiles', 'RADIUS profiles', 'Log exclusions']) await menu.getByRole('link', { name: link }).waitFor()

    // Two commands: `show` permitted for `running-config…` (a regex) or `version` (exact); `configure terminal` denied.
    await page.getByRole('button', { name: 'Add command set' }).click()
    const form = page.getByTestId('command-set-form')
    await form.locator('input[name="name"]').fill('show-only')
    await form.getByRole('button', { name: 'Add command' }).click()
    await form.getByRole('button', { name: 'Add command' }).click()
    await form.locator('input[name="commands[0].command"]').fill('configure terminal')
    await choose(page, await byLabel(page, 'Action', form.getByRole('group', { name: 'Command 1' })), 'deny')
    await form.locator('input[name="commands[1].command"]').fill('show')
    const second = form.getByRole('group', { name: 'Command 2' })
    await second.getByRole('button', { name: 'Add argument rule' }).click()
    await second.getByRole('button', { name: 'Add argument rule' }).click()
    await choose(page, second.locator('input[aria-label="Match"]').first(), 'regular expression')
    // A nested quantifier risks catastrophic backtracking: refused under its input, nothing made.
    await second.locator('input[name="commands[1].arguments[0].value"]').fill('(a+)+')
    await second.locator('input[name="commands[1].arguments[1].value"]').fill('version')
    await form.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'commands[1].arguments[0].value')).to.not.equal('')
    expect((await t.admin('GET', '/api/v1/tacacs/command-sets')).body.total).to.equal(0)
    await second.locator('input[name="commands[1].arguments[0].value"]').fill('running-config.*')
    // The permitted command first: moved up with its button.
    await form.getByRole('button', { name: 'Move up 2' }).click()
    expect(await form.locator('input[name="commands[0].command"]').inputValue()).to.equal('show')
    await screenshot(page, 'command-set-form')
    await form.getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('command-sets').locator('tr[data-name="show-only"]').waitFor()
    const list = (await t.admin('GET', '/api/v1/tacacs/command-sets')).body.items
    expect(list).to.have.length(1)
    const set = (await t.admin('GET', `/api/v1/tacacs/command-sets/${list[0].id}`)).body
    expect(set.commands).to.deep.equal([
      { command: 'show', action: 'permit', arguments: [{ match_type: 'regex', value: 'running-config.*' }, { match_type: 'exact', value: 'version' }] },
      { command: 'configure terminal', action: 'deny', arguments: [] },
    ])
    expect(await page.locator('tr[data-name="show-only"]').textContent()).to.include('unused')

    const baseline = await t.admin('POST', '/api/v1/tacacs/command-sets', { body: { name: 'baseline', commands: [{ command: 'exit', action: 'permit' }] } })
    expect(baseline.status, baseline.text).to.equal(201)

    // A TACACS+ profile using both sets, privilege 15, default action deny.
    await menu.getByRole('link', { name: 'TACACS+ profiles' }).click()
    await page.getByRole('heading', { name: 'TACACS+ profiles', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Add profile' }).click()
    const pf = page.getByTestId('tacacs-profile-form')
    await pf.locator('input[name="name"]').fill('netops')
    await pf.locator('input[name="privilege_level"]').fill('15')
    await choose(page, await byLabel(page, 'Command sets'), 'show-only')
    await choose(page, await byLabel(page, 'Command sets'), 'baseline')
    await page.keyboard.press('Escape')
    // Applied in order: the baseline set moved before show-only with its button.
    await pf.getByTestId('command-set-order').getByRole('button', { name: 'Move up baseline' }).click()
    expect(await pf.getByTestId('command-set-order').getByRole('listitem').allTextContents()).to.deep.equal(['1.baseline↑↓', '2.show-only↑↓'])
    await pf.getByRole('button', { name: 'Create' }).click()
    const row = page.getByTestId('tacacs-profiles').locator('tr[data-name="netops"]')
    await row.waitFor()
    expect(await row.textContent()).to.include('show-only')
    const profile = (await t.admin('GET', '/api/v1/tacacs/profiles')).body.items[0]
    expect(profile).to.include({ name: 'netops', privilege_level: 15, default_action: 'deny' })
    expect(profile.command_set_ids).to.deep.equal([baseline.body.id, set.id])
    await screenshot(page, 'tacacs-profiles')

    // A rule giving the profile, on weekdays 08:00-18:00; its tac_plus-ng preview names the profile and the set's commands.
    await menu.getByRole('link', { name: 'AAA policy' }).click()
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.locator('input[name="name"]').fill('alice-netops')
    await choose(page, await byLabel(page, 'Who'), 'alice')
    await page.getByRole('dialog').getByText('Device', { exact: true }).click()
    await choose(page, await byLabel(page, 'Where'), /core-sw-1/)
    await choose(page, await byLabel(page, 'TACACS+ profile'), 'netops')
    await page.getByTestId('time-window').getByLabel('Only at certain times').check()
    await page.locator('input[name="time_window.end"]').fill('08:00')
    await page.getByRole('button', { name: 'Create' }).click()
    // Start equal to end: refused under the input.
    expect(await inputError(page, 'time_window.end')).to.not.equal('')
    await page.locator('input[name="time_window.end"]').fill('18:00')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('rules').locator('tr[data-rule="alice-netops"]').waitFor()
    const rule = ((await t.admin('GET', '/api/v1/aaa/policy/rules')).body as { name: string; time_window: unknown; tacacs_profile_id: string }[]).find((r) => r.name === 'alice-netops')!
    expect(rule.time_window).to.deep.equal({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' })
    expect(rule.tacacs_profile_id).to.equal(profile.id)
    await page.getByRole('button', { name: 'Edit alice-netops' }).click()
    await page.getByRole('button', { name: 'TACACS+ preview' }).click()
    const preview = page.getByTestId('rule-preview')
    await preview.locator('pre').first().waitFor()
    const text = await preview.textContent()
    expect(text).to.include('alice-netops').and.include('netops').and.include('configure terminal')
    await preview.evaluate((e) => e.scrollIntoView())
    await screenshot(page, 'rule-preview')
    await page.keyboard.press('Escape')

    // The profile's delete confirmation (the console's one) says the rule would lose it (a delete clears it); cancelled, nothing changes.
    await menu.getByRole('link', { name: 'TACACS+ profiles' }).click()
    await page.getByRole('button', { name: 'Delete netops' }).click()
    const confirm = page.getByTestId('confirm-dialog')
    expect(await confirm.getByTestId('confirm-touches').textContent()).to.include('AAA policy rule alice-netops: loses the reference')
    expect(await confirm.getByTestId('confirm-blocking').count()).to.equal(0)
    expect(await answerConfirm(page, 'cancel')).to.include('Delete: netops')
    expect((await t.admin('GET', `/api/v1/tacacs/profiles/${profile.id}`)).status).to.equal(200)

    // Deleting the set in use: the dialog names the profile first, the server's 409 names it too; nothing deleted.
    await menu.getByRole('link', { name: 'Command sets' }).click()
    await page.locator('tr[data-name="show-only"]').getByText('1 profile').waitFor()
    await page.getByRole('button', { name: 'Delete show-only' }).click()
    expect(await confirm.getByTestId('confirm-blocking').textContent()).to.include('In use').and.include('TACACS+ profile netops')
    await screenshot(page, 'command-set-in-use')
    await answerConfirm(page)
    const alert = page.getByTestId('error-alert')
    await alert.waitFor()
    expect(await alert.getAttribute('data-code')).to.equal('COMMAND_SET_IN_USE')
    expect(await alert.textContent()).to.include('"netops"')
    expect((await t.admin('GET', `/api/v1/tacacs/command-sets/${set.id}`)).status).to.equal(200)
    await page.context().close()
  })

  it('makes a RADIUS profile, shows the deployed FreeRADIUS files masked then revealed, and a log exclusion', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/radius/profiles')
    await page.getByRole('heading', { name: 'RADIUS profiles', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Add profile' }).click()
    const rf = page.getByTestId('radius-profile-form')
    await rf.locator('input[name="name"]').fill('wifi-admin')
    await rf.getByRole('button', { name: 'Add attribute' }).click()
    await rf.locator('input[name="attributes[0].name"]').fill('No-Such-Attribute')
    await rf.locator('input[name="attributes[0].value"]').fill('1')
    await rf.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'attributes[0].name')).to.not.equal('')
    await rf.locator('input[name="attributes[0].name"]').fill('Session-Timeout')
    await rf.locator('input[name="attributes[0].value"]').fill('3600')
    await rf.getByRole('button', { name: 'Create' }).click()
    await page.getByTestId('radius-profiles').locator('tr[data-name="wifi-admin"]').getByText('Session-Timeout = 3600').waitFor()

    // The FreeRADIUS files of the active release: the device's secret masked, then revealed (admin holds config.reveal).
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    const dep = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })
    expect(dep.status, dep.text).to.equal(201)
    await page.getByRole('navigation').getByRole('link', { name: 'Deploys' }).click()
    const rp = page.getByTestId('radius-preview')
    await rp.getByRole('button', { name: 'Show the FreeRADIUS files' }).click()
    await rp.getByText('Secrets are masked (***).').waitFor()
    const clients = rp.getByRole('button', { name: /clients/ }).first()
    await clients.click()
    await rp.locator('pre').filter({ hasText: '***' }).first().waitFor()
    expect(await rp.textContent()).to.not.include('radius-secret-1')
    await rp.getByLabel('Reveal secrets').check()
    await rp.getByText('Secrets are shown: do not share this screen.').waitFor()
    await rp.getByRole('button', { name: /clients/ }).first().click().catch(() => {})
    await rp.locator('pre').filter({ hasText: 'radius-secret-1' }).first().waitFor()
    await rp.getByLabel('Reveal secrets').uncheck()
    await rp.getByText('Secrets are masked (***).').waitFor()
    await rp.getByRole('button', { name: /clients/ }).first().click()
    await rp.locator('pre').filter({ hasText: '***' }).first().waitFor()
    await rp.getByRole('heading', { name: 'RADIUS configuration deployed' }).evaluate((h) => h.scrollIntoView())
    await screenshot(page, 'radius-preview')

    // A log exclusion: an unknown group refused under the value, then a name pattern.
    await page.getByRole('navigation').getByRole('link', { name: 'Log exclusions' }).click()
    await page.getByRole('heading', { name: 'Log exclusions', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Add exclusion' }).click()
    const ef = page.getByTestId('exclusion-form')
    await ef.locator('input[name="name"]').fill('monitoring')
    await choose(page, await byLabel(page, 'Match'), 'user group')
    await ef.locator('input[name="match_value"]').fill('nobody')
    await ef.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'match_value')).to.include('nobody')
    await choose(page, await byLabel(page, 'Match'), 'user name pattern')
    await choose(page, await byLabel(page, 'Protocol'), 'TACACS+')
    await ef.locator('input[name="match_value"]').fill('svc-*')
    await ef.getByRole('button', { name: 'Create' }).click()
    const ex = page.getByTestId('log-exclusions').locator('tr[data-name="monitoring"]')
    await ex.waitFor()
    expect(await ex.textContent()).to.include('svc-*').and.include('user name pattern')
    const made = (await t.admin('GET', '/api/v1/log-exclusions')).body.items[0]
    expect(made).to.include({ name: 'monitoring', protocol: 'tacacs', match_type: 'username_pattern', match_value: 'svc-*', dropped_total: 0 })
    await screenshot(page, 'log-exclusions')
    // Deleted after a confirmation.
    await page.getByRole('button', { name: 'Delete monitoring' }).click()
    expect(await answerConfirm(page)).to.include('Delete monitoring?')
    await ex.waitFor({ state: 'detached' })
    expect((await t.admin('GET', '/api/v1/log-exclusions')).body.total).to.equal(0)
    await page.context().close()
  })

  it('refuses the delete of a command set in use in Russian (768 px)', async () => {
    const page = await (await context(browser, { locale: 'ru-RU', width: 768 })).newPage()
    await signIn(page, t, '/tacacs/command-sets')
    await page.getByRole('heading', { name: 'Наборы команд', level: 1 }).waitFor()
    await page.locator('tr[data-name="show-only"]').getByText('1 профиль').waitFor()
    await page.getByRole('button', { name: 'Удалить show-only' }).click()
    const dialog = page.getByTestId('confirm-dialog')
    expect(await dialog.getByTestId('confirm-blocking').textContent()).to.include('Используется').and.include('Профиль TACACS+ netops')
    expect(await dialog.getByRole('heading').textContent()).to.equal('Удалить: show-only')
    await screenshot(page, 'command-set-in-use-ru')
    await dialog.getByRole('button', { name: 'Удалить', exact: true }).click()
    const alert = page.getByTestId('error-alert')
    await alert.waitFor()
    expect(await alert.textContent()).to.include('Набор команд используется').and.include('"netops"')
    await page.context().close()
  })

  it('shows a reader the configuration without the means to change it', async () => {
    const token = await t.token({ permissions: ['tacacs.read', 'radius.read'] })
    const c = await context(browser, { locale: 'en-US' })
    await signInWithToken(c, t.url, token)
    const page = await c.newPage()
    await page.goto(t.url + '/tacacs/command-sets')
    await page.locator('tr[data-name="show-only"]').waitFor()
    const menu = page.getByRole('navigation')
    expect(await menu.getByRole('link', { name: 'TACACS+ profiles' }).count()).to.equal(1)
    expect(await menu.getByRole('link', { name: 'Log exclusions' }).count()).to.equal(0)
    expect(await page.getByRole('button', { name: 'Add command set' }).count()).to.equal(0)
    expect(await page.getByRole('button', { name: /^Delete/ }).count()).to.equal(0)
    // The set opens read-only: its commands shown, no Save.
    await page.getByRole('button', { name: 'View show-only' }).click()
    expect(await page.locator('input[name="commands[1].command"]').inputValue()).to.equal('configure terminal')
    expect(await page.getByTestId('command-set-form').getByRole('button', { name: 'Save' }).count()).to.equal(0)
    // Log exclusions by URL: the server refuses, the page says so.
    await page.goto(t.url + '/log-exclusions')
    await page.getByRole('heading', { name: 'Log exclusions', level: 1 }).waitFor()
    expect(await page.getByTestId('error-alert').first().getAttribute('data-code')).to.equal('PERMISSION_DENIED')
    await c.close()
  })

  it('names a profile\'s command sets past the first 100 in the list and the form, and finds one by typing', async () => {
    const mk = async (p: string, body: object) => {
      const r = await t.admin('POST', p, { body })
      expect(r.status, r.text).to.equal(201)
      return r.body.id as string
    }
    // 100 sets sorting before the two the profile uses: the console's first page of sets lacks both.
    for (let i = 0; i < 100; i++) await mk('/api/v1/tacacs/command-sets', { name: `aa-set-${String(i).padStart(3, '0')}` })
    const late = await mk('/api/v1/tacacs/command-sets', { name: 'zz-late-set' })
    const other = await mk('/api/v1/tacacs/command-sets', { name: 'zz-other-set', description: 'night shift' })
    const profile = await mk('/api/v1/tacacs/profiles', { name: 'night-ops', privilege_level: 1, command_set_ids: [late] })
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/tacacs/profiles')
    const row = page.getByTestId('tacacs-profiles').locator('tr[data-name="night-ops"]')
    await row.getByText('zz-late-set').waitFor()
    await row.getByRole('button', { name: 'Edit night-ops' }).click()
    const pf = page.getByTestId('tacacs-profile-form')
    await pf.getByText('zz-late-set').waitFor()
    // The server searches the description too: "night" finds zz-other-set.
    const sets = await byLabel(page, 'Command sets')
    await sets.fill('night')
    await page.getByRole('option', { name: 'zz-other-set' }).click()
    await page.keyboard.press('Escape')
    expect(await pf.getByTestId('command-set-order').getByRole('listitem').allTextContents()).to.deep.equal(['1.zz-late-set↑↓', '2.zz-other-set↑↓'])
    await pf.getByRole('button', { name: 'Save' }).click()
    await row.getByText('zz-late-set, zz-other-set').waitFor()
    expect((await t.admin('GET', `/api/v1/tacacs/profiles/${profile}`)).body.command_set_ids).to.deep.equal([late, other])
    await page.context().close()
  })
  // The Deploys screen's change impact (impact-steps.ts), on this server: the same plugins, no boot of its own.
  describeImpact(() => ({ t, browser, password: PASSWORD }))
})
