/**
 * The NAC service as another plugin (the policy's renderer, the profiler, the
 * ingester) sees it: through the ref exported from index.ts, by a fixture
 * plugin that depends on nac. Also: the plugin in the OpenAPI document.
 */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createEndpoint, createGroup, expectError, freshMac } from './helpers.js'

const CONSUMER = './plugins/nac/test/fixtures/consumer'

describe('nac: the service through its ref', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['nac', CONSUMER], env: { DOCS_ENABLED: 'true' } })
  })
  after(async () => t?.stop())

  const call = async (method: string, args: unknown[] = [], inTransaction = false): Promise<any> => {
    const r = await t.admin('POST', '/api/v1/nac-consumer/call', { body: { method, args, in_transaction: inTransaction } })
    expect(r.status, r.text).to.equal(200)
    return r.body.result
  }

  it('normalizes and finds by MAC in any notation; lists a group by MAC; gives the membership in one read', async () => {
    const g = await createGroup(t)
    const a = await createEndpoint(t, { endpoint_group_id: g.id, mac: '00:00:0c:aa:00:02' })
    const b = await createEndpoint(t, { endpoint_group_id: g.id, mac: '00:00:0c:aa:00:01' })
    expect(await call('normalizeMac', ['0000.0CAA.0002'])).to.equal(a.mac)
    expect(await call('normalizeMac', ['ff:ff:ff:ff:ff:ff'])).to.equal(null)
    expect(await call('vendorOf', ['00-00-0C-00-00-01'])).to.match(/^Cisco/)
    const found = await call('findEndpointByMac', ['00-00-0C-AA-00-02'])
    const { owner_username: _o, endpoint_group_name: _g, ...plain } = a
    expect(found).to.deep.equal(plain)
    expect(await call('findEndpointByMac', ['nonsense'])).to.equal(null)
    expect((await call('listEndpointsInGroup', [g.id], true)).map((e: any) => e.mac)).to.deep.equal([b.mac, a.mac])
    const membership = (await call('groupMembership')).filter((m: any) => m.endpoint_group_id === g.id)
    expect(membership).to.deep.equal([{ mac: b.mac, endpoint_group_id: g.id }, { mac: a.mac, endpoint_group_id: g.id }])
    expect((await call('listGroups')).map((x: any) => x.id)).to.include(g.id)
    expect((await call('getGroup', [g.id])).name).to.equal(g.name)
  })

  it('records sightings: creates an unknown MAC, moves last seen forward, keeps the newer NAS on an older record', async () => {
    const mac = freshMac()
    const t1 = '2026-11-01T10:00:00.000Z'
    const first = await call('recordSighting', [{ mac: mac.toUpperCase().replace(/:/g, '-'), at: t1, nas_ip: '192.0.2.10', nas_port: 'Gi1/0/1', result: 'accept' }])
    expect(first).to.include({ mac, first_seen_at: t1, last_seen_at: t1, last_nas_ip: '192.0.2.10', last_nas_port: 'Gi1/0/1', last_auth_result: 'accept' })
    const t2 = '2026-11-02T10:00:00.000Z'
    const second = await call('recordSighting', [{ mac, at: t2, nas_ip: '192.0.2.11', nas_port: 'Gi1/0/2\u0000\n', result: 'reject' }], true)
    expect(second).to.include({ id: first.id, first_seen_at: t1, last_seen_at: t2, last_nas_ip: '192.0.2.11', last_nas_port: 'Gi1/0/2', last_auth_result: 'reject' })
    const t0 = '2026-10-30T10:00:00.000Z'
    const older = await call('recordSighting', [{ mac, at: t0, nas_ip: '192.0.2.99', nas_port: 'old', result: 'accept' }])
    expect(older).to.include({ first_seen_at: t0, last_seen_at: t2, last_nas_ip: '192.0.2.11', last_auth_result: 'reject' })
    // Not an address, not a NAS IP: dropped, not stored.
    const odd = await call('recordSighting', [{ mac, at: '2026-11-03T00:00:00.000Z', nas_ip: 'not-an-ip' }])
    expect(odd.last_nas_ip).to.equal('192.0.2.11')
    const r = await t.admin('POST', '/api/v1/nac-consumer/call', { body: { method: 'recordSighting', args: [{ mac: '01:00:5e:00:00:01' }] } })
    expectError(r, 422, 'MAC_GROUP_ADDRESS', 'mac')
  })

  it('sets profiling\'s verdict, shown read-only by the API', async () => {
    const e = await createEndpoint(t)
    const v = await call('setDeviceType', [e.id, { device_type: 'IP phone', confidence: 140, reason: 'CDP platform "Cisco IP Phone 8845"' }])
    expect(v).to.include({ device_type: 'IP phone', device_type_confidence: 100, device_type_reason: 'CDP platform "Cisco IP Phone 8845"' })
    expect((await t.admin('GET', `/api/v1/nac/endpoints/${e.id}`)).body).to.include({ device_type: 'IP phone', device_type_confidence: 100 })
    expect((await t.admin('GET', '/api/v1/nac/endpoints?device_type=ip%20PHONE')).body.items.map((x: any) => x.id)).to.deep.equal([e.id])
    const cleared = await call('setDeviceType', [e.id, { device_type: null, confidence: 50, reason: 'x' }])
    expect(cleared).to.include({ device_type: null, device_type_confidence: null, device_type_reason: null })
    expect(await call('setDeviceType', ['00000000-0000-4000-8000-000000000000', { device_type: 'x', confidence: 1, reason: null }])).to.equal(null)
  })

  it('documents the routes under the nac tag, with the import\'s CSV body and the export\'s download', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).filter(([p]) => p.startsWith('/api/v1/nac/'))
    expect(ops.map(([p]) => p).sort()).to.deep.equal(
      ['/api/v1/nac/endpoint-groups', '/api/v1/nac/endpoint-groups/{endpoint_group_id}', '/api/v1/nac/endpoint-groups/{endpoint_group_id}/references', '/api/v1/nac/endpoints', '/api/v1/nac/endpoints/export', '/api/v1/nac/endpoints/import', '/api/v1/nac/endpoints/{endpoint_id}',
        '/api/v1/nac/authorization-profiles', '/api/v1/nac/authorization-profiles/{profile_id}', '/api/v1/nac/policy/rules', '/api/v1/nac/policy/rules/reorder', '/api/v1/nac/policy/rules/{rule_id}', '/api/v1/nac/policy/test',
        '/api/v1/nac/endpoints/{endpoint_id}/coa', '/api/v1/nac/coa-requests', '/api/v1/nac/coa-nas/{device_id}',
        '/api/v1/nac/endpoints/{endpoint_id}/device-type', '/api/v1/nac/profiling-rules', '/api/v1/nac/profiling-rules/apply', '/api/v1/nac/profiling-rules/{rule_id}', '/api/v1/nac/sessions', '/api/v1/nac/sessions/export', '/api/v1/nac/sessions/{session_id}'].sort(),
    )
    const imp = doc.paths['/api/v1/nac/endpoints/import'].post
    expect(Object.keys(imp.requestBody.content)).to.deep.equal(['text/csv'])
    expect(Object.keys(doc.paths['/api/v1/nac/endpoints/export'].get.responses['200'].content)).to.include('text/csv')
    expect(Object.keys(doc.paths['/api/v1/nac/sessions/export'].get.responses['200'].content)).to.include('text/csv')
    for (const [, item] of ops) for (const op of Object.values(item)) expect(op.tags).to.deep.equal(['nac'])
    // The policy's schemas are documented by name.
    for (const name of ['AuthorizationProfileResponse', 'NacPolicyRuleResponse', 'NacConditionInput', 'NacPolicyTestRequest', 'NacPolicyTestResponse']) {
      expect(JSON.stringify(doc), name).to.include(`"${name}"`)
    }
  })
})
