/** /api/v1/nac/endpoints: CRUD, MAC notations through the API, refusals that change nothing, owners, lists, audit. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, createEndpoint, createGroup, createUser, expectError, freshMac, snapshot, uniq } from './helpers.js'

const FIELDS = [
  'id', 'mac', 'locally_administered', 'vendor', 'description', 'owner_user_id', 'owner_username', 'endpoint_group_id', 'endpoint_group_name', 'first_seen_at', 'last_seen_at',
  'last_nas_ip', 'last_nas_port', 'last_auth_result', 'device_type', 'device_type_confidence', 'device_type_reason', 'created_at', 'updated_at',
]

describe('nac: endpoints API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['nac'] })
  })
  after(async () => t?.stop())

  it('creates from any notation, stores the canonical form and the IEEE vendor', async () => {
    const g = await createGroup(t)
    const u = await createUser(t)
    const r = await t.admin('POST', '/api/v1/nac/endpoints', { body: { mac: ' 0000.0C9F.F001 ', description: 'lobby printer', endpoint_group_id: g.id, owner_user_id: u.id } })
    expect(r.status, r.text).to.equal(201)
    expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
    expect(r.body).to.include({ mac: '00:00:0c:9f:f0:01', locally_administered: false, description: 'lobby printer', endpoint_group_id: g.id, endpoint_group_name: g.name, owner_user_id: u.id, owner_username: u.username })
    expect(r.body.vendor).to.match(/^Cisco/)
    for (const k of ['first_seen_at', 'last_seen_at', 'last_nas_ip', 'last_nas_port', 'last_auth_result', 'device_type', 'device_type_confidence', 'device_type_reason']) expect(r.body[k], k).to.equal(null)
    expect((await t.admin('GET', `/api/v1/nac/endpoints/${r.body.id}`)).body).to.deep.equal(r.body)
    const audit = await auditRows(t, r.body.id)
    expect(audit.map((a) => a.action)).to.deep.equal(['endpoint.create'])
    expect(audit[0].after.mac).to.equal('00:00:0c:9f:f0:01')
  })

  it('keeps one endpoint per MAC whatever the notation: 409 ENDPOINT_MAC_TAKEN', async () => {
    const e = await createEndpoint(t)
    const hex = e.mac.replace(/:/g, '')
    for (const mac of [e.mac.toUpperCase(), e.mac.replace(/:/g, '-'), `${hex.slice(0, 4)}.${hex.slice(4, 8)}.${hex.slice(8)}`, hex]) {
      expectError(await t.admin('POST', '/api/v1/nac/endpoints', { body: { mac } }), 409, 'ENDPOINT_MAC_TAKEN', 'mac')
    }
    const other = await createEndpoint(t)
    expectError(await t.admin('PUT', `/api/v1/nac/endpoints/${other.id}`, { body: { mac: hex.toUpperCase() } }), 409, 'ENDPOINT_MAC_TAKEN', 'mac')
    // Its own MAC in another notation is no clash.
    expect((await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { mac: hex } })).status).to.equal(200)
  })

  it('refuses bad MACs, oversized and control-character input, read-only fields, with the field named, and changes nothing', async () => {
    const g = await createGroup(t)
    const e = await createEndpoint(t, { description: 'kept' })
    const before = await snapshot(t)
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ mac: 'not-a-mac' }, 422, 'MAC_INVALID', 'mac'],
      [{ mac: '00:1b:63:84:45' }, 422, 'MAC_INVALID', 'mac'],
      [{ mac: '00:1b-63:84:45:e6' }, 422, 'MAC_INVALID', 'mac'],
      [{ mac: '00:1b:63:84:45:e6\n' }, 422, 'MAC_INVALID', 'mac'],
      [{ mac: '\u202e00:1b:63:84:45:e6' }, 422, 'MAC_INVALID', 'mac'],
      [{ mac: 'ff:ff:ff:ff:ff:ff' }, 422, 'MAC_GROUP_ADDRESS', 'mac'],
      [{ mac: '01:00:5e:00:00:fb' }, 422, 'MAC_GROUP_ADDRESS', 'mac'],
      [{ mac: '0000.0000.0000' }, 422, 'MAC_ZERO', 'mac'],
      [{ mac: 'a'.repeat(65) }, 422, 'VALIDATION_FAILED', 'mac'],
      [{ mac: '' }, 422, 'VALIDATION_FAILED', 'mac'],
      [{ mac: 12 }, 422, 'VALIDATION_FAILED', 'mac'],
      [{ description: 'x' }, 422, 'FIELD_REQUIRED', 'mac'],
      [{ mac: freshMac(), description: 'd'.repeat(501) }, 422, 'VALIDATION_FAILED', 'description'],
      [{ mac: freshMac(), description: 'bell\u0007' }, 422, 'VALIDATION_FAILED', 'description'],
      [{ mac: freshMac(), description: 'line\u2028' + '\u0085' }, 422, 'VALIDATION_FAILED', 'description'],
      [{ mac: freshMac(), vendor: 'Acme' }, 422, 'UNKNOWN_FIELD', 'vendor'],
      [{ mac: freshMac(), device_type: 'printer' }, 422, 'UNKNOWN_FIELD', 'device_type'],
      [{ mac: freshMac(), last_seen_at: new Date().toISOString() }, 422, 'UNKNOWN_FIELD', 'last_seen_at'],
      [{ mac: freshMac(), endpoint_group_id: 'lobby' }, 422, 'VALIDATION_FAILED', 'endpoint_group_id'],
      [{ mac: freshMac(), endpoint_group_id: randomUUID() }, 422, 'REFERENCE_NOT_FOUND', 'endpoint_group_id'],
      [{ mac: freshMac(), owner_user_id: randomUUID() }, 422, 'REFERENCE_NOT_FOUND', 'owner_user_id'],
      [{ mac: e.mac.toUpperCase() }, 409, 'ENDPOINT_MAC_TAKEN', 'mac'],
    ]
    for (const [body, status, code, field] of cases) expectError(await t.admin('POST', '/api/v1/nac/endpoints', { body }), status, code, field)
    // PUT: the same, but its own MAC is no clash and nothing is required.
    for (const [body, status, code, field] of cases.filter(([, , c]) => c !== 'FIELD_REQUIRED' && c !== 'ENDPOINT_MAC_TAKEN')) {
      expectError(await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { ...body, endpoint_group_id: body.endpoint_group_id ?? g.id } }), status, code, field)
    }
    expect(await snapshot(t)).to.equal(before)
    expect((await auditRows(t, e.id)).map((a) => a.action)).to.deep.equal(['endpoint.create'])
  })

  it('lets exactly one of concurrent creates of a MAC (in different notations) win; a group delete racing an insert into it never orphans it', async () => {
    const mac = freshMac()
    const hex = mac.replace(/:/g, '')
    const forms = [mac, mac.toUpperCase(), mac.replace(/:/g, '-'), hex, `${hex.slice(0, 4)}.${hex.slice(4, 8)}.${hex.slice(8)}`, `${hex.slice(0, 6)}-${hex.slice(6)}`]
    const answers = await Promise.all(forms.map((m) => t.admin('POST', '/api/v1/nac/endpoints', { body: { mac: m } })))
    expect(answers.filter((a) => a.status === 201)).to.have.length(1)
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 409, 'ENDPOINT_MAC_TAKEN', 'mac')
    for (let i = 0; i < 5; i++) {
      const g = await createGroup(t)
      const [ins, del] = await Promise.all([
        t.admin('POST', '/api/v1/nac/endpoints', { body: { mac: freshMac(), endpoint_group_id: g.id } }),
        t.admin('DELETE', `/api/v1/nac/endpoint-groups/${g.id}`),
      ])
      // Either the endpoint landed first (the delete is refused) or the group went first (the insert is refused).
      if (ins.status === 201) expectError(del, 409, 'GROUP_IN_USE', 'endpoint_group_id')
      else {
        expect(del.status).to.equal(204)
        expectError(ins, 422, 'REFERENCE_NOT_FOUND', 'endpoint_group_id')
      }
    }
  })

  it('answers 404 naming endpoint_id, 422 for a malformed id', async () => {
    for (const m of ['GET', 'PUT', 'DELETE']) {
      const o = m === 'PUT' ? { body: {} } : {}
      expectError(await t.admin(m, `/api/v1/nac/endpoints/${randomUUID()}`, o), 404, 'NOT_FOUND', 'endpoint_id')
      expectError(await t.admin(m, '/api/v1/nac/endpoints/nope', o), 422, 'VALIDATION_FAILED', 'endpoint_id')
    }
  })

  it('changes only the fields given, re-derives the vendor with the MAC, audits before and after', async () => {
    const g = await createGroup(t)
    const e = await createEndpoint(t, { description: 'desk phone', endpoint_group_id: g.id })
    const r = await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { mac: 'B8-27-EB-00-00-42' } })
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.include({ mac: 'b8:27:eb:00:00:42', description: 'desk phone', endpoint_group_id: g.id })
    expect(r.body.vendor).to.match(/Raspberry Pi/)
    const cleared = await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { endpoint_group_id: null, description: null } })
    expect(cleared.body).to.include({ endpoint_group_id: null, endpoint_group_name: null, description: null })
    const rand = await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { mac: 'DA:A1:19:00:00:42' } })
    expect(rand.body).to.include({ locally_administered: true, vendor: null })
    const audit = await auditRows(t, e.id)
    expect(audit.map((a) => a.action)).to.deep.equal(['endpoint.create', 'endpoint.update', 'endpoint.update', 'endpoint.update'])
    expect(audit[1].before.mac).to.equal(e.mac)
    expect(audit[1].after.mac).to.equal('b8:27:eb:00:00:42')
  })

  it('deletes, audited with the record before', async () => {
    const e = await createEndpoint(t)
    expect((await t.admin('DELETE', `/api/v1/nac/endpoints/${e.id}`)).status).to.equal(204)
    expectError(await t.admin('GET', `/api/v1/nac/endpoints/${e.id}`), 404, 'NOT_FOUND', 'endpoint_id')
    const audit = await auditRows(t, e.id)
    expect(audit.map((a) => a.action)).to.deep.equal(['endpoint.create', 'endpoint.delete'])
    expect(audit[1].before.mac).to.equal(e.mac)
  })

  describe('owners: kernel users through the reference contract', () => {
    it('clears the owner when the user is deleted (the endpoint stays), audited', async () => {
      const u = await createUser(t)
      const a = await createEndpoint(t, { owner_user_id: u.id })
      const b = await createEndpoint(t, { owner_user_id: u.id })
      const other = await createEndpoint(t)
      expect((await t.admin('DELETE', `/api/v1/users/${u.id}`)).status).to.equal(204)
      for (const e of [a, b]) {
        const got = (await t.admin('GET', `/api/v1/nac/endpoints/${e.id}`)).body
        expect(got).to.include({ owner_user_id: null, owner_username: null, mac: e.mac })
        const audit = await auditRows(t, e.id)
        expect(audit.map((x) => x.action)).to.deep.equal(['endpoint.create', 'endpoint.owner_cleared'])
        expect(audit[1].before.owner_user_id).to.equal(u.id)
        expect(audit[1].after.owner_user_id).to.equal(null)
      }
      expect((await auditRows(t, other.id)).map((x) => x.action)).to.deep.equal(['endpoint.create'])
    })

    it('shows the owner\'s current username after a rename, and filters by owner', async () => {
      const u = await createUser(t)
      const e = await createEndpoint(t, { owner_user_id: u.id })
      await createEndpoint(t)
      const renamed = uniq('renamed')
      expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { username: renamed } })).status).to.equal(200)
      expect((await t.admin('GET', `/api/v1/nac/endpoints/${e.id}`)).body.owner_username).to.equal(renamed)
      const list = await t.admin('GET', `/api/v1/nac/endpoints?owner_user_id=${u.id}`)
      expect(list.body.items.map((x: any) => x.id)).to.deep.equal([e.id])
      expect(list.body.items[0].owner_username).to.equal(renamed)
    })
  })

  describe('lists', () => {
    let g: any
    const made: any[] = []
    before(async () => {
      g = await createGroup(t)
      made.push(await createEndpoint(t, { mac: 'b8:27:eb:11:22:33', description: 'sensor in lab 4', endpoint_group_id: g.id }))
      made.push(await createEndpoint(t, { mac: '00-1B-63-AA-BB-01', description: 'designer laptop', endpoint_group_id: g.id }))
      made.push(await createEndpoint(t, { mac: 'dca6.32aa.bb02', description: 'sensor in lab 5' }))
    })

    it('paginates with the spec\'s conventions', async () => {
      const r = await t.admin('GET', `/api/v1/nac/endpoints?endpoint_group_id=${g.id}&per_page=1&page=2&sort_by=mac&sort_order=desc`)
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.include({ total_by_filter: 2, page: 2, per_page: 1, pages: 2 })
      expect(r.body.total).to.be.at.least(3)
      expect(r.body.items.map((x: any) => x.mac)).to.deep.equal(['00:1b:63:aa:bb:01'])
      expectError(await t.admin('GET', '/api/v1/nac/endpoints?sort_by=owner'), 422, 'VALIDATION_FAILED', 'sort_by')
      expectError(await t.admin('GET', '/api/v1/nac/endpoints?per_page=101'), 422, 'VALIDATION_FAILED', 'per_page')
      expectError(await t.admin('GET', '/api/v1/nac/endpoints?colour=red'), 422, 'UNKNOWN_FIELD', 'colour')
    })

    it('filters by group, grouping, vendor prefix and exact MAC in any notation', async () => {
      const ids = async (q: string) => (await t.admin('GET', `/api/v1/nac/endpoints?per_page=100&${q}`)).body.items.map((x: any) => x.id).sort()
      expect(await ids(`endpoint_group_id=${g.id}`)).to.deep.equal([made[0].id, made[1].id].sort())
      expect(await ids('vendor=raspberry%20pi')).to.include.members([made[0].id, made[2].id])
      expect(await ids('vendor=apple&search=designer')).to.deep.equal([made[1].id])
      expect(await ids('mac=001B.63AA.BB01')).to.deep.equal([made[1].id])
      expect(await ids('grouped=false&search=lab%205')).to.deep.equal([made[2].id])
      expect(await ids(`grouped=true&search=lab`)).to.deep.equal([made[0].id])
      expectError(await t.admin('GET', '/api/v1/nac/endpoints?mac=ff:ff:ff:ff:ff:ff'), 422, 'MAC_GROUP_ADDRESS', 'mac')
      expectError(await t.admin('GET', '/api/v1/nac/endpoints?mac=zz'), 422, 'MAC_INVALID', 'mac')
    })

    it('searches MAC, description and vendor; a MAC fragment in another notation too; wildcards are literal', async () => {
      const macs = async (search: string) => (await t.admin('GET', `/api/v1/nac/endpoints?per_page=100&search=${encodeURIComponent(search)}`)).body.items.map((x: any) => x.mac)
      expect(await macs('AA-BB-01')).to.deep.equal(['00:1b:63:aa:bb:01'])
      expect(await macs('dca632aabb02')).to.deep.equal(['dc:a6:32:aa:bb:02'])
      expect(await macs('b8:27:eb:11')).to.deep.equal(['b8:27:eb:11:22:33'])
      expect(await macs('DESIGNER')).to.deep.equal(['00:1b:63:aa:bb:01'])
      expect(await macs('sensor in lab _')).to.deep.equal([])
      expect(await macs('%')).to.deep.equal([])
    })
  })
})
