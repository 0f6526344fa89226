/**
 * The audit screen names objects as they were at the event (a role renamed, then deleted, still
 * reads by its old names) and shows a rule reorder as the move and the order before and after, by
 * rule name: at 1280x800 in English and Russian, on PostgreSQL.
 */
import { expect } from 'chai'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { createDevice, createRule, createUser, listRules, PLUGINS, RULES, uniq } from '../../aaa-policy/test/helpers.js'
import { context, launch, needConsole, screenshot, signInAt, startWithAdmin } from './browser.js'

const PASSWORD = 'Portcullis-Audit-2026!'

;(runsOn('postgres') ? describe : describe.skip)('console: the audit trail names objects as they were, and reads a reorder', function () {
  this.timeout(240_000)
  let t: TestApp
  let browser: Browser
  let roleId: string
  const first = uniq('noc-ops')
  const second = uniq('noc-admins')
  let moved: string
  let userId: string
  let username: string

  before(async function () {
    needConsole(this)
    t = await startWithAdmin({ engine: 'postgres', plugins: [...PLUGINS, 'console'] }, PASSWORD)
    browser = await launch()
    // A role created, renamed, deleted: the trail keeps both names.
    const r = await t.admin('POST', '/api/v1/roles', { body: { name: first, permissions: ['audit.read'] } })
    expect(r.status, r.text).to.equal(201)
    roleId = r.body.id
    expect((await t.admin('PUT', `/api/v1/roles/${roleId}`, { body: { name: second } })).status).to.equal(200)
    expect((await t.admin('DELETE', `/api/v1/roles/${roleId}`)).status).to.equal(204)
    // Three rules and the default; the third moved to the top.
    const [user, device] = await Promise.all([createUser(t), createDevice(t)])
    userId = user.id
    username = user.username
    for (let i = 0; i < 3; i++) await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
    const ids = (await listRules(t)).map((x) => x.id as string)
    moved = (await listRules(t))[2].name
    const re = await t.admin('PUT', `${RULES}/reorder`, { body: { rule_ids: [ids[2], ids[0], ids[1], ids[3]] } })
    expect(re.status, re.text).to.equal(200)
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  const open = async (locale: 'en-US' | 'ru-RU', query: string): Promise<Page> => {
    const page = await (await context(browser, { locale, width: 1280, height: 800 })).newPage()
    await signInAt(page, `${t.url}/audit?${query}`, 'admin', PASSWORD)
    await page.getByTestId('audit-table').locator('tbody tr').first().waitFor()
    return page
  }

  for (const [locale, words] of [
    ['en-US', { nameAtEvent: 'Name at the time', open: 'Open', moved: `Rule '${'%'}' moved from position 3 to 1`, before: 'Before', after: 'After' }],
    ['ru-RU', { nameAtEvent: 'Имя на момент события', open: 'Открыть', moved: `Правило «${'%'}» перемещено с позиции 3 на 1`, before: 'До', after: 'После' }],
  ] as const) {
    it(`shows the names at the event after a rename and a deletion (${locale})`, async () => {
      const page = await open(locale, `resource_type=role&resource_id=${roleId}`)
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-table"] tbody tr').length === 3)
      const cells = (await page.getByTestId('audit-resource').allTextContents()).join('\n')
      expect(cells).to.include(first).and.include(second)
      await page.locator('tr[data-action="role.create"]').getByRole('button').click()
      const entry = page.getByTestId('audit-entry')
      await entry.waitFor()
      expect(await entry.textContent()).to.include(words.nameAtEvent)
      expect(await page.getByTestId('audit-resource-name').locator('b').textContent()).to.equal(first)
      await screenshot(page, `audit-names-${locale}`)
      await page.context().close()
    })

    it(`the link beside a kept name opens that object, not the whole list (${locale})`, async () => {
      const page = await open(locale, `resource_type=user&resource_id=${userId}`)
      await page.locator('tr[data-action="user.create"]').getByRole('button').click()
      const link = page.getByTestId('audit-object-link')
      expect(await link.textContent()).to.equal(words.open)
      expect(await link.getAttribute('href')).to.equal(`/users?search=${encodeURIComponent(username)}`)
      await link.click()
      // The users list, filtered to the one user: the search box holds the name, the table shows its row alone.
      const table = page.getByTestId('users-table')
      await table.locator(`tr[data-user="${username}"]`).waitFor()
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="users-table"] tbody tr').length === 1)
      await page.context().close()
    })

    it(`reads a rule reorder as the move and the order by name (${locale})`, async () => {
      const page = await open(locale, 'resource_type=aaa_policy_rule')
      await page.locator('tr[data-action="aaa_policy_rule.reorder"]').getByRole('button').click()
      const reorder = page.getByTestId('audit-reorder')
      await reorder.waitFor()
      expect(await reorder.locator('p').first().textContent()).to.equal(words.moved.replace('%', moved))
      const after = await page.getByTestId(`audit-order-${words.after}`).locator('li').allTextContents()
      expect(after[0]).to.equal(moved)
      expect(after.at(-1)).to.equal('default')
      expect(await page.getByTestId(`audit-order-${words.before}`).locator('li').nth(2).textContent()).to.equal(moved)
      // No raw JSON of ids where the order is shown.
      expect(await page.getByTestId('audit-diff').count()).to.equal(0)
      await screenshot(page, `audit-reorder-${locale}`)
      // A rule's creation links to the rule itself: the policy screen opens its dialog by id (`?open=`).
      await page.keyboard.press('Escape')
      await reorder.waitFor({ state: 'detached' })
      const rule = (await listRules(t)).find((x) => x.name === moved)!
      await page.locator(`tr[data-action="aaa_policy_rule.create"]`).filter({ hasText: moved }).getByRole('button').click()
      const link = page.getByTestId('audit-object-link')
      expect(await link.getAttribute('href')).to.equal(`/policy?open=${rule.id as string}`)
      await link.click()
      const form = page.getByTestId('rule-form')
      await form.waitFor()
      expect(await form.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).to.include(moved)
      await page.context().close()
    })
  }
})
