/**
 * Every screen the menu offers an administrator, for assistive technology and the keyboard (issue 34:
 * "an accessibility check with axe-core on every screen"; item 10: "every action reachable by
 * keyboard"), with the community edition's plugins that have screens and a few records so the lists
 * are not empty, at 1280×800 in English and at 768 px in Russian. The screens are the menu's own links,
 * read from the page (a new screen in the menu is checked without touching this file). On each:
 * - axe-core finds nothing serious or critical (the screen, the rule and the elements it names);
 *   so too over what actions open (the device form, a delete's confirmation, the quick search, a
 *   user group's members, a certificate's details, a deploy's details, a guest portal session and an
 *   audit entry in their drawers) and the menu collapsed or opened;
 * - from the skip link, Tab reaches every visible, enabled button, link and input of the content (one
 *   stop a radio group or tab list: arrows move within), no element has a positive tabindex, none
 *   that is an action has tabindex=-1, and no element the mouse can click (a React onClick, a role of
 *   button) is out of the keyboard's reach.
 */
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { axe, describeViolations } from '../../../test/kit/browser.js'
import { createCa, createTemplate, csrWithSubject, issue } from '../../pki/test/helpers.js'
import { browserSuite, context, created, signInAt } from './browser.js'

const PASSWORD = 'Portcullis-A11y-Check-2026!'
/** The guest device whose portal session the walk opens. */
const PORTAL_MAC = '02:a1:1a:00:00:01'
/** The community edition's plugins with screens (console-navigation.test.ts's, without the example plugin). */
const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'pki', 'nac', 'portal', 'ncm', 'console']
const CASES = [
  { locale: 'en-US', width: 1280, addDevice: 'Add device', del: 'Delete', menu: 'Menu' },
  { locale: 'ru-RU', width: 768, addDevice: 'Добавить устройство', del: 'Удалить', menu: 'Меню' },
] as const

/**
 * What actions open over a screen, and the menu's other state (collapsed at 1280, the drawer open at
 * 768), each checked by axe in the page the screens' walk left: `open` shows it, `close` takes it away.
 */
function overlays(c: (typeof CASES)[number]): { name: string; at: string; open(page: Page): Promise<void>; close(page: Page): Promise<void> }[] {
  const dialog = (page: Page) => page.getByRole('dialog').last()
  const escape = async (page: Page) => {
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
  }
  return [
    c.width >= 992
      ? {
          name: 'the menu with a section collapsed',
          at: '/devices',
          open: async (page) => {
            const b = page.locator('nav .menu-section').first()
            await b.click()
            await page.locator('nav .menu-section[aria-expanded="false"]').first().waitFor()
          },
          close: (page) => page.locator('nav .menu-section[aria-expanded="false"]').first().click(),
        }
      : {
          name: 'the menu open (drawer) and the header',
          at: '/devices',
          open: async (page) => {
            await page.getByRole('banner').getByRole('button', { name: c.menu }).click()
            await page.waitForFunction(() => !document.querySelector('nav[inert]'))
          },
          close: async (page) => {
            await page.getByRole('banner').getByRole('button', { name: c.menu }).click()
            await page.locator('nav[inert]').waitFor({ state: 'attached' })
          },
        },
    {
      name: 'the quick search (Ctrl+K) with results',
      at: '/devices',
      open: async (page) => {
        await page.keyboard.press('Control+k')
        await dialog(page).locator('input').fill('a11y')
        await dialog(page).getByText('a11y-sw-1').first().waitFor()
      },
      close: escape,
    },
    {
      name: 'the device form',
      at: '/devices',
      open: async (page) => {
        await page.locator('#main').getByRole('button', { name: c.addDevice }).click()
        await dialog(page).locator('input[name="name"]').waitFor()
      },
      close: escape,
    },
    {
      name: "a delete's confirmation with its references",
      at: '/device-groups',
      open: async (page) => {
        await page.getByRole('button', { name: `${c.del} a11y-core` }).click()
        await page.getByTestId('confirm-touches').waitFor()
      },
      close: (page) => page.getByTestId('confirm-cancel').click().then(() => page.getByTestId('confirm-dialog').waitFor({ state: 'detached' })),
    },
    {
      name: "a user group's members (drawer)",
      at: '/user-groups',
      open: async (page) => {
        await page.locator('tr[data-group="a11y-operators"]').getByRole('button').first().click()
        await dialog(page).waitFor()
      },
      close: escape,
    },
    {
      name: "a certificate's details (drawer)",
      at: '/pki/certificates',
      open: async (page) => {
        await page.getByTestId('certificates-table').locator('tbody tr').first().locator('td').first().getByRole('button').click()
        await dialog(page).getByTestId('certificate-details').waitFor()
      },
      close: escape,
    },
    {
      name: "a deploy's details from the history (drawer)",
      at: '/deploys',
      open: async (page) => {
        await page.getByTestId('history-table').locator('tbody tr[data-daemon="tac_plus-ng"]').first().locator('td button').first().click()
        await dialog(page).getByTestId('deploy-details').waitFor()
      },
      close: escape,
    },
    {
      name: "a guest portal session's details (drawer)",
      at: '/captive-portal/sessions',
      open: async (page) => {
        await page.locator(`tr[data-session="${PORTAL_MAC}"]`).getByRole('button').first().click()
        await dialog(page).getByTestId('portal-session-details').getByText(PORTAL_MAC, { exact: true }).waitFor()
      },
      close: escape,
    },
    {
      name: 'an audit entry (drawer)',
      at: '/audit',
      open: async (page) => {
        await page.locator('#main tbody tr').first().getByRole('button').first().click()
        await dialog(page).waitFor()
      },
      close: escape,
    },
  ]
}

