/**
 * Issue 34 item 13, "Russian everywhere", the server's part as the console shows it: in Russian
 * (Accept-Language from the console's language), the policy test's trace reasons come in Russian,
 * and a refusal's detail (the API's 422 envelope) is shown in Russian, at 1280×800.
 */
import { expect } from 'chai'
import type { Browser } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { context, screenshot, signInAt, browserSuite, created } from './browser.js'

const PASSWORD = 'Portcullis-Russian-2026!'
const NAS = '10.8.1.1'

// A browser run is engine-independent: once per npm test, in the PostgreSQL run.
;(runsOn('postgres') ? describe : describe.skip)('console: the server\'s words in Russian', function () {
  this.timeout(300_000)
  let t: TestApp
  let browser: Browser
  browserSuite({ plugins: ['inventory', 'tacacs', 'aaa-policy', 'console'] }, PASSWORD, (app, b) => ([t, browser] = [app, b]))
  before(async () => {
    const make = (p: string, body: object) => created(t, p, body)
    const olga = await make('/api/v1/users', { username: 'olga', password: 'Tq-Strong-Pass-7kQ', network_login: true })
    const boris = await make('/api/v1/users', { username: 'boris', password: 'Tq-Strong-Pass-8kQ', network_login: true })
    const sw = await make('/api/v1/devices', { name: 'access-sw-9', address: `${NAS}/32`, tacacs_key: 'tacacs-key-9' })
    const profile = await make('/api/v1/tacacs/profiles', { name: 'operator-ru', privilege_level: 15 })
    await make('/api/v1/aaa/policy/rules', { name: 'boris-access', who: { user_id: boris }, where: { device_id: sw }, tacacs_profile_id: profile })
    await make('/api/v1/aaa/policy/rules', { name: 'olga-access', who: { user_id: olga }, where: { device_id: sw }, tacacs_profile_id: profile })
  })

  it('the policy test\'s trace and a refusal in Russian (1280×800)', async () => {
    const page = await (await context(browser, { locale: 'ru-RU', width: 1280, height: 800 })).newPage()
    await signInAt(page, t.url + '/policy', 'admin', PASSWORD)
    const test = page.getByTestId('policy-test')
    await test.locator('input[name="username"]').fill('olga')
    await test.locator('input[name="nas_ip"]').fill(NAS)
    await test.getByRole('button', { name: 'Проверить', exact: true }).click()
    await test.getByText('пользователь — не boris', { exact: false }).first().waitFor()
    await test.getByText('совпало: пользователь olga, устройство access-sw-9', { exact: false }).first().waitFor()
    expect(await test.getByText('user is not boris').count(), 'no English trace reason').to.equal(0)
    await screenshot(page, 'policy-test-trace-ru')

    // A line the server refuses (a <cr> not last): its 422 detail, in Russian.
    await test.locator('input[name="command"]').fill('show <cr> version')
    await test.getByRole('button', { name: 'Проверить', exact: true }).click()
    await page.getByText('Слово <cr> допустимо только последним', { exact: false }).first().waitFor()
    expect(await page.getByText('A word <cr> is taken only as the last word', { exact: false }).count()).to.equal(0)
    await screenshot(page, 'policy-test-refusal-ru')
  })
})
