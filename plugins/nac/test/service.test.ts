/**
 * The NAC service as another plugin (the policy's renderer, the profiler, the
 * ingester) sees it: through the ref exported from index.ts, by a fixture
 * plugin that depends on nac. Also: the plugin in the OpenAPI document.
 */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createHmac } from 'node:crypto'
import { portalSignature } from '../services/portal-redirect.js'
import { createEndpoint, createGroup, createUser, expectError, freshMac, waitFor } from './helpers.js'

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

  describe('the captive portal hooks', () => {
    const changes = async () => (await t.admin('POST', '/api/v1/nac-consumer/changes')).body.changes as any[]
    const raw = (method: string, args: unknown[], inTransaction = false) => t.admin('POST', '/api/v1/nac-consumer/call', { body: { method, args, in_transaction: inTransaction } })

    it('registerEndpoint creates an unknown MAC in the group with its owner, emits the change once after commit, and sends no CoA', async () => {
      await changes()
      const g = await createGroup(t)
      const owner = await createUser(t)
      const mac = freshMac()
      const e = await call('registerEndpoint', [{ mac: mac.toUpperCase().replace(/:/g, '-'), endpoint_group_id: g.id, owner_user_id: owner.id, description: 'guest phone\n' }])
      expect(e).to.include({ mac, endpoint_group_id: g.id, owner_user_id: owner.id, description: 'guest phone' })
      expect((await t.admin('GET', `/api/v1/nac/endpoints/${e.id}`)).body).to.include({ endpoint_group_id: g.id, owner_user_id: owner.id })
      const got = await changes()
      expect(got).to.deep.equal([{ endpoint_id: e.id, mac, cause: 'admin', before: { device_type: null, endpoint_group_id: null }, after: { device_type: null, endpoint_group_id: g.id }, last_nas_ip: null, last_nas_port: null }])
      // Registered again into the same group: nothing changed, nothing emitted; the owner and description stay when not given.
      const again = await call('registerEndpoint', [{ mac, endpoint_group_id: g.id }])
      expect(again).to.include({ id: e.id, owner_user_id: owner.id, description: 'guest phone' })
      expect(await changes()).to.deep.equal([])
      expect(await t.app.db.knex('nac_coa_requests').where({ endpoint_id: e.id }).count({ n: '*' }).first()).to.deep.include({ n: 0 })
    })

    it('registerEndpoint moves a known endpoint (static membership), inside the caller\'s transaction: the change comes after its commit', async () => {
      await changes()
      const [a, b] = [await createGroup(t), await createGroup(t)]
      const e = await createEndpoint(t, { endpoint_group_id: a.id })
      const moved = await call('registerEndpoint', [{ mac: e.mac, endpoint_group_id: b.id, owner_user_id: null }], true)
      expect(moved).to.include({ id: e.id, endpoint_group_id: b.id, owner_user_id: null })
      const got = await waitFor(async () => (await changes()).filter((c) => c.endpoint_id === e.id).at(0), 'the change')
      expect(got).to.include({ cause: 'admin' })
      expect(got.before.endpoint_group_id).to.equal(a.id)
      expect(got.after.endpoint_group_id).to.equal(b.id)
      expect((await t.app.db.knex('nac_endpoints').where({ id: e.id }).first('endpoint_group_placed'))!.endpoint_group_placed).to.equal(false)
    })

    it('registerEndpoint refuses a bad MAC, an unknown group or owner with the API\'s 422, changing nothing', async () => {
      await changes()
      const g = await createGroup(t)
      const mac = freshMac()
      expectError(await raw('registerEndpoint', [{ mac: '01:00:5e:00:00:01', endpoint_group_id: g.id }]), 422, 'MAC_GROUP_ADDRESS', 'mac')
      expectError(await raw('registerEndpoint', [{ mac, endpoint_group_id: '00000000-0000-4000-8000-000000000000' }]), 422, 'REFERENCE_NOT_FOUND', 'endpoint_group_id')
      expectError(await raw('registerEndpoint', [{ mac, endpoint_group_id: 'nonsense' }]), 422, 'VALIDATION_FAILED', 'endpoint_group_id')
      const bad = await raw('registerEndpoint', [{ mac, endpoint_group_id: g.id, owner_user_id: '00000000-0000-4000-8000-000000000000' }], true)
      expect(bad.status).to.equal(422)
      expect(bad.body.field).to.equal('owner_user_id')
      expect(await call('findEndpointByMac', [mac])).to.equal(null)
      expect(await changes()).to.deep.equal([])
    })

    it('releaseEndpoint takes the endpoint out of that group only, keeping the owner; another group or no endpoint: unchanged', async () => {
      await changes()
      const [a, b] = [await createGroup(t), await createGroup(t)]
      const owner = await createUser(t)
      const e = await call('registerEndpoint', [{ mac: freshMac(), endpoint_group_id: a.id, owner_user_id: owner.id }])
      await changes()
      const other = await call('releaseEndpoint', [e.id, b.id])
      expect(other).to.include({ id: e.id, endpoint_group_id: a.id })
      expect(await changes()).to.deep.equal([])
      const released = await call('releaseEndpoint', [e.id, a.id.toUpperCase()])
      expect(released).to.include({ id: e.id, endpoint_group_id: null, owner_user_id: owner.id })
      const got = await changes()
      expect(got).to.have.length(1)
      expect(got[0]).to.deep.include({ endpoint_id: e.id, cause: 'admin', before: { device_type: null, endpoint_group_id: a.id }, after: { device_type: null, endpoint_group_id: null } })
      expect(await call('releaseEndpoint', [e.id, a.id])).to.include({ endpoint_group_id: null })
      expect(await changes()).to.deep.equal([])
      expect(await call('releaseEndpoint', ['00000000-0000-4000-8000-000000000000', a.id])).to.equal(null)
      expect(await call('releaseEndpoint', ['nonsense', a.id])).to.equal(null)
    })

    it('verifyPortalRedirect accepts the signature of mac|nas|ssid under the platform key, refuses any change, and says when nothing was signed', async () => {
      const key = 'K'.repeat(43)
      expect((await t.admin('PUT', '/api/v1/settings/nac.portal_redirect_key', { body: { value: key } })).status).to.equal(200)
      const q = { mac: 'aa:bb:cc:00:11:22', nas: '192.0.2.7', ssid: 'aa-bb-cc-dd-ee-ff:Guest WiFi' }
      const sig = portalSignature(key, q.mac, q.nas, q.ssid)
      expect(sig).to.equal(createHmac('sha1', key).update('aa:bb:cc:00:11:22|192.0.2.7|aa-bb-cc-dd-ee-ff:Guest WiFi').digest('hex'))
      expect(await call('verifyPortalRedirect', [{ ...q, sig }])).to.deep.equal({ mac: q.mac, nas_ip: '192.0.2.7', ssid: 'Guest WiFi', signed: true })
      expect(await call('verifyPortalRedirect', [{ ...q, sig: sig.toUpperCase() }]), 'hex in either case').to.include({ signed: true })
      for (const [what, bad] of [
        ['another MAC', { ...q, mac: 'aa:bb:cc:00:11:23', sig }],
        ['another NAS', { ...q, nas: '192.0.2.8', sig }],
        ['another SSID', { ...q, ssid: 'aa-bb-cc-dd-ee-ff:Staff', sig }],
        ['no NAS', { mac: q.mac, ssid: q.ssid, sig }],
        ['a truncated sig', { ...q, sig: sig.slice(0, 39) }],
        ['an empty sig', { ...q, sig: '' }],
        ['another key', { ...q, sig: portalSignature('L'.repeat(43), q.mac, q.nas, q.ssid) }],
        ['the MAC in another notation', { ...q, mac: 'AA-BB-CC-00-11-22', sig }],
      ] as const) expect(await call('verifyPortalRedirect', [bad]), what).to.equal(null)
      // Unsigned (an Aruba role redirect): the values, said to be unsigned; a MAC in any notation.
      expect(await call('verifyPortalRedirect', [{ mac: 'AABB.CC00.1122', nas: 'not-an-ip', ssid: 'Guest' }])).to.deep.equal({ mac: q.mac, nas_ip: null, ssid: 'Guest', signed: false })
      expect(await call('verifyPortalRedirect', [{ mac: '001122334455', ssid: '00-11-22-33-44-55' }])).to.deep.equal({ mac: '00:11:22:33:44:55', nas_ip: null, ssid: null, signed: false })
      expect(await call('verifyPortalRedirect', [{ mac: 'not-a-mac', sig }])).to.equal(null)
      expect(await call('verifyPortalRedirect', [{ nas: q.nas }])).to.equal(null)
      // Empty parameters sign as empty: a wired port without NAS-IP-Address or SSID.
      expect(await call('verifyPortalRedirect', [{ mac: q.mac, nas: '', ssid: '', sig: portalSignature(key, q.mac, '', '') }])).to.deep.equal({ mac: q.mac, nas_ip: null, ssid: null, signed: true })
      // A new key: what the old one signed is refused.
      expect((await t.admin('PUT', '/api/v1/settings/nac.portal_redirect_key', { body: { value: 'M'.repeat(43) } })).status).to.equal(200)
      expect(await call('verifyPortalRedirect', [{ ...q, sig }])).to.equal(null)
      // The key is never shown.
      expect(JSON.stringify((await t.admin('GET', '/api/v1/settings/nac.portal_redirect_key')).body)).to.not.include('MMMM')
    })
  })

  it('documents the routes under the nac tag, with the import\'s CSV body and the export\'s download', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).filter(([p]) => p.startsWith('/api/v1/nac/'))
    expect(ops.map(([p]) => p).sort()).to.deep.equal(
      ['/api/v1/nac/endpoint-groups', '/api/v1/nac/endpoint-groups/{endpoint_group_id}', '/api/v1/nac/endpoint-groups/{endpoint_group_id}/references', '/api/v1/nac/endpoints', '/api/v1/nac/endpoints/export', '/api/v1/nac/endpoints/import', '/api/v1/nac/endpoints/{endpoint_id}',
        '/api/v1/nac/authorization-profiles', '/api/v1/nac/authorization-profiles/{profile_id}', '/api/v1/nac/authorization-profiles/{profile_id}/references', '/api/v1/nac/policy/rules', '/api/v1/nac/policy/rules/reorder', '/api/v1/nac/policy/rules/{rule_id}', '/api/v1/nac/policy/test', '/api/v1/nac/policy/impact',
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
