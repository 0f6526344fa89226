/**
 * The console's menu in sections and its quick search (ui/src/components/NavMenu.tsx, QuickSearch.tsx),
 * signed in as the admin with every plugin the console's suites load (and an example plugin's page),
 * at 1280×800 and at 768 px (the menu a drawer), in English and in Russian:
 * - a first visit opens only the current page's section;
 * - every menu entry can be scrolled to and clicked, none under the footer (elementFromPoint at its
 *   centre is the link itself) and none below the footer's top; after the click its section is open;
 * - a section closed stays closed after a reload;
 * - Ctrl+K finds a screen by its label and a device by its name, and Enter opens it (the device's
 *   section opened again); one word finds a device group, a user group, an AAA policy rule and a
 *   guest, each hit saying its kind; the rule's hit opens the rule itself (its dialog, the row marked),
 *   the guest's the guests' list searched for it; a user who may read only the inventory gets the
 *   device group alone, and no request goes to the routes of the other kinds;
 * - axe-core finds nothing serious or critical in the menu or the search dialog.
 */
import { expect } from 'chai'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Locator, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { expectAccessible } from '../../../test/kit/browser.js'
import { context, screenshot, signInAt, browserSuite } from './browser.js'

const PASSWORD = 'Portcullis-Navigation-2026!'
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'pki', 'nac', 'portal', 'ncm', 'console', path.join(ROOT, 'examples/console-pages/index.ts')]
const DEVICE = 'core-sw-nav'
const READER_PASSWORD = 'Zephyr-Reader-Pass-42x'
/** One word in the names of a device group, a user group, an AAA rule and a guest: the quick search finds them all. */
const WORD = 'zephyr'
const RECORDS = { deviceGroup: `${WORD}-closet`, userGroup: `${WORD}-admins`, aaaRule: `${WORD}-rule`, guest: `${WORD}-1` }
const KINDS_EN = { deviceGroup: 'Device group', userGroup: 'User group', aaaRule: 'AAA policy rule', guest: 'Guest' }
const KINDS_RU = { deviceGroup: 'Группа устройств', userGroup: 'Группа пользователей', aaaRule: 'Правило политики AAA', guest: 'Гость' }
/** The links a fully open menu shows the admin: the dashboard, the sections' 32 screens, My account. */
const LINKS = 34

/**
 * Every case scrolls every link into view and checks that it is seen whole, above the footer, with
 * nothing over it (one pass in the page: what a click needs). `walk`: every link also clicked one by
 * one, its screen opened and its section kept open (half a minute of navigations), once, in English at
 * 1280 px (the screenshots, the skip link on every screen); the other cases click the menu's last link,
 * the one deepest in its scroll, from the drawer where there is one.
 */
const CASES = [
  { locale: 'en-US', width: 1280, walk: true, menu: 'Menu', search: 'Quick search', screenQuery: 'profiling', screen: 'Profiling rules', kinds: KINDS_EN },
  { locale: 'ru-RU', width: 1280, walk: false, menu: 'Меню', search: 'Быстрый поиск', screenQuery: 'правила проф', screen: 'Правила профилирования', kinds: KINDS_RU },
  { locale: 'en-US', width: 768, walk: false, menu: 'Menu', search: 'Quick search', screenQuery: 'profiling', screen: 'Profiling rules', kinds: KINDS_EN },
  { locale: 'ru-RU', width: 768, walk: false, menu: 'Меню', search: 'Быстрый поиск', screenQuery: 'правила проф', screen: 'Правила профилирования', kinds: KINDS_RU },
] as const

