/** /api/v1/nac/endpoint-groups: CRUD, delete rules (members, references from other plugins), references report, audit. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, createEndpoint, createGroup, expectError, uniq } from './helpers.js'

const CONSUMER = './plugins/nac/test/fixtures/consumer'
const FIELDS = ['id', 'name', 'description', 'placement_device_types', 'endpoint_count', 'created_at', 'updated_at']

describe('nac: endpoint groups API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['nac', CONSUMER] })
  })
  after(async () => t?.stop())

  const hold = async (id: string, on: boolean) => expect((await t.admin('POST', '/api/v1/nac-consumer/hold', { body: { id, hold: on } })).status).to.equal(200)

  it('creates, reads, renames, with counts and audit', async () => {
    const r = await t.admin('POST', '/api/v1/nac/endpoint-groups', { body: { name: uniq('Printers'), description: ' ' } })
    expect(r.status, r.text).to.equal(201)
    expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
    expect(r.body).to.include({ description: null, endpoint_count: 0 })
    await createEndpoint(t, { endpoint_group_id: r.body.id })
    await createEndpoint(t, { endpoint_group_id: r.body.id })
    expect((await t.admin('GET', `/api/v1/nac/endpoint-groups/${r.body.id}`)).body.endpoint_count).to.equal(2)
    const name = uniq('mab-allow')
    const u = await t.admin('PUT', `/api/v1/nac/endpoint-groups/${r.body.id}`, { body: { name, description: 'MAB allow-list' } })
    expect(u.body).to.include({ name, description: 'MAB allow-list', endpoint_count: 2 })
    const list = await t.admin('GET', `/api/v1/nac/endpoint-groups?search=${name}`)
    expect(list.body.items.map((g: any) => g.id)).to.deep.equal([r.body.id])
    expect((await auditRows(t, r.body.id)).map((a) => a.action)).to.deep.equal(['endpoint_group.create', 'endpoint_group.update'])
  })

  it('keeps bodies strict and names unique case-insensitively, changing nothing when refused', async () => {
    const a = await createGroup(t, { name: uniq('Guests') })
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ name: 'g1', colour: 'red' }, 422, 'UNKNOWN_FIELD', 'colour'],
      [{ description: 'x' }, 422, 'FIELD_REQUIRED', 'name'],
      [{ name: 'my group' }, 422, 'VALIDATION_FAILED', 'name'],
      [{ name: 'quote"d' }, 422, 'VALIDATION_FAILED', 'name'],
      [{ name: '${x}' }, 422, 'VALIDATION_FAILED', 'name'],
      [{ name: 'g'.repeat(65) }, 422, 'VALIDATION_FAILED', 'name'],
      [{ name: 'g1', description: 'd'.repeat(501) }, 422, 'VALIDATION_FAILED', 'description'],
      [{ name: 'g1', description: 'tab\u0009ok but bell\u0007' }, 422, 'VALIDATION_FAILED', 'description'],
      [{ name: a.name.toUpperCase() }, 409, 'ENDPOINT_GROUP_NAME_TAKEN', 'name'],
    ]
    const before = JSON.stringify(await t.app.db.knex('nac_endpoint_groups').orderBy('id'))
    for (const [body, status, code, field] of cases) expectError(await t.admin('POST', '/api/v1/nac/endpoint-groups', { body }), status, code, field)
    const b = await createGroup(t)
    expectError(await t.admin('PUT', `/api/v1/nac/endpoint-groups/${b.id}`, { body: { name: a.name.toLowerCase() } }), 409, 'ENDPOINT_GROUP_NAME_TAKEN', 'name')
    expectError(await t.admin('PUT', `/api/v1/nac/endpoint-groups/${b.id}`, { body: { endpoint_count: 3 } }), 422, 'UNKNOWN_FIELD', 'endpoint_count')
    expect((await t.admin('PUT', `/api/v1/nac/endpoint-groups/${a.id}`, { body: { name: a.name.toLowerCase() } })).status).to.equal(200)
    const after = JSON.parse(JSON.stringify(await t.app.db.knex('nac_endpoint_groups').orderBy('id')))
    expect(after.filter((g: any) => g.id !== a.id && g.id !== b.id)).to.deep.equal(JSON.parse(before).filter((g: any) => g.id !== a.id))
  })

  it('answers 404 naming endpoint_group_id, 422 for a malformed id', async () => {
    for (const m of ['GET', 'PUT', 'DELETE']) {
      const o = m === 'PUT' ? { body: {} } : {}
      expectError(await t.admin(m, `/api/v1/nac/endpoint-groups/${randomUUID()}`, o), 404, 'NOT_FOUND', 'endpoint_group_id')
      expectError(await t.admin(m, '/api/v1/nac/endpoint-groups/nope', o), 422, 'VALIDATION_FAILED', 'endpoint_group_id')
    }
    expectError(await t.admin('GET', `/api/v1/nac/endpoint-groups/${randomUUID()}/references`), 404, 'NOT_FOUND', 'endpoint_group_id')
  })

  it('refuses to delete a group holding endpoints (409 GROUP_IN_USE, counted), then deletes it empty', async () => {
    const g = await createGroup(t)
    const e = await createEndpoint(t, { endpoint_group_id: g.id })
    const r = await t.admin('DELETE', `/api/v1/nac/endpoint-groups/${g.id}`)
    expectError(r, 409, 'GROUP_IN_USE', 'endpoint_group_id')
    expect(r.body.detail).to.include('1 endpoint')
    const ru = await t.admin('DELETE', `/api/v1/nac/endpoint-groups/${g.id}`, { headers: { 'accept-language': 'ru' } })
    expect(ru.body.detail).to.include('1 оконечное устройство')
    expect((await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { endpoint_group_id: null } })).status).to.equal(200)
    expect((await t.admin('DELETE', `/api/v1/nac/endpoint-groups/${g.id}`)).status).to.equal(204)
    expect((await auditRows(t, g.id)).map((a) => a.action)).to.deep.equal(['endpoint_group.create', 'endpoint_group.delete'])
  })

  it('refuses to delete a group another plugin references (a MAB allow-list rule), naming it, and reports it', async () => {
    const g = await createGroup(t)
    await hold(g.id, true)
    const refs = await t.admin('GET', `/api/v1/nac/endpoint-groups/${g.id}/references`)
    expect(refs.status, refs.text).to.equal(200)
    expect(refs.body).to.deep.equal({ blocking: [{ type: 'nac_policy_rule', id: g.id, name: 'mab-allow' }], auto_clearing: [] })
    const r = await t.admin('DELETE', `/api/v1/nac/endpoint-groups/${g.id}`)
    expectError(r, 409, 'GROUP_IN_USE', 'endpoint_group_id')
    expect(r.body.detail).to.include('nac_policy_rule "mab-allow"')
    expect((await t.admin('GET', `/api/v1/nac/endpoint-groups/${g.id}`)).status).to.equal(200)
    await hold(g.id, false)
    expect((await t.admin('DELETE', `/api/v1/nac/endpoint-groups/${g.id}`)).status).to.equal(204)
  })
})