/**
 * What the keyboard walk found wrong on one screen, one line a problem; `actions`: how many it walked to,
 * `clickables`: how many elements React answers a click on (so the walk is known to see them).
 */
async function keyboardProblems(page: Page): Promise<{ problems: string[]; actions: number; clickables: number }> {
  // The test's code is compiled with esbuild's keepNames, whose __name helper the page does not have.
  await page.evaluate('window.__name ??= (f) => f')
  // Marks the candidates: what a pointer can use in #main, as the page is now.
  const marked = await page.evaluate(() => {
    const main = document.getElementById('main')!
    const describe = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.getAttribute('role') ? `[role=${el.getAttribute('role')}]` : ''} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`
    const shown = (el: HTMLElement) => {
      const r = el.getBoundingClientRect()
      return el.checkVisibility({ visibilityProperty: true }) && r.width > 0 && r.height > 0
    }
    const disabled = (el: HTMLElement) => (el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true' || !!el.closest('fieldset:disabled, [inert]')
    /** Roving focus (WAI-ARIA): one stop for the group, the arrows move within it. */
    const roving = (el: HTMLElement) => {
      const role = el.getAttribute('role')
      if ((el as HTMLInputElement).type === 'radio' || role === 'radio') return !(el as HTMLInputElement).checked && el.getAttribute('aria-checked') !== 'true'
      return (role === 'tab' && el.getAttribute('aria-selected') !== 'true') || role === 'menuitem' || role === 'option' || role === 'gridcell'
    }
    const problems: string[] = []
    for (const el of document.querySelectorAll<HTMLElement>('[tabindex]')) if (el.tabIndex > 0) problems.push(`positive tabindex ${el.tabIndex}: ${describe(el)}`)
    const actions = 'a[href], button, input:not([type="hidden"]), select, textarea, [role="button"], [role="link"], [role="checkbox"], [role="switch"], [role="tab"], [role="radio"], [role="combobox"]'
    let n = 0
    let clickables = 0
    for (const el of main.querySelectorAll<HTMLElement>(actions)) {
      if (!shown(el) || disabled(el) || roving(el)) continue
      if (el.tabIndex < 0) {
        problems.push(`an action out of the Tab order (tabindex=${el.getAttribute('tabindex')}): ${describe(el)}`)
        continue
      }
      el.setAttribute('data-a11y-tab', String(n++))
    }
    // What React answers a click on, that Tab cannot reach: its props are on the element (__reactProps$…).
    for (const el of main.querySelectorAll<HTMLElement>('*')) {
      const key = Object.keys(el).find((k) => k.startsWith('__reactProps$'))
      const props = key ? ((el as unknown as Record<string, { onClick?: unknown }>)[key] ?? {}) : {}
      if (typeof props.onClick === 'function') clickables++
      if (typeof props.onClick !== 'function' || el.tabIndex >= 0 || !shown(el) || el.matches('label, [role="presentation"], [role="none"]')) continue
      // A row or card clickable for the mouse, whose own link or button the keyboard uses, is not a gap.
      if (el.querySelector('a[href], button, input, select, textarea, [tabindex="0"]')) continue
      if (el.closest('a[href], button, label, [tabindex="0"]')) continue // inside what is focusable: the same action
      problems.push(`clickable but not focusable: ${describe(el)}`)
    }
    return { n, clickables, problems }
  })
  await page.locator('a.skip-link').focus()
  await page.keyboard.press('Enter')
  await page.waitForFunction(() => document.activeElement?.id === 'main')
  // The page notes where each Tab lands (one round trip a key, not two); asked every 8 keys whether done.
  await page.evaluate(() => {
    const w = window as unknown as { a11yWalk: { marks: string[]; left: boolean } }
    w.a11yWalk = { marks: [], left: false }
    document.addEventListener('focusin', (e) => {
      const el = e.target as Element
      if (!document.getElementById('main')?.contains(el)) w.a11yWalk.left = true
      const mark = el.getAttribute('data-a11y-tab')
      if (mark !== null && !w.a11yWalk.left) w.a11yWalk.marks.push(mark)
    })
  })
  const walk = () => page.evaluate(() => (window as unknown as { a11yWalk: { marks: string[]; left: boolean } }).a11yWalk)
  let reached = new Set<string>()
  for (let i = 1; i <= marked.n + 40; i++) {
    await page.keyboard.press('Tab')
    if (i % 8 !== 0 && i < marked.n) continue
    const w = await walk()
    reached = new Set(w.marks)
    if (w.left || reached.size === marked.n) break
  }
  reached = new Set((await walk()).marks)
  const missed = await page.evaluate((seen) => {
    const out: string[] = []
    for (const el of document.querySelectorAll<HTMLElement>('[data-a11y-tab]')) {
      if (!seen.includes(el.getAttribute('data-a11y-tab')!)) out.push(`not reached by Tab: ${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? el.getAttribute('name') ?? '').trim().slice(0, 40)}"`)
      el.removeAttribute('data-a11y-tab')
    }
    return out
  }, [...reached])
  return { problems: [...marked.problems, ...missed], actions: marked.n, clickables: marked.clickables }
}

