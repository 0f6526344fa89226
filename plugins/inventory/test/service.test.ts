/**
 * The inventory service as another plugin sees it: through the ref exported
 * from index.ts, by a fixture plugin that depends on the inventory. Also: the
 * OpenAPI document, references from other plugins' tables, and the embedded
 * engine (cidr, GiST and recursive CTEs on PGlite).
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { Validator } from '@seriousme/openapi-schema-validator'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createDevice, createGroup, expectError, freshNet } from './helpers.js'

const CONSUMER = './plugins/inventory/test/fixtures/consumer'

async function call(t: TestApp, method: string, arg?: string, inTransaction = false): Promise<any> {
  const r = await t.admin('POST', '/api/v1/inventory-consumer/call', { body: { method, ...(arg === undefined ? {} : { arg }), in_transaction: inTransaction } })
  expect(r.status, r.text).to.equal(200)
  return r.body.result
}

describe('inventory: the service through its ref', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', CONSUMER], env: { DOCS_ENABLED: 'true' } })
  })
  after(async () => t?.stop())

  describe('findDeviceByAddress: the most specific enabled prefix', () => {
    it('picks the longest IPv4 prefix, skipping disabled devices', async () => {
      const net = freshNet()
      const wide = await createDevice(t, { address: `${net}.0/24` })
      const half = await createDevice(t, { address: `${net}.0/25` })
      const host = await createDevice(t, { address: `${net}.5` })
      const off = await createDevice(t, { address: `${net}.6`, enabled: false })
      const found = async (ip: string) => (await call(t, 'findDeviceByAddress', ip))?.name ?? null
      expect(await found(`${net}.5`)).to.equal(host.name)
      expect(await found(`${net}.6`)).to.equal(half.name)
      expect(await found(`${net}.7`)).to.equal(half.name)
      expect(await found(`${net}.200`)).to.equal(wide.name)
      expect(await found('192.0.2.1')).to.equal(null)
      // The mapped form of an IPv4 address is that address.
      expect(await found(`::ffff:${net}.5`)).to.equal(host.name)
      expect(await found(`::ffff:${net}.200`)).to.equal(wide.name)
      const full = await call(t, 'findDeviceByAddress', `${net}.5`)
      expect(full).to.deep.equal((await t.admin('GET', `/api/v1/devices/${host.id}`)).body)
      // Disable the host device: its address falls back to the /25.
      await t.admin('PUT', `/api/v1/devices/${host.id}`, { body: { enabled: false } })
      expect(await found(`${net}.5`)).to.equal(half.name)
      expect(off.enabled).to.equal(false)
    })

    it('picks the longest IPv6 prefix, and keeps the families apart', async () => {
      const site = await createDevice(t, { address: '2001:db8:100::/48' })
      const lan = await createDevice(t, { address: '2001:db8:100:1::/64' })
      const rtr = await createDevice(t, { address: '2001:db8:100:1::1' })
      const all4 = await createDevice(t, { address: '0.0.0.0/0' })
      const found = async (ip: string) => (await call(t, 'findDeviceByAddress', ip))?.name ?? null
      expect(await found('2001:db8:100:1::1')).to.equal(rtr.name)
      expect(await found('2001:DB8:100:1:0:0:0:2')).to.equal(lan.name)
      expect(await found('2001:db8:100:ff::1')).to.equal(site.name)
      expect(await found('2001:db8:999::1')).to.equal(null)
      // 0.0.0.0/0 holds every IPv4 client and no IPv6 one.
      expect(await found('198.51.100.77')).to.equal(all4.name)
      expect(await found('::ffff:198.51.100.77')).to.equal(all4.name)
      await t.admin('DELETE', `/api/v1/devices/${all4.id}`)
    })

    it('finds nothing for what is not one address', async () => {
      for (const ip of ['', 'nas1', '10.0.0.0/8', '10.0.0.300']) expect(await call(t, 'findDeviceByAddress', ip)).to.equal(null)
    })
  })

  describe('groups: ancestry, membership, descendants', () => {
    it('walks three levels up and down', async () => {
      const a = await createGroup(t)
      const b = await createGroup(t, { parent_id: a.id })
      const c = await createGroup(t, { parent_id: b.id })
      const c2 = await createGroup(t, { parent_id: b.id })
      const d = await createDevice(t, { device_group_id: c.id })
      const loose = await createDevice(t)
      expect(await call(t, 'deviceGroupIds', d.id)).to.deep.equal([c.id, b.id, a.id])
      expect(await call(t, 'deviceGroupIds', loose.id)).to.deep.equal([])
      expect(await call(t, 'groupAncestry', c.id)).to.deep.equal([c.id, b.id, a.id])
      expect(await call(t, 'groupAncestry', a.id)).to.deep.equal([a.id])
      const down = (await call(t, 'groupDescendants', a.id)) as string[]
      expect(down.slice(0, 2)).to.deep.equal([a.id, b.id])
      expect(down.slice(2).sort()).to.deep.equal([c.id, c2.id].sort())
      expect(await call(t, 'groupDescendants', c.id)).to.deep.equal([c.id])
      // Membership follows a move of the tree.
      const z = await createGroup(t)
      await t.admin('PUT', `/api/v1/device-groups/${b.id}`, { body: { parent_id: z.id } })
      expect(await call(t, 'deviceGroupIds', d.id)).to.deep.equal([c.id, b.id, z.id])
    })

    it('answers empty for unknown or malformed ids', async () => {
      for (const m of ['groupAncestry', 'deviceGroupIds', 'groupDescendants']) {
        expect(await call(t, m, randomUUID())).to.deep.equal([])
        expect(await call(t, m, 'not-a-uuid')).to.deep.equal([])
      }
      expect(await call(t, 'getDevice', randomUUID())).to.equal(null)
      expect(await call(t, 'getGroup', 'nope')).to.equal(null)
    })
  })

  describe('reads and secrets', () => {
    it('gets and lists devices and groups as the API shows them, ordered by name', async () => {
      const g = await createGroup(t, { description: 'core' })
      const d = await createDevice(t, { device_group_id: g.id, vendor: 'Arista' })
      expect(await call(t, 'getDevice', d.id)).to.deep.equal(d)
      const { device_count: _d, child_count: _c, ...group } = g
      expect(await call(t, 'getGroup', g.id)).to.deep.equal(group)
      const devices = (await call(t, 'listDevices')) as { name: string }[]
      expect(devices.map((x) => x.name)).to.deep.equal(devices.map((x) => x.name).sort())
      expect(devices.find((x: any) => x.id === d.id)).to.deep.equal(d)
      const groups = (await call(t, 'listGroups', undefined, true)) as { id: string }[]
      expect(groups.find((x) => x.id === g.id)).to.deep.equal(group)
      expect(await call(t, 'listDevices', undefined, true)).to.deep.equal(devices)
    })

    it('opens the sealed secrets for renderers, and only there', async () => {
      const d = await createDevice(t, { tacacs_key: 'Tac-Key-1', radius_secret: 'Radius Secret 2' })
      expect(await call(t, 'deviceSecrets', d.id)).to.deep.equal({ tacacs_key: 'Tac-Key-1', radius_secret: 'Radius Secret 2' })
      expect(await call(t, 'deviceSecrets', d.id, true)).to.deep.equal({ tacacs_key: 'Tac-Key-1', radius_secret: 'Radius Secret 2' })
      await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { radius_secret: null } })
      expect(await call(t, 'deviceSecrets', d.id)).to.deep.equal({ tacacs_key: 'Tac-Key-1', radius_secret: null })
      expect(await call(t, 'deviceSecrets', randomUUID())).to.deep.equal({ tacacs_key: null, radius_secret: null })
    })
  })

  describe('references from other plugins', () => {
    it('answers 409 on deleting a device or group a foreign key still references (a schema from before the reference guards)', async () => {
      const knex = t.app.db.knex
      // Plugins reference devices through the inventory's guards (the AAA policy's 409s are tested
      // with it); a foreign key an older or out-of-tree schema still points here gets a 409 too.
      await knex.schema.createTable('probe_rules', (tb) => {
        tb.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
        tb.uuid('device_id').references('id').inTable('inventory_devices')
        tb.uuid('device_group_id').references('id').inTable('inventory_device_groups')
      })
      const g = await createGroup(t)
      const d = await createDevice(t)
      await knex('probe_rules').insert([{ device_id: d.id }, { device_group_id: g.id }])
      expectError(await t.admin('DELETE', `/api/v1/devices/${d.id}`), 409, 'DEVICE_IN_USE', 'device_id')
      expectError(await t.admin('DELETE', `/api/v1/device-groups/${g.id}`), 409, 'GROUP_IN_USE', 'device_group_id')
      expect((await t.admin('GET', `/api/v1/devices/${d.id}`)).status).to.equal(200)
      await knex.schema.dropTable('probe_rules')
    })
  })

  it('publishes its routes in a valid OpenAPI document, with the overlap rule described', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body
    const result = await new Validator().validate(doc)
    expect(result.valid, JSON.stringify(result.errors, null, 2)).to.equal(true)
    for (const [m, p] of [['get', '/api/v1/devices'], ['post', '/api/v1/devices'], ['get', '/api/v1/devices/{device_id}'], ['put', '/api/v1/devices/{device_id}'], ['delete', '/api/v1/devices/{device_id}'], ['get', '/api/v1/device-groups'], ['post', '/api/v1/device-groups'], ['get', '/api/v1/device-groups/{device_group_id}'], ['put', '/api/v1/device-groups/{device_group_id}'], ['delete', '/api/v1/device-groups/{device_group_id}']]) {
      expect(doc.paths[p]?.[m], `${m} ${p}`).to.be.an('object')
    }
    for (const c of ['DeviceCreate', 'DeviceUpdate', 'DeviceResponse', 'DeviceListResponse', 'DeviceGroupCreate', 'DeviceGroupUpdate', 'DeviceGroupResponse', 'DeviceGroupListResponse']) {
      expect(doc.components.schemas[c], c).to.be.an('object')
    }
    expect(doc.paths['/api/v1/devices'].post.description).to.include('most specific')
    expect(JSON.stringify(doc.components.schemas.DeviceCreate)).to.include('writeOnly')
  })
})

// Pinned to the embedded engine: in the embedded run only, not once more in the PostgreSQL run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('inventory: on the embedded engine', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ engine: 'embedded', plugins: ['inventory', CONSUMER] })
  })
  after(async () => t?.stop())

  it('migrates, enforces the overlap rule and finds the most specific device', async () => {
    const g = await createGroup(t)
    const sub = await createGroup(t, { parent_id: g.id })
    const wide = await createDevice(t, { address: '10.20.0.0/16', device_group_id: sub.id, tacacs_key: 'k-1' })
    const host = await createDevice(t, { address: '10.20.1.1' })
    expectError(await t.admin('POST', '/api/v1/devices', { body: { name: 'dup', address: '10.20.0.0/16' } }), 409, 'ADDRESS_TAKEN', 'address')
    expect((await call(t, 'findDeviceByAddress', '10.20.1.1')).name).to.equal(host.name)
    expect((await call(t, 'findDeviceByAddress', '::ffff:10.20.9.9')).name).to.equal(wide.name)
    expect(await call(t, 'deviceGroupIds', wide.id)).to.deep.equal([sub.id, g.id])
    expect(await call(t, 'deviceSecrets', wide.id, true)).to.deep.equal({ tacacs_key: 'k-1', radius_secret: null })
    const r = await t.admin('GET', `/api/v1/devices?device_group_id=${g.id}&include_subgroups=true&address_contains=10.20.1.1`)
    expect(r.body.items.map((d: any) => d.id)).to.deep.equal([wide.id])
    expectError(await t.admin('PUT', `/api/v1/device-groups/${g.id}`, { body: { parent_id: sub.id } }), 422, 'GROUP_CYCLE', 'parent_id')
  })
})
