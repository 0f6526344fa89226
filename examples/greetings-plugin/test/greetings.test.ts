/**
 * Proves every part of an out-of-tree plugin works when loaded by
 * configuration: migration, routes gated by its own permissions, the typed
 * setting, the renderer, the audit trail and the service ref. Written as a
 * plugin author writes it, with the SDK's test kit only: the same file runs
 * here (from source) and in a copy of this folder outside the repository
 * (compiled, against a built server: test/plugins/out-of-tree.test.ts).
 */
import { expect } from 'chai'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { startTestApp, testEngines, type PluginTestApp } from '@portcullis/sdk/testing'
import type { Greeting } from '../schemas.js'

interface Problem {
  detail: string
  code: string
  field: string | null
}
interface Page<T> {
  items: T[]
  total: number
  total_by_filter: number
  page: number
  per_page: number
  pages: number
}
interface AuditItem {
  action: string
  actor_name: string
  after: Record<string, unknown> | null
}
interface RbacSchema {
  groups: { plugin: string; permissions: { name: string }[] }[]
}

// This plugin's entry: its build when one sits beside the tests (a plugin's `npm test`), else its source (tsx).
const here = new URL('..', import.meta.url)
const PLUGIN = fileURLToPath([new URL('index.js', here), new URL('index.ts', here)].find((u) => existsSync(u))!)

// Both engines, or the one TEST_ENGINE names (a CI job per engine).
for (const engine of testEngines()) {
  describe(`example plugin (examples/greetings-plugin), loaded by configuration (${engine})`, function () {
    this.timeout(60_000)
    let t: PluginTestApp
    before(async () => {
      t = await startTestApp({ engine, plugins: [PLUGIN] })
    })
    after(async () => t?.stop())

    it('ran its own migration in its own migration table', async () => {
      expect(await t.knex.schema.hasTable('greetings_greeting')).to.equal(true)
      const applied = await t.knex('knex_migrations_greetings').pluck('name')
      expect(applied).to.deep.equal(['0001_greetings'])
    })

    it('gates its routes by its own permissions', async () => {
      const none = await t.token({ permissions: [] })
      const reader = await t.token({ permissions: ['greetings.read'] })
      expect((await t.req('GET', '/api/v1/greetings', { token: none })).status).to.equal(403)
      expect((await t.req('GET', '/api/v1/greetings', { token: reader })).status).to.equal(200)
      const denied = await t.req<Problem>('POST', '/api/v1/greetings', { token: reader, body: { name: 'x', message: 'Hi' } })
      expect(denied.status).to.equal(403)
      expect(denied.body).to.include({ code: 'PERMISSION_DENIED', field: null })
      const rbac = await t.admin<RbacSchema>('GET', '/api/v1/rbac/schema')
      const group = rbac.body.groups.find((g) => g.plugin === 'greetings')
      expect(group?.permissions.map((p) => p.name)).to.deep.equal(['greetings.read', 'greetings.write'])
    })

    it('creates, reads, lists, audits and deletes through its routes', async () => {
      const writer = await t.token({ permissions: ['greetings.read', 'greetings.write'] })
      const created = await t.req<Greeting>('POST', '/api/v1/greetings', { token: writer, body: { name: 'alice', message: 'Hello', note: '   ' } })
      expect(created.status).to.equal(201)
      expect(created.body.note, 'blank optional text is stored as null').to.equal(null)
      const dup = await t.req<Problem>('POST', '/api/v1/greetings', { token: writer, body: { name: 'alice', message: 'Hi' }, headers: { 'accept-language': 'ru' } })
      expect(dup.status).to.equal(409)
      expect(dup.body).to.deep.equal({ detail: 'Приветствие для «alice» уже существует.', code: 'GREETING_NAME_TAKEN', field: 'name' })
      const list = await t.req<Page<Greeting>>('GET', '/api/v1/greetings?search=ali', { token: writer })
      expect(list.body).to.include({ total: 1, total_by_filter: 1, page: 1, per_page: 20, pages: 1 })
      const audit = await t.admin<Page<AuditItem>>('GET', `/api/v1/audit?resource_type=greeting&resource_id=${created.body.id}`)
      expect(audit.body.items).to.have.length(1)
      expect(audit.body.items[0]).to.include({ action: 'greeting.create' })
      expect(audit.body.items[0].actor_name, 'the audit names the real account').to.match(/^kit-/)
      expect(audit.body.items[0].after).to.include({ name: 'alice' })
      const del = await t.req('DELETE', `/api/v1/greetings/${created.body.id}`, { token: writer })
      expect(del.status).to.equal(204)
      expect((await t.req('GET', `/api/v1/greetings/${created.body.id}`, { token: writer })).status).to.equal(404)
    })

    it('reads its typed setting, and the setting refuses a value of the wrong type', async () => {
      const g = await t.admin<Greeting>('POST', '/api/v1/greetings', { body: { name: 'bob', message: 'Hey' } })
      expect((await t.admin<Greeting>('GET', `/api/v1/greetings/${g.body.id}`)).body.message).to.equal('Hey!')
      const bad = await t.admin<Problem>('PUT', '/api/v1/settings/greetings.suffix', { body: { value: 42 } })
      expect(bad.status).to.equal(422)
      expect(bad.body.field).to.equal('value')
      const tooLong = await t.admin('PUT', '/api/v1/settings/greetings.suffix', { body: { value: 'x'.repeat(11) } })
      expect(tooLong.status).to.equal(422)
      const ok = await t.admin<Record<string, unknown>>('PUT', '/api/v1/settings/greetings.suffix', { body: { value: ' :)' } })
      expect(ok.status).to.equal(200)
      expect(ok.body).to.include({ key: 'greetings.suffix', owner: 'greetings', value: ' :)', default: '!' })
      expect((await t.admin<Greeting>('GET', `/api/v1/greetings/${g.body.id}`)).body.message).to.equal('Hey :)')
    })

    it('renders through its renderer from one consistent snapshot, deterministically', async () => {
      const [a, b] = [await t.render('greetings.motd'), await t.render('greetings.motd')]
      expect(a).to.deep.equal(b)
      expect(a[0]).to.include({ path: 'motd.txt', mode: 0o644 })
      expect(a[0].content).to.equal('Hey, bob :)\n')
    })

    it('offers a validated JSON route', async () => {
      const res = await t.admin('GET', '/api/v1/greetings/hello?name=eve&times=2')
      expect(res.body).to.deep.equal({ message: 'Hello, eve! Hello, eve!' })
      const bad = await t.admin<Problem>('GET', '/api/v1/greetings/hello?name=eve&times=9')
      expect(bad.status).to.equal(422)
      expect(bad.body.field).to.equal('times')
    })
  })
}