// A browser run is engine-independent: once per npm test, in the PostgreSQL run (docs/testing.md: the runs balanced).
;(runsOn('postgres') ? describe : describe.skip)('console: the menu in sections and the quick search', function () {
  this.timeout(600_000)
  let t: TestApp
  let browser: Browser
  browserSuite({ plugins: PLUGINS, env: { TAC_PLUS_NG: '/nonexistent/sbin/tac_plus-ng' }, settings: { 'aaa-logs.ingest_enabled': false } }, PASSWORD, (app, b) => ([t, browser] = [app, b]))
  before(async () => {
    const d = await t.admin('POST', '/api/v1/devices', { body: { name: DEVICE, address: '10.99.0.1' } })
    expect(d.status, d.text).to.equal(201)
    // The records the quick search finds by WORD, made through the API as an administrator would.
    const made = async (url: string, body: Record<string, unknown>) => {
      const r = await t.admin('POST', url, { body })
      expect(r.status, `${url}: ${r.text}`).to.equal(201)
      return r.body
    }
    const dg = await made('/api/v1/device-groups', { name: RECORDS.deviceGroup })
    const ug = await made('/api/v1/user-groups', { name: RECORDS.userGroup })
    await made('/api/v1/aaa/policy/rules', { name: RECORDS.aaaRule, who: { group_id: ug.id }, where: { device_group_id: dg.id } })
    const eg = await made('/api/v1/nac/endpoint-groups', { name: `${WORD}-guests` })
    const portal = await made('/api/v1/captive-portal/portals', { name: `${WORD}-lobby`, slug: `${WORD}-lobby`, methods: ['hotspot'], guest_endpoint_group_id: eg.id })
    const until = new Date(Date.now() + 2 * 86_400_000).toISOString()
    await made('/api/v1/captive-portal/guests/bulk', { portal_id: portal.id, event: 'Partner day', count: 1, prefix: WORD, valid_until: until })
  })

  const nav = (page: Page) => page.getByRole('navigation', { name: /^(Menu|Меню)$/ })
  /** Each section's id and whether it is open, as its button says. */
  const sections = (page: Page) =>
    page.locator('[data-menu-section]').evaluateAll((els) => Object.fromEntries(els.map((el) => [el.getAttribute('data-menu-section'), el.querySelector('button')?.getAttribute('aria-expanded') === 'true'])))
  const sectionButton = (page: Page, id: string) => page.locator(`[data-menu-section="${id}"] > button`)
  const pathIs = (page: Page, p: string) => page.waitForFunction((want) => location.pathname === want, p)

  for (const c of CASES) {
    const lang = c.locale.slice(0, 2)
    const narrow = c.width < 992
    it(`${c.walk ? 'reaches every screen from the menu' : 'shows every link of the menu whole and reaches its last'}, keeps what is closed, and finds screens, devices, groups, a rule and a guest with Ctrl+K (${lang}, ${c.width} px)`, async () => {
      const page = await (await context(browser, { locale: c.locale, width: c.width, height: 800, menu: 'fresh' })).newPage()
      // Below 992 px the menu is a drawer: opened by its button, settled (its slide done) before anything is measured.
      const openMenu = async () => {
        if (!narrow) return
        if ((await page.locator('nav[inert]').count()) > 0) await page.getByRole('button', { name: c.menu, exact: true }).click()
        await page.waitForFunction(() => {
          const n = document.querySelector('nav')
          return !!n && !n.hasAttribute('inert') && Math.abs(n.getBoundingClientRect().left) < 0.5 && n.getAnimations({ subtree: false }).length === 0
        })
      }

      // (a) A first visit opens the current page's section only.
      await signInAt(page, t.url + '/nac/sessions', 'admin', PASSWORD)
      await sectionButton(page, 'networkAccess').and(page.locator('[aria-expanded="true"]')).waitFor({ state: 'attached' })
      await sectionButton(page, 'plugins').waitFor({ state: 'attached' }) // once the example plugin's page is listed
      const first = await sections(page)
      expect(Object.keys(first)).to.deep.equal(['devices', 'identities', 'deviceAdmin', 'networkAccess', 'guestAccess', 'certificates', 'configTracking', 'logs', 'administration', 'plugins'])
      expect(Object.entries(first).filter(([, open]) => open).map(([id]) => id)).to.deep.equal(['networkAccess'])
      const shown = c.width === 1280 && lang === 'en' // the screenshots docs/ui.md shows
      if (shown) await screenshot(page, 'menu-sections')

      // (b) Every section opened, every link reached, seen whole above the footer, and clicked.
      await openMenu()
      for (const id of Object.keys(first)) if (!first[id]) await sectionButton(page, id).click()
      const links = nav(page).getByRole('link')
      expect(await links.count()).to.equal(LINKS)
      await expectAccessible(page, 'the menu, every section open', ['nav'])
      // Each link scrolled into view in turn (instantly, as the browser would for a click), then measured.
      const placed = await nav(page).evaluate((n) =>
        [...n.querySelectorAll('a')].map((el) => {
          el.scrollIntoView({ block: 'nearest', behavior: 'instant' })
          const r = el.getBoundingClientRect()
          const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
          const footer = document.querySelector('footer')!.getBoundingClientRect()
          return { label: el.textContent, onTop: !!at && el.contains(at), at: at?.outerHTML.slice(0, 120), above: r.bottom <= footer.top + 0.5 }
        }),
      )
      expect(placed).to.have.length(LINKS)
      for (const p of placed) {
        expect(p.onTop, `${p.label}: covered by ${p.at}`).to.equal(true)
        expect(p.above, `${p.label}: under the footer`).to.equal(true)
      }
      for (const i of c.walk ? [...Array(LINKS).keys()] : [LINKS - 1]) {
        await openMenu()
        const link: Locator = links.nth(i)
        await link.scrollIntoViewIfNeeded()
        const seen = await link.evaluate((el) => {
          const r = el.getBoundingClientRect()
          const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
          const footer = document.querySelector('footer')!.getBoundingClientRect()
          return { label: el.textContent, href: el.getAttribute('href')!, onTop: !!at && el.contains(at), at: at?.outerHTML.slice(0, 120), above: r.bottom <= footer.top + 0.5 }
        })
        expect(seen.onTop, `${seen.label}: covered by ${seen.at}`).to.equal(true)
        expect(seen.above, `${seen.label}: under the footer`).to.equal(true)
        await link.click()
        await pathIs(page, seen.href)
        expect(await link.getAttribute('aria-current'), seen.label ?? '').to.equal('page')
        const section = await link.evaluate((el) => el.closest('[data-menu-section]')?.querySelector('button')?.getAttribute('aria-expanded') ?? 'none')
        expect(section, `the section of ${seen.label} after navigating`).to.be.oneOf(['true', 'none'])
        // The skip link works on every screen: Enter on it puts the focus on the page's content, twice in a row.
        if (shown) {
          for (let k = 0; k < 2; k++) {
            await page.locator('a.skip-link').focus()
            await page.keyboard.press('Enter')
            await page.waitForFunction(() => document.activeElement?.id === 'main')
          }
          expect(await page.evaluate(() => location.hash), seen.label ?? '').to.equal('')
        }
      }

      // (c) Sections closed stay closed after a reload (the others as they were).
      await openMenu()
      for (const id of ['devices', 'identities']) await sectionButton(page, id).click()
      await page.reload()
      await sectionButton(page, 'plugins').waitFor({ state: 'attached' })
      const reloaded = await sections(page)
      expect(reloaded.devices, 'network devices, closed before the reload').to.equal(false)
      expect(reloaded.identities, 'identities, closed before the reload').to.equal(false)
      expect(reloaded.networkAccess, 'network access, left open').to.equal(true)

      // (d) Ctrl+K: a screen by its label, Enter opens it.
      await page.keyboard.press('Control+k')
      const dialog = page.getByRole('dialog', { name: c.search })
      const input = dialog.getByRole('combobox')
      await input.waitFor()
      expect(await input.evaluate((el) => el === document.activeElement), 'the input has the focus').to.equal(true)
      await input.fill(c.screenQuery)
      await dialog.getByRole('option', { name: c.screen, selected: true }).waitFor()
      await page.keyboard.press('Enter')
      await pathIs(page, '/nac/profiling-rules')
      await dialog.waitFor({ state: 'detached' })

      // A device by its name (asked of the server once typing pauses); ↑/↓ move, Escape closes.
      await page.keyboard.press('Control+k')
      await input.fill('core-sw')
      const device = dialog.getByRole('option', { name: new RegExp(`^${DEVICE} · 10\\.99\\.0\\.1`) })
      await device.waitFor()
      if (shown) await screenshot(page, 'quick-search')
      await expectAccessible(page, 'the quick search with a record found', ['[role="dialog"]'])
      await page.keyboard.press('ArrowDown')
      await page.keyboard.press('ArrowUp')
      expect(await device.getAttribute('aria-selected')).to.equal('true')
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'detached' })
      expect(new URL(page.url()).pathname, 'Escape opens nothing').to.equal('/nac/profiling-rules')
      // The header's button opens it too (for the mouse), and Enter opens the device in its list.
      await page.getByTestId('quick-search-open').click()
      await input.fill(DEVICE)
      await device.waitFor()
      await page.keyboard.press('Enter')
      await pathIs(page, '/devices')
      expect(new URL(page.url()).searchParams.get('search')).to.equal(DEVICE)
      await page.getByTestId('devices-table').getByRole('row', { name: new RegExp(DEVICE) }).waitFor()
      // The device's section, closed at (c), is the current page's: open; identities stay closed.
      await sectionButton(page, 'devices').and(page.locator('[aria-expanded="true"]')).waitFor({ state: 'attached' })
      expect((await sections(page)).identities).to.equal(false)

      // (e) One word finds records of several kinds, each hit saying its kind in the language shown.
      await page.keyboard.press('Control+k')
      await input.fill(WORD)
      const hit = (kind: keyof typeof RECORDS) => dialog.getByRole('option', { name: new RegExp(`^${RECORDS[kind]}.*${c.kinds[kind]}$`) })
      for (const kind of Object.keys(RECORDS) as (keyof typeof RECORDS)[]) await hit(kind).waitFor()
      // The rule's hit opens the rule itself: the policy screen, its dialog, its row marked.
      await hit('aaaRule').click()
      await pathIs(page, '/policy')
      const form = page.getByTestId('rule-form')
      await form.waitFor()
      expect(await form.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).to.include(RECORDS.aaaRule)
      await page.locator(`tr[data-rule="${RECORDS.aaaRule}"][data-opened="true"]`).waitFor({ state: 'attached' })
      expect(new URL(page.url()).searchParams.has('open'), 'the address no longer asks to open it').to.equal(false)
      await page.keyboard.press('Escape')
      await form.waitFor({ state: 'detached' })
      // The guest's hit: the guests' list searched for that guest.
      await page.keyboard.press('Control+k')
      await input.fill(WORD)
      await hit('guest').click()
      await pathIs(page, '/captive-portal/guests')
      expect(new URL(page.url()).searchParams.get('search')).to.equal(RECORDS.guest)
      await page.getByRole('row', { name: new RegExp(RECORDS.guest) }).waitFor()
      await page.context().close()
    })
  }

  it('asks only for the kinds of records the user may read, and shows only those (en, 1280 px)', async () => {
    const role = await t.admin('POST', '/api/v1/roles', { body: { name: `${WORD}-inventory`, permissions: ['inventory.read'] } })
    expect(role.status, role.text).to.equal(201)
    const user = await t.admin('POST', '/api/v1/users', { body: { username: 'inv-reader', password: READER_PASSWORD, role_ids: [role.body.id], must_change_password: false } })
    expect(user.status, user.text).to.equal(201)
    const page = await (await context(browser, { locale: 'en-US', width: 1280, height: 800 })).newPage()
    // The list routes the quick search asks (with its text as `search`).
    const asked = new Set<string>()
    page.on('request', (r) => {
      const u = new URL(r.url())
      if (u.searchParams.get('search') === WORD) asked.add(u.pathname)
    })
    await signInAt(page, `${t.url}/devices`, 'inv-reader', READER_PASSWORD)
    await page.getByTestId('quick-search-open').click()
    const dialog = page.getByRole('dialog', { name: 'Quick search' })
    await dialog.getByRole('combobox').fill(WORD)
    await dialog.getByRole('option', { name: new RegExp(`^${RECORDS.deviceGroup}.*Device group$`) }).waitFor()
    // The user group, the rule and the guest exist, but this user may not read them: not asked, not shown.
    expect(await dialog.getByRole('option').count()).to.equal(1)
    expect([...asked].sort()).to.deep.equal(['/api/v1/device-groups', '/api/v1/devices'])
    await page.context().close()
  })
})
