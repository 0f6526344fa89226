/** /api/v1/devices: CRUD, strict bodies, addresses and the overlap rule, write-only sealed secrets, lists, audit, permissions. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, createDevice, createGroup, expectError, freshNet, uniq } from './helpers.js'

const FIELDS = ['id', 'name', 'address', 'vendor', 'model', 'description', 'device_group_id', 'enabled', 'has_tacacs_key', 'has_radius_secret', 'created_at', 'updated_at']
const TACACS_KEY = 'Tac-Key!With spaces#42'
const RADIUS_SECRET = "radius'secret{with}braces%1"

describe('inventory: devices API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory'] })
  })
  after(async () => t?.stop())

  describe('create and read', () => {
    it('creates a device with defaults, the address canonical, the keys never answered', async () => {
      const name = uniq('core-sw')
      const r = await t.admin('POST', '/api/v1/devices', {
        body: { name, address: '2001:0DB8:0:0:0:0:0:0/64', vendor: 'Cisco', model: '  ', tacacs_key: TACACS_KEY, radius_secret: RADIUS_SECRET },
      })
      expect(r.status, r.text).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, address: '2001:db8::/64', vendor: 'Cisco', model: null, description: null, device_group_id: null, enabled: true })
      expect(r.body).to.include({ has_tacacs_key: true, has_radius_secret: true })
      expect(r.text).to.not.include(TACACS_KEY).and.not.include(RADIUS_SECRET)
      const got = await t.admin('GET', `/api/v1/devices/${r.body.id}`)
      expect(got.status).to.equal(200)
      expect(got.body).to.deep.equal(r.body)
      expect(got.text).to.not.include(TACACS_KEY).and.not.match(/v[12]\./)
    })

    it('stores a bare address as a single host, and the cidr column agrees with the text', async () => {
      const net = freshNet()
      const d = await createDevice(t, { address: `${net}.7` })
      expect(d.address).to.equal(`${net}.7/32`)
      const v6 = await createDevice(t, { address: '2001:db8:aa::1' })
      expect(v6.address).to.equal('2001:db8:aa::1/128')
      const mapped = await createDevice(t, { address: `::ffff:${net}.8` })
      expect(mapped.address).to.equal(`${net}.8/32`)
      for (const dev of [d, v6, mapped]) {
        const row = await t.app.db.knex('inventory_devices').where({ id: dev.id }).first({ c: t.app.db.knex.raw('address_cidr::text') }, 'address')
        expect(row?.c).to.equal(row?.address)
      }
    })

    it('answers 404 naming device_id for an unknown id, 422 for a malformed one', async () => {
      for (const m of ['GET', 'PUT', 'DELETE']) {
        const o = m === 'PUT' ? { body: {} } : {}
        expectError(await t.admin(m, `/api/v1/devices/${randomUUID()}`, o), 404, 'NOT_FOUND', 'device_id')
        expectError(await t.admin(m, '/api/v1/devices/not-a-uuid', o), 422, 'VALIDATION_FAILED', 'device_id')
      }
    })

    it('refuses an unknown group, naming device_group_id', async () => {
      const r = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address: `${freshNet()}.1`, device_group_id: randomUUID() } })
      expectError(r, 422, 'REFERENCE_NOT_FOUND', 'device_group_id')
    })
  })

  describe('strict bodies', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['an unknown field', { name: 'sw1', address: '10.9.9.9', colour: 'red' }, 'UNKNOWN_FIELD', 'colour'],
      ['has_tacacs_key as input', { name: 'sw1', address: '10.9.9.9', has_tacacs_key: true }, 'UNKNOWN_FIELD', 'has_tacacs_key'],
      ['no name', { address: '10.9.9.9' }, 'FIELD_REQUIRED', 'name'],
      ['no address', { name: 'sw1' }, 'FIELD_REQUIRED', 'address'],
      ['a name with a space', { name: 'core sw', address: '10.9.9.9' }, 'VALIDATION_FAILED', 'name'],
      ['a name with a quote', { name: 'sw"1', address: '10.9.9.9' }, 'VALIDATION_FAILED', 'name'],
      ['a name with a brace', { name: 'sw{1}', address: '10.9.9.9' }, 'VALIDATION_FAILED', 'name'],
      ['a name starting with a dash', { name: '-sw1', address: '10.9.9.9' }, 'VALIDATION_FAILED', 'name'],
      ['a name of 65 characters', { name: 's'.repeat(65), address: '10.9.9.9' }, 'VALIDATION_FAILED', 'name'],
      ['an overlong vendor', { name: 'sw1', address: '10.9.9.9', vendor: 'v'.repeat(65) }, 'VALIDATION_FAILED', 'vendor'],
      ['an overlong model', { name: 'sw1', address: '10.9.9.9', model: 'm'.repeat(65) }, 'VALIDATION_FAILED', 'model'],
      ['an overlong description', { name: 'sw1', address: '10.9.9.9', description: 'd'.repeat(501) }, 'VALIDATION_FAILED', 'description'],
      ['a string boolean', { name: 'sw1', address: '10.9.9.9', enabled: 'true' }, 'VALIDATION_FAILED', 'enabled'],
      ['a malformed group id', { name: 'sw1', address: '10.9.9.9', device_group_id: 'nope' }, 'VALIDATION_FAILED', 'device_group_id'],
      ['a key with a double quote', { name: 'sw1', address: '10.9.9.9', tacacs_key: 'ab"cd' }, 'VALIDATION_FAILED', 'tacacs_key'],
      ['a key with a backslash', { name: 'sw1', address: '10.9.9.9', tacacs_key: 'ab\\cd' }, 'VALIDATION_FAILED', 'tacacs_key'],
      ['a secret with a dollar', { name: 'sw1', address: '10.9.9.9', radius_secret: 'ab${x}' }, 'VALIDATION_FAILED', 'radius_secret'],
      ['a secret with a newline', { name: 'sw1', address: '10.9.9.9', radius_secret: 'ab\ncd' }, 'VALIDATION_FAILED', 'radius_secret'],
      ['a secret with a leading space', { name: 'sw1', address: '10.9.9.9', radius_secret: ' abcd' }, 'VALIDATION_FAILED', 'radius_secret'],
      ['a key with a trailing space', { name: 'sw1', address: '10.9.9.9', tacacs_key: 'abcd ' }, 'VALIDATION_FAILED', 'tacacs_key'],
      ['a key with non-ASCII', { name: 'sw1', address: '10.9.9.9', tacacs_key: 'ключ' }, 'VALIDATION_FAILED', 'tacacs_key'],
      ['a key of 129 characters', { name: 'sw1', address: '10.9.9.9', tacacs_key: 'k'.repeat(129) }, 'VALIDATION_FAILED', 'tacacs_key'],
      ['an address that is a number', { name: 'sw1', address: 10 }, 'VALIDATION_FAILED', 'address'],
    ]
    for (const [name, body, code, field] of cases) {
      it(`refuses ${name} (422 ${code} at ${field})`, async () => {
        const r = await t.admin('POST', '/api/v1/devices', { body })
        expectError(r, 422, code, field)
        expect(r.text).to.not.include('ab"cd').and.not.include('${x}')
      })
    }

    it('applies the same rules on update', async () => {
      const d = await createDevice(t)
      expectError(await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { tacacs_key_sealed: 'x' } }), 422, 'UNKNOWN_FIELD', 'tacacs_key_sealed')
      expectError(await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { name: 'a b' } }), 422, 'VALIDATION_FAILED', 'name')
      expectError(await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { address: 'abc' } }), 422, 'ADDRESS_INVALID', 'address')
    })
  })

  describe('addresses and the overlap rule', () => {
    for (const address of ['10.0.0.300/24', '10.0.0.0/33', 'fe80::/129', 'abc', '', '10.0.0.1/', 'fe80::1%eth0', '2001:db8::1::2']) {
      it(`refuses ${JSON.stringify(address)} with 422 at address`, async () => {
        const r = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address } })
        expect(r.status, r.text).to.equal(422)
        expect(r.body.field).to.equal('address')
        expect(r.body.code).to.be.oneOf(['ADDRESS_INVALID', 'VALIDATION_FAILED'])
      })
    }

    it('refuses a prefix with host bits, naming the network', async () => {
      const r = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address: '10.1.2.3/16' } })
      expectError(r, 422, 'ADDRESS_HOST_BITS', 'address')
      expect(r.body.detail).to.include('10.1.0.0/16')
      const ru = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address: '2001:db8::1/64' }, headers: { 'accept-language': 'ru' } })
      expectError(ru, 422, 'ADDRESS_HOST_BITS', 'address')
      expect(ru.body.detail).to.include('2001:db8::/64').and.include('биты узла')
    })

    it('refuses the same prefix twice (any spelling, enabled or not), naming the holder', async () => {
      const net = freshNet()
      const first = await createDevice(t, { address: `${net}.0/24`, enabled: false })
      for (const address of [`${net}.0/24`, `::ffff:${net}.0/120`]) {
        const r = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address } })
        expectError(r, 409, 'ADDRESS_TAKEN', 'address')
        expect(r.body.detail).to.include(first.name)
      }
      const other = await createDevice(t, { address: `${freshNet()}.1` })
      const moved = await t.admin('PUT', `/api/v1/devices/${other.id}`, { body: { address: `${net}.0/24` } })
      expectError(moved, 409, 'ADDRESS_TAKEN', 'address')
      // Re-saving a device's own prefix is no conflict.
      expect((await t.admin('PUT', `/api/v1/devices/${first.id}`, { body: { address: `${net}.0/24` } })).status).to.equal(200)
    })

    it('allows nested prefixes', async () => {
      const net = freshNet()
      await createDevice(t, { address: `${net}.0/24` })
      await createDevice(t, { address: `${net}.128/25` })
      await createDevice(t, { address: `${net}.200` })
    })
  })

  describe('names', () => {
    it('answers 409 DEVICE_NAME_TAKEN case-insensitively, on create and rename', async () => {
      const a = await createDevice(t, { name: uniq('Edge') })
      expectError(await t.admin('POST', '/api/v1/devices', { body: { name: a.name.toLowerCase(), address: `${freshNet()}.1` } }), 409, 'DEVICE_NAME_TAKEN', 'name')
      const b = await createDevice(t)
      expectError(await t.admin('PUT', `/api/v1/devices/${b.id}`, { body: { name: a.name.toUpperCase() } }), 409, 'DEVICE_NAME_TAKEN', 'name')
      const self = await t.admin('PUT', `/api/v1/devices/${a.id}`, { body: { name: a.name.toUpperCase() } })
      expect(self.status).to.equal(200)
      expect(self.body.name).to.equal(a.name.toUpperCase())
    })
  })

  describe('shared secrets', () => {
    it('seals them at rest under their own purposes', async () => {
      const d = await createDevice(t, { tacacs_key: TACACS_KEY, radius_secret: RADIUS_SECRET })
      const row = await t.app.db.knex('inventory_devices').where({ id: d.id }).first()
      for (const col of ['tacacs_key_sealed', 'radius_secret_sealed'] as const) {
        expect(row?.[col]).to.be.a('string').and.match(/^v2\./)
        expect(row?.[col]).to.not.include(TACACS_KEY).and.not.include(RADIUS_SECRET)
      }
      const dump = JSON.stringify(await t.app.db.knex('inventory_devices').where({ id: d.id }))
      expect(dump).to.not.include(TACACS_KEY).and.not.include(RADIUS_SECRET)
      expect(row?.tacacs_key_sealed).to.not.equal(row?.radius_secret_sealed)
    })

    it('keeps a key when the field is absent, replaces it, and clears it with null or blank', async () => {
      const d = await createDevice(t, { tacacs_key: TACACS_KEY, radius_secret: RADIUS_SECRET })
      const sealed = async () => t.app.db.knex('inventory_devices').where({ id: d.id }).first('tacacs_key_sealed', 'radius_secret_sealed')
      const s0 = await sealed()
      const kept = await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { description: 'rack 4' } })
      expect(kept.body).to.include({ has_tacacs_key: true, has_radius_secret: true, description: 'rack 4' })
      expect(await sealed()).to.deep.equal(s0)
      const replaced = await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { tacacs_key: 'another-key' } })
      expect(replaced.body.has_tacacs_key).to.equal(true)
      expect((await sealed())?.tacacs_key_sealed).to.not.equal(s0?.tacacs_key_sealed)
      const cleared = await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { tacacs_key: null, radius_secret: '   ' } })
      expect(cleared.body).to.include({ has_tacacs_key: false, has_radius_secret: false })
      expect(await sealed()).to.deep.equal({ tacacs_key_sealed: null, radius_secret_sealed: null })
    })
  })

  describe('update and delete', () => {
    it('changes only the fields given and moves a device between groups', async () => {
      const g = await createGroup(t)
      const d = await createDevice(t, { vendor: 'Juniper', model: 'EX4300' })
      const r = await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { device_group_id: g.id, enabled: false, vendor: '' } })
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.include({ device_group_id: g.id, enabled: false, vendor: null, model: 'EX4300', name: d.name, address: d.address })
      expect(new Date(r.body.updated_at).getTime()).to.be.at.least(new Date(d.updated_at).getTime())
      expectError(await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { device_group_id: randomUUID() } }), 422, 'REFERENCE_NOT_FOUND', 'device_group_id')
      const out = await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { device_group_id: null, address: '2001:db8:77::/48' } })
      expect(out.body).to.include({ device_group_id: null, address: '2001:db8:77::/48' })
    })

    it('deletes a device (204), after which it is gone', async () => {
      const d = await createDevice(t)
      const r = await t.admin('DELETE', `/api/v1/devices/${d.id}`)
      expect(r.status).to.equal(204)
      expect(r.text).to.equal('')
      expectError(await t.admin('GET', `/api/v1/devices/${d.id}`), 404, 'NOT_FOUND', 'device_id')
      // Its prefix is free again.
      await createDevice(t, { address: d.address })
    })
  })

  describe('audit', () => {
    it('records every change with the record, never a secret, and which keys were written', async () => {
      const d = await createDevice(t, { tacacs_key: TACACS_KEY })
      await t.admin('PUT', `/api/v1/devices/${d.id}`, { body: { radius_secret: RADIUS_SECRET, tacacs_key: null } })
      await t.admin('DELETE', `/api/v1/devices/${d.id}`)
      const rows = await auditRows(t, d.id)
      expect(rows.map((r) => r.action)).to.deep.equal(['device.create', 'device.update', 'device.delete'])
      expect(rows.every((r) => r.resource_type === 'device')).to.equal(true)
      expect(rows[0].after).to.include({ name: d.name, address: d.address, has_tacacs_key: true, has_radius_secret: false })
      expect(rows[1].before).to.include({ has_tacacs_key: true, has_radius_secret: false })
      expect(rows[1].after).to.include({ has_tacacs_key: false, has_radius_secret: true })
      expect(rows[1].after.secrets_changed).to.deep.equal(['tacacs_key', 'radius_secret'])
      expect(rows[2].before).to.include({ id: d.id, name: d.name })
      const text = JSON.stringify(rows)
      expect(text).to.not.include(TACACS_KEY).and.not.include(RADIUS_SECRET).and.not.match(/v[12]\./)
    })
  })

  describe('permissions', () => {
    it('gates reads by inventory.read and changes by inventory.write', async () => {
      const none = await t.token({ permissions: [] })
      const reader = await t.token({ permissions: ['inventory.read'] })
      const writer = await t.token({ permissions: ['inventory.read', 'inventory.write'] })
      expect((await t.req('GET', '/api/v1/devices', { token: none })).status).to.equal(403)
      expect((await t.req('GET', '/api/v1/devices', { token: reader })).status).to.equal(200)
      expect((await t.req('GET', '/api/v1/devices')).status).to.equal(401)
      const body = { name: uniq('sw'), address: `${freshNet()}.1` }
      expect((await t.req('POST', '/api/v1/devices', { token: reader, body })).status).to.equal(403)
      const created = await t.req('POST', '/api/v1/devices', { token: writer, body })
      expect(created.status).to.equal(201)
      expect((await t.req('DELETE', `/api/v1/devices/${created.body.id}`, { token: reader })).status).to.equal(403)
      expect((await t.req('DELETE', `/api/v1/devices/${created.body.id}`, { token: writer })).status).to.equal(204)
    })

    it('describes its permissions in English and Russian', async () => {
      const en = await t.admin('GET', '/api/v1/rbac/schema')
      const ru = await t.admin('GET', '/api/v1/rbac/schema', { headers: { 'accept-language': 'ru' } })
      expect(JSON.stringify(en.body)).to.include('inventory.read').and.include('inventory.write').and.include('network devices')
      expect(JSON.stringify(ru.body)).to.include('сетевых устройств')
    })
  })
})
