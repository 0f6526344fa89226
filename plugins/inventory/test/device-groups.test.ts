/** /api/v1/device-groups: CRUD, the tree (cycles, depth), delete rules, lists with counts, audit. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, createDevice, createGroup, expectError, uniq } from './helpers.js'

const FIELDS = ['id', 'name', 'description', 'parent_id', 'device_count', 'child_count', 'created_at', 'updated_at']

describe('inventory: device groups API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory'] })
  })
  after(async () => t?.stop())

  /** A chain of `n` groups, top first. */
  const chain = async (n: number) => {
    const out: any[] = []
    for (let i = 0; i < n; i++) out.push(await createGroup(t, i ? { parent_id: out[i - 1].id } : {}))
    return out
  }

  describe('create, read, update', () => {
    it('creates a top-level group and a subgroup, with counts', async () => {
      const r = await t.admin('POST', '/api/v1/device-groups', { body: { name: uniq('EMEA'), description: ' ' } })
      expect(r.status, r.text).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ description: null, parent_id: null, device_count: 0, child_count: 0 })
      const sub = await createGroup(t, { parent_id: r.body.id, description: 'Paris' })
      await createDevice(t, { device_group_id: r.body.id })
      const got = await t.admin('GET', `/api/v1/device-groups/${r.body.id}`)
      expect(got.body).to.include({ device_count: 1, child_count: 1, name: r.body.name })
      expect(sub).to.include({ parent_id: r.body.id, description: 'Paris' })
    })

    it('answers 404 naming device_group_id, 422 for a malformed id', async () => {
      for (const m of ['GET', 'PUT', 'DELETE']) {
        const o = m === 'PUT' ? { body: {} } : {}
        expectError(await t.admin(m, `/api/v1/device-groups/${randomUUID()}`, o), 404, 'NOT_FOUND', 'device_group_id')
        expectError(await t.admin(m, '/api/v1/device-groups/nope', o), 422, 'VALIDATION_FAILED', 'device_group_id')
      }
    })

    it('keeps bodies strict and names the field', async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ name: 'g1', colour: 'red' }, 'UNKNOWN_FIELD', 'colour'],
        [{ description: 'x' }, 'FIELD_REQUIRED', 'name'],
        [{ name: 'my group' }, 'VALIDATION_FAILED', 'name'],
        [{ name: 'g'.repeat(65) }, 'VALIDATION_FAILED', 'name'],
        [{ name: 'g1', description: 'd'.repeat(501) }, 'VALIDATION_FAILED', 'description'],
        [{ name: 'g1', parent_id: 'root' }, 'VALIDATION_FAILED', 'parent_id'],
        [{ name: uniq('g'), parent_id: randomUUID() }, 'REFERENCE_NOT_FOUND', 'parent_id'],
      ]
      for (const [body, code, field] of cases) expectError(await t.admin('POST', '/api/v1/device-groups', { body }), 422, code, field)
      const g = await createGroup(t)
      expectError(await t.admin('PUT', `/api/v1/device-groups/${g.id}`, { body: { parent_id: randomUUID() } }), 422, 'REFERENCE_NOT_FOUND', 'parent_id')
      expectError(await t.admin('PUT', `/api/v1/device-groups/${g.id}`, { body: { device_count: 3 } }), 422, 'UNKNOWN_FIELD', 'device_count')
    })

    it('answers 409 DEVICE_GROUP_NAME_TAKEN case-insensitively', async () => {
      const a = await createGroup(t, { name: uniq('Branch') })
      expectError(await t.admin('POST', '/api/v1/device-groups', { body: { name: a.name.toUpperCase() } }), 409, 'DEVICE_GROUP_NAME_TAKEN', 'name')
      const b = await createGroup(t)
      expectError(await t.admin('PUT', `/api/v1/device-groups/${b.id}`, { body: { name: a.name.toLowerCase() } }), 409, 'DEVICE_GROUP_NAME_TAKEN', 'name')
      expect((await t.admin('PUT', `/api/v1/device-groups/${a.id}`, { body: { name: a.name.toLowerCase() } })).status).to.equal(200)
    })

    it('moves a group with its subtree, and back to the top level', async () => {
      const [a, b] = await chain(2)
      const other = await createGroup(t)
      const moved = await t.admin('PUT', `/api/v1/device-groups/${a.id}`, { body: { parent_id: other.id, description: 'moved' } })
      expect(moved.status, moved.text).to.equal(200)
      expect(moved.body).to.include({ parent_id: other.id, description: 'moved', child_count: 1 })
      expect((await t.admin('GET', `/api/v1/device-groups/${b.id}`)).body.parent_id).to.equal(a.id)
      const top = await t.admin('PUT', `/api/v1/device-groups/${a.id}`, { body: { parent_id: null } })
      expect(top.body.parent_id).to.equal(null)
    })
  })

  describe('the tree', () => {
    it('refuses a group under itself or under one of its descendants', async () => {
      const [a, b, c] = await chain(3)
      expectError(await t.admin('PUT', `/api/v1/device-groups/${a.id}`, { body: { parent_id: a.id } }), 422, 'GROUP_CYCLE', 'parent_id')
      expectError(await t.admin('PUT', `/api/v1/device-groups/${a.id}`, { body: { parent_id: b.id } }), 422, 'GROUP_CYCLE', 'parent_id')
      const r = await t.admin('PUT', `/api/v1/device-groups/${a.id}`, { body: { parent_id: c.id } })
      expectError(r, 422, 'GROUP_CYCLE', 'parent_id')
      expect((await t.admin('GET', `/api/v1/device-groups/${a.id}`)).body.parent_id).to.equal(null)
    })

    it('bounds the depth at 32 levels, on create and on move', async () => {
      const deep = await chain(32)
      const r = await t.admin('POST', '/api/v1/device-groups', { body: { name: uniq('g33'), parent_id: deep[31].id } })
      expectError(r, 422, 'GROUP_TOO_DEEP', 'parent_id')
      expect(r.body.detail).to.include('32').and.include('33')
      // A two-level subtree moved under level 31 would reach 33.
      const [x] = await chain(2)
      expectError(await t.admin('PUT', `/api/v1/device-groups/${x.id}`, { body: { parent_id: deep[30].id } }), 422, 'GROUP_TOO_DEEP', 'parent_id')
      expect((await t.admin('PUT', `/api/v1/device-groups/${x.id}`, { body: { parent_id: deep[29].id } })).status).to.equal(200)
    })
  })

  describe('delete', () => {
    it('deletes an empty group (204)', async () => {
      const g = await createGroup(t)
      expect((await t.admin('DELETE', `/api/v1/device-groups/${g.id}`)).status).to.equal(204)
      expectError(await t.admin('GET', `/api/v1/device-groups/${g.id}`), 404, 'NOT_FOUND', 'device_group_id')
    })

    it('refuses a group still holding devices or subgroups, with GROUP_IN_USE', async () => {
      const [a, b] = await chain(2)
      const withChild = await t.admin('DELETE', `/api/v1/device-groups/${a.id}`)
      expectError(withChild, 409, 'GROUP_IN_USE', 'device_group_id')
      expect(withChild.body.detail).to.include('1 subgroup')
      const d = await createDevice(t, { device_group_id: b.id })
      const withDevice = await t.admin('DELETE', `/api/v1/device-groups/${b.id}`, { headers: { 'accept-language': 'ru' } })
      expectError(withDevice, 409, 'GROUP_IN_USE', 'device_group_id')
      expect(withDevice.body.detail).to.include('1 устройство и 0 подгрупп')
      await t.admin('DELETE', `/api/v1/devices/${d.id}`)
      expect((await t.admin('DELETE', `/api/v1/device-groups/${b.id}`)).status).to.equal(204)
      expect((await t.admin('DELETE', `/api/v1/device-groups/${a.id}`)).status).to.equal(204)
    })
  })

  describe('lists', () => {
    it('searches, sorts, filters by parent and top level, and counts', async () => {
      const tag = uniq('lst')
      const root = await createGroup(t, { name: `${tag}-root` })
      const kidB = await createGroup(t, { name: `${tag}-b`, parent_id: root.id })
      const kidA = await createGroup(t, { name: `${tag}-a`, parent_id: root.id, description: 'Access layer' })
      await createDevice(t, { device_group_id: kidA.id })
      await createDevice(t, { device_group_id: kidA.id })
      const q = async (qs: string) => {
        const r = await t.admin('GET', `/api/v1/device-groups?${qs}`)
        expect(r.status, r.text).to.equal(200)
        return r.body
      }
      const all = await q(`search=${tag}`)
      expect(all.items.map((g: any) => g.name)).to.deep.equal([`${tag}-a`, `${tag}-b`, `${tag}-root`])
      expect(all.items[0]).to.include({ device_count: 2, child_count: 0 })
      expect(all.items[2]).to.include({ device_count: 0, child_count: 2 })
      const kids = await q(`parent_id=${root.id}&sort_by=name&sort_order=desc`)
      expect(kids.items.map((g: any) => g.id)).to.deep.equal([kidB.id, kidA.id])
      expect((await q(`search=${tag}&top_level=true`)).items.map((g: any) => g.id)).to.deep.equal([root.id])
      expect((await q(`search=${tag}&top_level=false`)).total_by_filter).to.equal(2)
      expect((await q('search=ACCESS%20LAYER')).items.map((g: any) => g.id)).to.deep.equal([kidA.id])
      const page = await q(`search=${tag}&per_page=2&page=2&sort_by=created_at`)
      expect(page).to.include({ total_by_filter: 3, pages: 2, page: 2, per_page: 2 })
      expect(page.items.map((g: any) => g.id)).to.deep.equal([kidA.id])
      expect(page.total).to.equal(Number((await t.app.db.knex('inventory_device_groups').count({ n: '*' }).first())!.n))
      expectError(await t.admin('GET', '/api/v1/device-groups?per_page=101'), 422, 'VALIDATION_FAILED', 'per_page')
      expectError(await t.admin('GET', '/api/v1/device-groups?sort_by=device_count'), 422, 'VALIDATION_FAILED', 'sort_by')
    })
  })

  describe('audit and permissions', () => {
    it('records create, update and delete', async () => {
      const parent = await createGroup(t)
      const g = await createGroup(t, { description: 'first' })
      await t.admin('PUT', `/api/v1/device-groups/${g.id}`, { body: { parent_id: parent.id } })
      await t.admin('DELETE', `/api/v1/device-groups/${g.id}`)
      const rows = await auditRows(t, g.id)
      expect(rows.map((r) => r.action)).to.deep.equal(['device_group.create', 'device_group.update', 'device_group.delete'])
      expect(rows.every((r) => r.resource_type === 'device_group')).to.equal(true)
      expect(rows[0].after).to.include({ name: g.name, description: 'first', parent_id: null })
      expect(rows[1].before.parent_id).to.equal(null)
      expect(rows[1].after.parent_id).to.equal(parent.id)
      expect(rows[2].before).to.include({ id: g.id, parent_id: parent.id })
    })

    it('gates by inventory.read and inventory.write', async () => {
      const reader = await t.token({ permissions: ['inventory.read'] })
      expect((await t.req('GET', '/api/v1/device-groups', { token: reader })).status).to.equal(200)
      expect((await t.req('POST', '/api/v1/device-groups', { token: reader, body: { name: uniq('g') } })).status).to.equal(403)
      expect((await t.req('GET', '/api/v1/device-groups', { token: await t.token({ permissions: [] }) })).status).to.equal(403)
    })
  })
})
