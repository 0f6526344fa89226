/** /api/v1/nac/profiling-rules: the seeded defaults, CRUD with audit, bad input changing nothing, authorization; manual device type. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, createEndpoint, createGroup, expectError, uniq } from './helpers.js'

const RULES = '/api/v1/nac/profiling-rules'
const rule = (extra: Record<string, unknown> = {}) => ({
  name: uniq('rule'),
  conditions: [{ attribute: 'dhcp_class_id', operator: 'starts_with', value: 'MSFT' }],
  device_type: 'windows',
  certainty: 70,
  ...extra,
})

describe('nac: profiling rules API', () => {
  let t: TestApp
  before(async () => (t = await startTestApp({ plugins: ['nac'] })))
  after(async () => t?.stop())

  it('ships sensible default rules (printers, IP phones, Windows, Apple, Android, Linux)', async () => {
    const r = await t.admin('GET', `${RULES}?per_page=100`)
    expect(r.status, r.text).to.equal(200)
    const types = new Set(r.body.items.map((x: any) => x.device_type))
    for (const ty of ['printer', 'ip-phone', 'windows', 'apple-macos', 'apple-ios', 'android', 'linux']) expect(types.has(ty), ty).to.equal(true)
    const positions = r.body.items.map((x: any) => x.position)
    expect(positions).to.deep.equal([...positions].sort((a: number, b: number) => a - b))
    expect(r.body.items[0]).to.have.all.keys('id', 'name', 'description', 'conditions', 'device_type', 'certainty', 'enabled', 'position', 'created_at', 'updated_at')
  })

  it('creates (at the end), reads, changes, filters and deletes, each audited', async () => {
    const c = await t.admin('POST', RULES, { body: rule({ description: ' ' }) })
    expect(c.status, c.text).to.equal(201)
    expect(c.body).to.include({ enabled: true, certainty: 70, device_type: 'windows', description: null })
    const all = await t.admin('GET', `${RULES}?per_page=100&sort_by=position`)
    expect(all.body.items.at(-1).id).to.equal(c.body.id)
    expect((await t.admin('GET', `${RULES}/${c.body.id}`)).body).to.deep.equal(c.body)
    const u = await t.admin('PUT', `${RULES}/${c.body.id}`, { body: { certainty: 95, enabled: false, conditions: [{ attribute: 'user_agent', operator: 'contains', value: 'Windows NT 10.0' }] } })
    expect(u.status, u.text).to.equal(200)
    expect(u.body).to.include({ certainty: 95, enabled: false, name: c.body.name })
    expect(u.body.conditions).to.deep.equal([{ attribute: 'user_agent', operator: 'contains', value: 'Windows NT 10.0' }])
    const off = await t.admin('GET', `${RULES}?enabled=false&search=${c.body.name}`)
    expect(off.body.items.map((x: any) => x.id)).to.deep.equal([c.body.id])
    expect((await t.admin('GET', `${RULES}?device_type=WINDOWS&per_page=100`)).body.items.map((x: any) => x.id)).to.include(c.body.id)
    expect((await t.admin('DELETE', `${RULES}/${c.body.id}`)).status).to.equal(204)
    expectError(await t.admin('GET', `${RULES}/${c.body.id}`), 404, 'NOT_FOUND', 'rule_id')
    expect((await auditRows(t, c.body.id)).map((a) => a.action)).to.deep.equal(['profiling_rule.create', 'profiling_rule.update', 'profiling_rule.delete'])
  })

  it('refuses bad input with a clear error and changes nothing', async () => {
    const taken = await t.admin('POST', RULES, { body: rule() })
    const before = JSON.stringify(await t.app.db.knex('nac_profiling_rules').orderBy('id'))
    const cond = (c: Record<string, unknown>) => rule({ conditions: [{ attribute: 'vendor', operator: 'contains', value: 'x', ...c }] })
    const cases: [Record<string, unknown>, number, string, string][] = [
      [rule({ colour: 'red' }), 422, 'UNKNOWN_FIELD', 'colour'],
      [{ ...rule(), name: undefined }, 422, 'FIELD_REQUIRED', 'name'],
      [rule({ name: 'has space' }), 422, 'VALIDATION_FAILED', 'name'],
      [rule({ name: taken.body.name.toUpperCase() }), 409, 'PROFILING_RULE_NAME_TAKEN', 'name'],
      [rule({ conditions: [] }), 422, 'VALIDATION_FAILED', 'conditions'],
      [rule({ conditions: Array.from({ length: 11 }, () => ({ attribute: 'vendor', operator: 'equals', value: 'x' })) }), 422, 'VALIDATION_FAILED', 'conditions'],
      [cond({ operator: 'regex', value: '(a+)+$' }), 422, 'VALIDATION_FAILED', 'conditions[0].operator'],
      [cond({ attribute: 'dhcp_option_77' }), 422, 'VALIDATION_FAILED', 'conditions[0].attribute'],
      [cond({ value: '' }), 422, 'VALIDATION_FAILED', 'conditions[0].value'],
      [cond({ value: 'two\nlines' }), 422, 'VALIDATION_FAILED', 'conditions[0].value'],
      [cond({ value: 'x'.repeat(254) }), 422, 'VALIDATION_FAILED', 'conditions[0].value'],
      [cond({ extra: 1 }), 422, 'UNKNOWN_FIELD', 'conditions[0].extra'],
      [rule({ device_type: 'IP phone' }), 422, 'VALIDATION_FAILED', 'device_type'],
      [rule({ device_type: '%{User-Name}' }), 422, 'VALIDATION_FAILED', 'device_type'],
      [rule({ certainty: 101 }), 422, 'VALIDATION_FAILED', 'certainty'],
      [rule({ certainty: -1 }), 422, 'VALIDATION_FAILED', 'certainty'],
      [rule({ certainty: 50.5 }), 422, 'VALIDATION_FAILED', 'certainty'],
      [rule({ position: 0 }), 422, 'VALIDATION_FAILED', 'position'],
    ]
    for (const [body, status, code, field] of cases) expectError(await t.admin('POST', RULES, { body: body.name === undefined ? { ...body, name: undefined } : body }), status, code, field)
    const other = await t.admin('POST', RULES, { body: rule() })
    const mid = JSON.stringify(await t.app.db.knex('nac_profiling_rules').whereNot({ id: other.body.id }).orderBy('id'))
    expect(mid).to.equal(before)
    expectError(await t.admin('PUT', `${RULES}/${other.body.id}`, { body: { name: taken.body.name } }), 409, 'PROFILING_RULE_NAME_TAKEN', 'name')
    expectError(await t.admin('PUT', `${RULES}/${other.body.id}`, { body: { certainty: 200 } }), 422, 'VALIDATION_FAILED', 'certainty')
    expectError(await t.admin('PUT', `${RULES}/${randomUUID()}`, { body: {} }), 404, 'NOT_FOUND', 'rule_id')
    expectError(await t.admin('PUT', `${RULES}/nope`, { body: {} }), 422, 'VALIDATION_FAILED', 'rule_id')
    expectError(await t.admin('DELETE', `${RULES}/${randomUUID()}`), 404, 'NOT_FOUND', 'rule_id')
    expect((await t.admin('GET', `${RULES}/${other.body.id}`)).body).to.deep.equal(other.body)
  })

  it('needs nac.read to read and nac.profiling.write to change; 401 without a token', async () => {
    const reader = await t.token({ permissions: ['nac.read'] })
    const writer = await t.token({ permissions: ['nac.write'] })
    const profiler = await t.token({ permissions: ['nac.read', 'nac.profiling.write'] })
    const none = await t.token({ permissions: [] })
    const r = await t.admin('POST', RULES, { body: rule() })
    expect((await t.req('GET', RULES, { token: reader })).status).to.equal(200)
    expect((await t.req('GET', RULES, { token: none })).status).to.equal(403)
    expect((await t.req('GET', RULES)).status).to.equal(401)
    for (const token of [reader, writer]) {
      expect((await t.req('POST', RULES, { token, body: rule() })).status).to.equal(403)
      expect((await t.req('PUT', `${RULES}/${r.body.id}`, { token, body: { certainty: 1 } })).status).to.equal(403)
      expect((await t.req('DELETE', `${RULES}/${r.body.id}`, { token })).status).to.equal(403)
    }
    expect((await t.req('POST', RULES, { body: rule() })).status).to.equal(401)
    expect((await t.req('PUT', `${RULES}/${r.body.id}`, { token: profiler, body: { certainty: 1 } })).status).to.equal(200)
    const e = await createEndpoint(t)
    expect((await t.req('PUT', `/api/v1/nac/endpoints/${e.id}/device-type`, { token: writer, body: { device_type: 'printer' } })).status).to.equal(403)
    expect((await t.req('PUT', `/api/v1/nac/endpoints/${e.id}/device-type`, { body: { device_type: 'printer' } })).status).to.equal(401)
    expect((await t.req('PUT', `/api/v1/nac/endpoints/${e.id}/device-type`, { token: profiler, body: { device_type: 'printer' } })).status).to.equal(200)
  })

  it('sets a device type by hand (placing the endpoint by its group rules), clears it, refuses bad types', async () => {
    const g = await createGroup(t, { placement_device_types: ['Printer'] })
    expect(g.placement_device_types).to.deep.equal(['printer'])
    const e = await createEndpoint(t)
    const s = await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}/device-type`, { body: { device_type: 'printer' } })
    expect(s.status, s.text).to.equal(200)
    expect(s.body).to.include({ device_type: 'printer', device_type_confidence: 100, endpoint_group_id: g.id })
    expect(s.body.device_type_reason).to.match(/^set by hand by /)
    const before = JSON.stringify(await t.app.db.knex('nac_endpoints').where({ id: e.id }))
    expectError(await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}/device-type`, { body: { device_type: 'a"b' } }), 422, 'VALIDATION_FAILED', 'device_type')
    expectError(await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}/device-type`, { body: {} }), 422, 'FIELD_REQUIRED', 'device_type')
    expectError(await t.admin('PUT', `/api/v1/nac/endpoints/${randomUUID()}/device-type`, { body: { device_type: 'x' } }), 404, 'NOT_FOUND', 'endpoint_id')
    expect(JSON.stringify(await t.app.db.knex('nac_endpoints').where({ id: e.id }))).to.equal(before)
    const c = await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}/device-type`, { body: { device_type: null } })
    expect(c.body).to.include({ device_type: null, device_type_confidence: null, endpoint_group_id: null })
    expect((await auditRows(t, e.id)).map((a) => a.action)).to.deep.equal(['endpoint.create', 'endpoint.device_type', 'endpoint.device_type'])
    // Group placement rules are strict too.
    expectError(await t.admin('POST', '/api/v1/nac/endpoint-groups', { body: { name: uniq('g'), placement_device_types: ['ok', 'not ok'] } }), 422, 'VALIDATION_FAILED', 'placement_device_types[1]')
  })
})