// A browser run is engine-independent: once per npm test, in the embedded run (docs/testing.md: the runs balanced).
;(runsOn('embedded') ? describe : describe.skip)('console: every screen accessible and usable by keyboard', function () {
  this.timeout(600_000)
  let t: TestApp
  let browser: Browser
  browserSuite({ plugins: PLUGINS, env: { TAC_PLUS_NG: '/nonexistent/sbin/tac_plus-ng' }, settings: { 'aaa-logs.ingest_enabled': false } }, PASSWORD, (app, b) => ([t, browser] = [app, b]))
  before(async () => {
    await created(t, '/api/v1/device-groups', { name: 'a11y-core' })
    await created(t, '/api/v1/devices', { name: 'a11y-sw-1', address: '10.98.0.1' })
    await created(t, '/api/v1/users', { username: 'a11y-operator', email: 'operator@example.org' })
    await created(t, '/api/v1/user-groups', { name: 'a11y-operators' })
    // For the drawers: a certificate issued, a deploy in the history, a guest's portal session.
    const ca = await createCa(t)
    const template = await createTemplate(t)
    await issue(t, ca.id, template.id, csrWithSubject([['CN', 'a11y.example.net']]))
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    expect((await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })).status).to.equal(201)
    const guests = await created(t, '/api/v1/nac/endpoint-groups', { name: 'a11y-guests' })
    await created(t, '/api/v1/captive-portal/portals', { name: 'a11y-lobby', slug: 'a11y-lobby', methods: ['hotspot'], guest_endpoint_group_id: guests, accept_unsigned_redirect: true })
    // The guest's browser arriving from the NAS's redirect (an unsigned one, which this portal accepts) starts the session.
    const landing = await fetch(`${t.url}/portal/a11y-lobby?mac=${encodeURIComponent(PORTAL_MAC)}`)
    expect(landing.status).to.equal(200)
  })

  for (const c of CASES) {
    it(`every screen of the menu: no serious or critical axe violation, every action reachable by Tab (${c.locale.slice(0, 2)}, ${c.width} px)`, async () => {
      const page = await (await context(browser, { locale: c.locale, width: c.width, height: 800 })).newPage()
      await signInAt(page, t.url + '/', 'admin', PASSWORD)
      await page.locator('nav a[href]').first().waitFor({ state: 'attached' })
      // The menu's links, every section open (context()'s default); the drawer's are in the page too.
      await page.waitForFunction(() => document.querySelectorAll('[data-menu-section]').length > 0)
      const screens = [...new Set(await page.locator('nav a[href^="/"]').evaluateAll((els) => els.map((el) => el.getAttribute('href')!)))]
      expect(screens.length, 'the menu offers the administrator its screens').to.be.greaterThan(25)
      const failures: string[] = []
      let clickables = 0
      let actions = 0 // a screen may have none (no approval waiting): counted over all
      for (const [i, screen] of screens.entries()) {
        await page.goto(t.url + screen)
        await page.getByRole('heading', { level: 1 }).first().waitFor()
        // The lists loaded: no loader left in the content.
        await page.waitForFunction(() => !document.querySelector('#main .mantine-Loader-root, #main [aria-busy="true"]'))
        const grave = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')
        if (grave.length > 0) failures.push(`${screen}: axe\n${describeViolations(grave)}`)
        if (i === 0) {
          // The walk can fail: an action taken out of the Tab order, a div made a button without focus and a
          // positive tabindex, put in the first screen, are each found (then taken out again).
          await page.evaluate(() => {
            document.getElementById('main')!.insertAdjacentHTML('afterbegin', '<div id="a11y-bad"><button tabindex="-1">Trapped</button><div role="button">Unreachable</div><button tabindex="2">Jumps</button></div>')
          })
          const bad = (await keyboardProblems(page)).problems.join('\n')
          for (const want of ['tabindex=-1): button "Trapped"', 'div[role=button] "Unreachable"', 'positive tabindex 2: button "Jumps"']) expect(bad, 'the walk finds ' + want).to.contain(want)
          await page.evaluate(() => document.getElementById('a11y-bad')!.remove())
        }
        const keys = await keyboardProblems(page)
        clickables += keys.clickables
        actions += keys.actions
        if (keys.problems.length > 0) failures.push(`${screen}: keyboard\n${keys.problems.join('\n')}`)
      }
      // What actions open over the screens (dialogs, drawers, the quick search) and the menu's other state: axe on each.
      for (const o of overlays(c)) {
        await page.goto(t.url + o.at)
        await page.getByRole('heading', { level: 1 }).first().waitFor()
        await page.waitForFunction(() => !document.querySelector('#main .mantine-Loader-root, #main [aria-busy="true"]'))
        await o.open(page)
        // A drawer or dialog fades in: axe measures contrast on the colours as shown, so only once it has settled.
        await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'))
        const grave = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')
        if (grave.length > 0) failures.push(`${o.name} (${o.at}): axe\n${describeViolations(grave)}`)
        await o.close(page)
      }
      expect(failures, failures.join('\n\n')).to.deep.equal([])
      expect(actions, 'the actions walked to over every screen').to.be.greaterThan(screens.length * 3)
      expect(clickables, "elements React answers a click on, seen by the walk (React's props read)").to.be.greaterThan(10)
      await page.context().close()
    })
  }
})
