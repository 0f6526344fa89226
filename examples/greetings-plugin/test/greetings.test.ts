/**
 * Proves every part of an out-of-tree plugin works when loaded by
 * configuration: migration, routes gated by its own permissions, the typed
 * setting, the renderer, the audit trail and the service ref.
 */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'

describe('example plugin (examples/greetings-plugin), loaded by configuration', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['./examples/greetings-plugin'] })
  })
  after(async () => t?.stop())

  it('ran its own migration in its own migration table', async () => {
    const knex = t.app.db.knex
    expect(await knex.schema.hasTable('greetings_greeting')).to.equal(true)
    const applied = await knex('knex_migrations_greetings').pluck('name')
    expect(applied).to.deep.equal(['0001_greetings'])
  })

  it('gates its routes by its own permissions', async () => {
    const none = await t.token({ permissions: [] })
    const reader = await t.token({ permissions: ['greetings.read'] })
    expect((await t.req('GET', '/api/v1/greetings', { token: none })).status).to.equal(403)
    expect((await t.req('GET', '/api/v1/greetings', { token: reader })).status).to.equal(200)
    const denied = await t.req('POST', '/api/v1/greetings', { token: reader, body: { name: 'x', message: 'Hi' } })
    expect(denied.status).to.equal(403)
    expect(denied.body).to.include({ code: 'PERMISSION_DENIED', field: null })
    const rbac = await t.admin('GET', '/api/v1/rbac/schema')
    const group = rbac.body.groups.find((g: { plugin: string }) => g.plugin === 'greetings')
    expect(group.permissions.map((p: { name: string }) => p.name)).to.deep.equal(['greetings.read', 'greetings.write'])
  })

  it('creates, reads, lists, audits and deletes through its routes', async () => {
    const writer = await t.token({ permissions: ['greetings.read', 'greetings.write'] })
    const created = await t.req('POST', '/api/v1/greetings', { token: writer, body: { name: 'alice', message: 'Hello', note: '   ' } })
    expect(created.status).to.equal(201)
    expect(created.body.note, 'blank optional text is stored as null').to.equal(null)
    const dup = await t.req('POST', '/api/v1/greetings', { token: writer, body: { name: 'alice', message: 'Hi' }, headers: { 'accept-language': 'ru' } })
    expect(dup.status).to.equal(409)
    expect(dup.body).to.deep.equal({ detail: 'Приветствие для «alice» уже существует.', code: 'GREETING_NAME_TAKEN', field: 'name' })
    const list = await t.req('GET', '/api/v1/greetings?search=ali', { token: writer })
    expect(list.body).to.include({ total: 1, total_by_filter: 1, page: 1, per_page: 20, pages: 1 })
    const audit = await t.admin('GET', `/api/v1/audit?resource_type=greeting&resource_id=${created.body.id}`)
    expect(audit.body.items).to.have.length(1)
    expect(audit.body.items[0]).to.include({ action: 'greeting.create' })
    expect(audit.body.items[0].actor_name, 'the audit names the real account').to.match(/^kit-/)
    expect(audit.body.items[0].after).to.include({ name: 'alice' })
    const del = await t.req('DELETE', `/api/v1/greetings/${created.body.id}`, { token: writer })
    expect(del.status).to.equal(204)
    expect((await t.req('GET', `/api/v1/greetings/${created.body.id}`, { token: writer })).status).to.equal(404)
  })

  it('reads its typed setting, and the setting refuses a value of the wrong type', async () => {
    const g = await t.admin('POST', '/api/v1/greetings', { body: { name: 'bob', message: 'Hey' } })
    expect((await t.admin('GET', `/api/v1/greetings/${g.body.id}`)).body.message).to.equal('Hey!')
    const bad = await t.admin('PUT', '/api/v1/settings/greetings.suffix', { body: { value: 42 } })
    expect(bad.status).to.equal(422)
    expect(bad.body.field).to.equal('value')
    const tooLong = await t.admin('PUT', '/api/v1/settings/greetings.suffix', { body: { value: 'x'.repeat(11) } })
    expect(tooLong.status).to.equal(422)
    const ok = await t.admin('PUT', '/api/v1/settings/greetings.suffix', { body: { value: ' :)' } })
    expect(ok.status).to.equal(200)
    expect(ok.body).to.include({ key: 'greetings.suffix', owner: 'greetings', value: ' :)', default: '!' })
    expect((await t.admin('GET', `/api/v1/greetings/${g.body.id}`)).body.message).to.equal('Hey :)')
  })

  it('renders through its renderer from one consistent snapshot, deterministically', async () => {
    const r = t.app.registry.renderers.find((x) => x.renderer.id === 'greetings.motd')!
    expect(r.owner).to.equal('greetings')
    const render = () => t.app.db.transaction((trx) => r.renderer.render(trx), { isolation: 'repeatable read' })
    const [a, b] = [await render(), await render()]
    expect(a).to.deep.equal(b)
    expect(a[0]).to.include({ path: 'motd.txt', mode: 0o644 })
    expect(a[0].content).to.equal('Hey, bob :)\n')
  })

  it('offers a validated JSON route', async () => {
    const res = await t.admin('GET', '/api/v1/greetings/hello?name=eve&times=2')
    expect(res.body).to.deep.equal({ message: 'Hello, eve! Hello, eve!' })
    const bad = await t.admin('GET', '/api/v1/greetings/hello?name=eve&times=9')
    expect(bad.status).to.equal(422)
    expect(bad.body.field).to.equal('times')
  })
})
