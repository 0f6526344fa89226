/**
 * The console's captive portal screens in a real browser (headless chromium)
 * against the real server on a throwaway PostgreSQL, as a person uses them: a
 * portal made in its form (a bad slug refused under its input, markup typed
 * into its name shown as text), listed, its logo uploaded (a file that is no
 * image refused under the input) and its landing page previewed; guest
 * accounts for an event (the passwords shown once), one extended and one
 * revoked; a portal session the server holds listed, opened and ended after a
 * confirmation; a sponsor request approved and one denied; the menus each
 * permission opens; the screens in Russian.
 */
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { createHash, randomBytes } from 'node:crypto'
import { jsonText } from '../../../sdk/index.js'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { clearRateLimits, context, inputError, launch, needConsole, screenshot, signInAt, startWithAdmin, answerConfirm, signInWithToken } from './browser.js'

const PASSWORD = 'Portcullis-Portal-2026!'
const PORTALS = '/api/v1/captive-portal/portals'
// A 1×1 PNG: what a logo upload takes.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64')

const signIn = (page: Page, t: TestApp, to: string) => signInAt(page, t.url + to, 'admin', PASSWORD)
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

/** Picks `option` in the dialog's Mantine Select whose input is labelled `label`. */
async function pick(page: Page, label: string | RegExp, option: string | RegExp) {
  await page.getByRole('dialog').getByLabel(label).first().click({ force: true })
  await page.getByRole('option', { name: option }).first().click()
}

;(runsOn('postgres') ? describe : describe.skip)('console: the captive portal screens in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  let portalId = ''
  let groupId = ''
  beforeEach(() => clearRateLimits(t))

  before(async function () {
    needConsole(this)
    t = await startWithAdmin({ engine: 'postgres', plugins: ['inventory', 'nac', 'portal', 'console'] }, PASSWORD)
    const g = await t.admin('POST', '/api/v1/nac/endpoint-groups', { body: { name: 'guests' } })
    expect(g.status, g.text).to.equal(201)
    groupId = g.body.id
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  /** A guest session the guest pages would have started (what the guest's browser holds is only its token's hash). */
  async function session(o: { mac: string; state: string; guest_id?: string; method?: string; expires_at?: Date | null }) {
    const [row] = await t.app.db.knex('portal_sessions')
      .insert({ portal_id: portalId, mac: o.mac, state: o.state as 'active', method: (o.method ?? 'hotspot') as 'hotspot', guest_id: o.guest_id ?? null, nas_ip: '10.9.0.1', ssid: 'Guest-WiFi', token_hash: sha256(randomBytes(32).toString('base64url')), expires_at: o.expires_at ?? null, registered_at: o.state === 'active' ? new Date() : null })
      .returning('id')
    return String((row as { id: string }).id)
  }

  it('makes a portal in its form, each refusal under its input, lists it and uploads its logo', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/captive-portal/portals')
    await page.getByRole('heading', { name: 'Captive portals', level: 1 }).waitFor()
    await page.getByText('No captive portals yet.').waitFor()

    await page.getByRole('button', { name: 'Add portal' }).click()
    // Markup in a name is text: the list shows it as typed, no element is made of it.
    await page.locator('input[name="name"]').fill('Lobby <b>guests</b>')
    await page.locator('input[name="slug"]').fill('Lobby Guests')
    await page.getByRole('dialog').getByLabel('Sponsored').check()
    await page.getByRole('tab', { name: 'Access' }).click()
    await page.locator('textarea[name="nas_ips"]').fill('10.9.0.1')
    await page.locator('textarea[name="ssids"]').fill('Guest-WiFi')
    await pick(page, 'Endpoint group for guests', 'guests')
    await page.locator('input[name="guest_minutes"]').fill('120')
    await page.getByRole('tab', { name: 'Branding' }).click()
    await page.locator('input[name="title_en"]').fill('Welcome to ACME')
    await page.locator('input[name="title_ru"]').fill('Добро пожаловать в ACME')
    await page.locator('input[name="primary_colour"]').fill('#0a7d3b')
    // The slug has a space and capitals: refused, and the General tab (where its input is) shown again.
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'slug')).to.not.equal('')
    expect((await t.admin('GET', PORTALS)).body.total).to.equal(0)
    await page.locator('input[name="slug"]').fill('lobby')
    // Sponsored access with no sponsor domain or group: refused under the domains, on the Registration tab it opens.
    await page.getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'sponsor_domains')).to.not.equal('')
    expect(await page.getByRole('tab', { name: 'Registration' }).getAttribute('aria-selected')).to.equal('true')
    await page.locator('textarea[name="sponsor_domains"]').fill('example.com')
    await page.getByRole('button', { name: 'Create' }).click()
    const row = page.getByTestId('portals-table').locator('tr[data-portal="lobby"]')
    await row.getByText('Lobby <b>guests</b>').waitFor()
    expect(await row.locator('b').count()).to.equal(0)
    await row.getByRole('link', { name: 'Open /portal/lobby' }).waitFor()
    for (const m of ['hotspot', 'sponsored']) await row.getByText(m, { exact: true }).waitFor()

    const list = (await t.admin('GET', PORTALS)).body
    expect(list.total).to.equal(1)
    const made = list.items[0]
    portalId = made.id
    expect(made).to.include({ name: 'Lobby <b>guests</b>', slug: 'lobby', guest_endpoint_group_id: groupId, guest_minutes: 120 })
    expect(made.methods).to.deep.equal(['hotspot', 'sponsored'])
    expect(made.nas_ips).to.deep.equal(['10.9.0.1'])
    expect(made.sponsor_domains).to.deep.equal(['example.com'])
    expect(made.branding).to.deep.include({ primary_colour: '#0a7d3b' })
    expect(made.branding.texts.en.title).to.equal('Welcome to ACME')
    expect(made.branding.texts.ru.title).to.equal('Добро пожаловать в ACME')

    // The logo: a text file is refused under the input, a PNG is taken (and shown).
    await row.getByRole('button', { name: 'Edit Lobby <b>guests</b>' }).click()
    await page.getByRole('tab', { name: 'Branding' }).click()
    const logo = page.getByTestId('portal-logo')
    await logo.locator('input[type="file"]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') })
    await logo.locator('[aria-invalid="true"]').waitFor()
    expect((await t.admin('GET', `${PORTALS}/${portalId}`)).body.has_logo).to.equal(false)
    await logo.locator('input[type="file"]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG })
    await logo.getByText('Logo uploaded.').waitFor()
    await logo.getByRole('img', { name: 'Logo of Lobby <b>guests</b>' }).waitFor()
    expect((await t.admin('GET', `${PORTALS}/${portalId}`)).body.has_logo).to.equal(true)

    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.context().close()
  })

  it('previews the guest landing page in a frame that runs nothing, in English and in Russian', async function () {
    // The preview route renders part C's guest page; until that route is served there is nothing to show.
    const probe = await t.admin('GET', `${PORTALS}/${portalId}/preview?lang=en`)
    if (probe.status === 404 && probe.body?.code === 'ROUTE_NOT_FOUND') skipBecause(this, 'the server does not serve GET /captive-portal/portals/{portal_id}/preview yet')
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/captive-portal/portals')
    await page.getByTestId('portals-table').locator('tr[data-portal="lobby"]').getByRole('button', { name: 'Edit Lobby <b>guests</b>' }).click()
    await page.getByRole('tab', { name: 'Preview' }).click()
    const frame = page.getByTestId('portal-preview')
    expect(await frame.getAttribute('sandbox')).to.equal('')
    await page.frameLocator('[data-testid="portal-preview"]').getByText('Welcome to ACME').first().waitFor()
    await screenshot(page, 'portal-form-preview')
    await page.getByRole('dialog').getByText('Русский', { exact: true }).click()
    await page.frameLocator('[data-testid="portal-preview"]').getByText('Добро пожаловать в ACME').first().waitFor()
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.context().close()
  })

  it('makes guest accounts for an event with their passwords shown once, extends one and revokes another', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/captive-portal/guests')
    await page.getByRole('heading', { name: 'Guests', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Create accounts for an event' }).click()
    await pick(page, 'Portal', 'Lobby <b>guests</b>')
    await page.locator('input[name="count"]').fill('3')
    await page.locator('input[name="prefix"]').fill('expo')
    await page.locator('input[name="event"]').fill('Network Expo')
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click()
    const creds = page.getByTestId('guest-credentials')
    await creds.getByText(/3 accounts created/).waitFor()
    const shown = await creds.locator('tr[data-account]').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-account') ?? '', r.querySelectorAll('td')[1]?.textContent ?? '']))
    expect(shown).to.have.length(3)
    for (const [u, pw] of shown) {
      expect(u).to.match(/^expo-\d+$/)
      expect(pw.length).to.be.greaterThan(7)
    }
    await screenshot(page, 'portal-guest-credentials')
    await creds.getByRole('button', { name: 'Close' }).click()

    const table = page.getByTestId('guests-table')
    const guests = (await t.admin('GET', '/api/v1/captive-portal/guests?event=Network%20Expo')).body
    expect(guests.total).to.equal(3)
    expect(guests.items.map((g: { username: string }) => g.username).sort()).to.deep.equal(shown.map(([u]) => u).sort())
    // The search narrows to one account; it is extended by a day past now + 2 days.
    const first = shown[0]![0]!
    await page.getByRole('searchbox').fill(first)
    await page.getByText('1 in all').waitFor()
    await table.getByRole('button', { name: `Actions for ${first}` }).click()
    await page.getByRole('menuitem', { name: 'Extend' }).click()
    const until = new Date(Date.now() + 3 * 86_400_000)
    const local = new Date(until.getTime() - until.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
    await page.locator('input[name="valid_until"]').fill(local)
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('guest-notice').waitFor()
    const extended = guests.items.find((g: { username: string }) => g.username === first)
    const after = (await t.admin('GET', `/api/v1/captive-portal/guests/${extended.id}`)).body
    expect(Math.abs(new Date(after.valid_until).getTime() - until.getTime())).to.be.lessThan(60_000)
    // Revoked after the question: its status on the screen and on the server.
    await table.getByRole('button', { name: `Actions for ${first}` }).click()
    await page.getByRole('menuitem', { name: 'Revoke' }).click()
    await answerConfirm(page)
    await table.locator(`tr[data-guest="${first}"]`).getByText('revoked').waitFor()
    expect((await t.admin('GET', `/api/v1/captive-portal/guests/${extended.id}`)).body.status).to.equal('revoked')
    // The status filter: the two others are active.
    await page.getByRole('searchbox').fill('')
    await page.getByRole('combobox', { name: 'Status' }).click()
    await page.getByRole('option', { name: 'active' }).click()
    await page.getByText('2 in all').waitFor()
    await page.context().close()
  })

  it('lists a portal session, opens its details and ends it after a confirmation', async () => {
    const live = await session({ mac: '02:00:00:00:00:01', state: 'active', expires_at: new Date(Date.now() + 3_600_000) })
    await session({ mac: '02:00:00:00:00:02', state: 'ended' })
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    const asked: string[] = []
    await signIn(page, t, '/captive-portal/sessions')
    await page.getByRole('heading', { name: 'Portal sessions', level: 1 }).waitFor()
    const table = page.getByTestId('portal-sessions-table')
    const row = table.locator('tr[data-session="02:00:00:00:00:01"]')
    await row.getByText('active').waitFor()
    await table.locator('tr[data-session="02:00:00:00:00:02"]').getByText('ended').waitFor()
    expect(await row.textContent()).to.include('Lobby <b>guests</b>')
    // The state filter leaves the ended one out.
    await page.getByRole('combobox', { name: 'State' }).click()
    await page.getByRole('option', { name: 'active', exact: true }).click()
    await page.getByText('1 in all').waitFor()
    // Its details, then the end from the list: asked first, ended on the server.
    await row.getByRole('button', { name: 'Session of 02:00:00:00:00:01' }).click()
    const details = page.getByTestId('portal-session-details')
    await details.getByText('Guest-WiFi').waitFor()
    await details.getByText('10.9.0.1').waitFor()
    await page.keyboard.press('Escape')
    await row.getByRole('button', { name: 'End session 02:00:00:00:00:01' }).click()
    asked.push(await answerConfirm(page))
    await page.getByTestId('session-notice').waitFor()
    expect(asked.some((m) => m.includes('02:00:00:00:00:01'))).to.equal(true)
    const ended = (await t.admin('GET', `/api/v1/captive-portal/sessions/${live}`)).body
    expect(ended.state).to.equal('ended')
    expect(ended.end_reason).to.equal('admin')
    await page.context().close()
  })

  it('lets a sponsor approve one waiting guest and deny another', async () => {
    const knex = t.app.db.knex
    const request = async (name: string, email: string, mac: string, fields: Record<string, string> = {}) => {
      const [g] = await knex('portal_guests').insert({ portal_id: portalId, kind: 'sponsored', name, email, fields: jsonText(fields), status: 'pending_approval', sponsor_email: 'host@example.com' }).returning('id')
      const guestId = String((g as { id: string }).id)
      const sessionId = await session({ mac, state: 'pending_approval', guest_id: guestId, method: 'sponsored' })
      const [r] = await knex('portal_sponsor_requests').insert({ session_id: sessionId, guest_id: guestId, sponsor_email: 'host@example.com', token_hash: sha256(randomBytes(32).toString('hex')), expires_at: new Date(Date.now() + 3_600_000) }).returning('id')
      return { guestId, requestId: String((r as { id: string }).id) }
    }
    const alice = await request('Alice <script>x</script>', 'alice@visitor.example', '02:00:00:00:00:11', { company: '<i>Initech</i>' })
    const bob = await request('Bob', 'bob@visitor.example', '02:00:00:00:00:12')
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/captive-portal/approvals')
    await page.getByRole('heading', { name: 'Sponsor approvals', level: 1 }).waitFor()
    const table = page.getByTestId('approvals-table')
    await table.locator('tr[data-approval="alice@visitor.example"]').getByText('Alice <script>x</script>').waitFor()
    await table.locator('tr[data-approval="alice@visitor.example"]').getByText('company: <i>Initech</i>').waitFor()
    expect(await table.locator('script, i').count()).to.equal(0)
    await table.getByRole('button', { name: 'Approve Alice <script>x</script>' }).click()
    await page.getByTestId('approval-notice').getByText(/approved/).waitFor()
    await table.getByRole('button', { name: 'Deny Bob' }).click()
    await answerConfirm(page)
    await page.getByTestId('approval-notice').getByText('Bob denied.').waitFor()
    await page.getByText('No requests are waiting.').waitFor()
    expect((await knex('portal_sponsor_requests').where({ id: alice.requestId }).first())?.status).to.equal('approved')
    expect((await knex('portal_sponsor_requests').where({ id: bob.requestId }).first())?.status).to.equal('denied')
    expect((await t.admin('GET', `/api/v1/captive-portal/guests/${bob.guestId}`)).body.status).to.equal('denied')
    await page.context().close()
  })

  it('shows each screen only to the permission that opens it, and a reader no change', async () => {
    const as = async (permissions: string[], to: string) => {
      const c = await context(browser, { locale: 'en-US' })
      await signInWithToken(c, t.url, await t.token({ permissions }))
      const page = await c.newPage()
      await page.goto(t.url + to)
      return page
    }
    const menu = (page: Page) => page.getByRole('navigation')
    const links = ['Captive portals', 'Guests', 'Portal sessions', 'Sponsor approvals']
    // A reader: every screen, no Add, no Edit (View), no bulk, no End, no Approve.
    const reader = await as(['portal.read'], '/captive-portal/portals')
    await reader.getByTestId('portals-table').locator('tr[data-portal="lobby"]').waitFor()
    for (const l of links) await menu(reader).getByRole('link', { name: l }).waitFor()
    expect(await reader.getByRole('button', { name: 'Add portal' }).count()).to.equal(0)
    await reader.getByRole('button', { name: 'View Lobby <b>guests</b>' }).waitFor()
    await menu(reader).getByRole('link', { name: 'Guests' }).click()
    await reader.getByTestId('guests-table').locator('tr[data-guest]').first().waitFor()
    expect(await reader.getByRole('button', { name: 'Create accounts for an event' }).count()).to.equal(0)
    expect(await reader.getByRole('button', { name: /^Actions for/ }).count()).to.equal(0)
    await menu(reader).getByRole('link', { name: 'Portal sessions' }).click()
    await reader.getByTestId('portal-sessions-table').locator('tr[data-session]').first().waitFor()
    expect(await reader.getByRole('button', { name: /^End session/ }).count()).to.equal(0)
    // The approvals: seen, not decided (that is portal.sponsor's).
    await menu(reader).getByRole('link', { name: 'Sponsor approvals' }).click()
    await reader.getByText('You may see these requests; deciding needs the sponsor permission.').waitFor()
    await reader.context().close()
    // Someone without portal.read (a sponsor by a role alone decides through the mailed link): none of them.
    const other = await as(['nac.read', 'portal.sponsor'], '/nac/endpoints')
    await menu(other).getByRole('link', { name: 'Endpoints' }).waitFor()
    for (const l of links) expect(await menu(other).getByRole('link', { name: l, exact: true }).count()).to.equal(0)
    await other.context().close()
  })

  it('speaks Russian: the screens, and a refusal under its input in the server\'s Russian', async () => {
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await signIn(page, t, '/captive-portal/portals')
    await page.getByRole('heading', { name: 'Гостевые порталы', level: 1 }).waitFor()
    await page.getByTestId('portals-table').locator('tr[data-portal="lobby"]').getByText('через спонсора').waitFor()
    await page.getByRole('button', { name: 'Добавить портал' }).click()
    await page.locator('input[name="name"]').fill('Второй')
    await page.locator('input[name="slug"]').fill('lobby')
    await page.getByRole('tab', { name: 'Доступ' }).click()
    await pick(page, 'Группа оконечных устройств для гостей', 'guests')
    // The slug is taken: the server's 409 in Russian under the slug input, its tab shown again.
    await page.getByRole('button', { name: 'Создать' }).click()
    expect(await inputError(page, 'slug')).to.match(/[а-яё]/i)
    expect((await t.admin('GET', PORTALS)).body.total).to.equal(1)
    await page.getByRole('button', { name: 'Отмена' }).click()
    const nav = page.getByRole('navigation')
    await nav.getByRole('link', { name: 'Сеансы портала' }).click()
    await page.getByRole('heading', { name: 'Сеансы портала', level: 1 }).waitFor()
    await page.getByTestId('portal-sessions-table').locator('tr[data-session="02:00:00:00:00:01"]').getByText('завершён', { exact: true }).waitFor()
    await nav.getByRole('link', { name: 'Гости' }).click()
    await page.getByRole('button', { name: 'Учётные записи для мероприятия' }).waitFor()
    await page.getByTestId('guests-table').getByText('отозван').waitFor()
    await screenshot(page, 'portal-guests-ru')
    await page.context().close()
  })
})
