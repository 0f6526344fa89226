/** GET /api/v1/devices: search, sort, pagination totals and every filter. */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createDevice, createGroup, expectError, freshNet, uniq } from './helpers.js'

describe('inventory: device lists', () => {
  let t: TestApp
  const list = async (qs: string) => {
    const r = await t.admin('GET', `/api/v1/devices?${qs}`)
    expect(r.status, r.text).to.equal(200)
    return r.body as { items: any[]; total: number; total_by_filter: number; page: number; per_page: number; pages: number }
  }
  const names = (b: { items: { name: string }[] }) => b.items.map((d) => d.name)

  before(async () => {
    t = await startTestApp({ plugins: ['inventory'] })
  })
  after(async () => t?.stop())

  it('pages with totals before and after the filters', async () => {
    const vendor = uniq('PageVendor')
    for (let i = 0; i < 25; i++) await createDevice(t, { name: `${vendor}-${String(i).padStart(2, '0')}`, vendor })
    const all = Number((await t.app.db.knex('inventory_devices').count({ n: '*' }).first())!.n)
    const p1 = await list(`vendor=${vendor.toLowerCase()}`)
    expect(p1).to.include({ total: all, total_by_filter: 25, page: 1, per_page: 20, pages: 2 })
    expect(p1.items).to.have.length(20)
    const p2 = await list(`vendor=${vendor}&page=2`)
    expect(p2.items).to.have.length(5)
    expect(names(p2)[4]).to.equal(`${vendor}-24`)
    const big = await list(`vendor=${vendor}&per_page=100`)
    expect(big.items).to.have.length(25)
    expect(new Set([...names(p1), ...names(p2)]).size).to.equal(25)
    expectError(await t.admin('GET', '/api/v1/devices?per_page=101'), 422, 'VALIDATION_FAILED', 'per_page')
    expectError(await t.admin('GET', '/api/v1/devices?page=0'), 422, 'VALIDATION_FAILED', 'page')
    expectError(await t.admin('GET', '/api/v1/devices?colour=red'), 422, 'UNKNOWN_FIELD', 'colour')
  })

  it('searches name, address, vendor, model and description, case-insensitively and literally', async () => {
    const tag = uniq('Srch').toLowerCase()
    const net = freshNet()
    const a = await createDevice(t, { name: `${tag}-a`, address: `${net}.0/24` })
    const b = await createDevice(t, { vendor: `${tag}-Vendor` })
    const c = await createDevice(t, { model: `${tag.toUpperCase()}-9000` })
    const d = await createDevice(t, { description: `closet ${tag} 50%` })
    expect(names(await list(`search=${tag}&per_page=100`)).sort()).to.deep.equal([a, b, c, d].map((x) => x.name).sort())
    expect(names(await list(`search=${net}.0/2`))).to.deep.equal([a.name])
    expect(names(await list(`search=${encodeURIComponent(`${tag} 50%`)}`))).to.deep.equal([d.name])
    expect((await list(`search=${encodeURIComponent(`${tag}_50`)}`)).total_by_filter).to.equal(0)
  })

  it('sorts by name, address, vendor and the timestamps, both ways', async () => {
    const vendor = uniq('SortVendor')
    const mk = (name: string, address: string, v: string) => createDevice(t, { name: `${vendor}-${name}`, address, vendor: `${vendor}${v}` })
    const net = freshNet()
    await mk('c', `${net}.0/24`, 'b')
    await mk('a', `${net}.10`, 'c')
    await mk('b', '2001:db8:5::/48', 'a')
    await mk('d', `${net}.0/25`, 'd')
    const q = (s: string) => list(`search=${vendor}&${s}`).then((b) => b.items.map((x) => x.name.slice(vendor.length + 1)).join(''))
    expect(await q('')).to.equal('abcd')
    expect(await q('sort_by=name&sort_order=desc')).to.equal('dcba')
    expect(await q('sort_by=vendor')).to.equal('bcad')
    // inet order: IPv4 before IPv6; then network; then prefix length.
    expect(await q('sort_by=address')).to.equal('cdab')
    expect(await q('sort_by=created_at')).to.equal('cabd')
    expect(await q('sort_by=updated_at&sort_order=desc')).to.equal('dbac')
    expectError(await t.admin('GET', '/api/v1/devices?sort_by=tacacs_key'), 422, 'VALIDATION_FAILED', 'sort_by')
  })

  it('filters by group, with or without its subgroups', async () => {
    const top = await createGroup(t)
    const mid = await createGroup(t, { parent_id: top.id })
    const leaf = await createGroup(t, { parent_id: mid.id })
    const other = await createGroup(t)
    const inTop = await createDevice(t, { device_group_id: top.id })
    const inMid = await createDevice(t, { device_group_id: mid.id })
    const inLeaf = await createDevice(t, { device_group_id: leaf.id })
    await createDevice(t, { device_group_id: other.id })
    expect(names(await list(`device_group_id=${top.id}`))).to.deep.equal([inTop.name])
    expect(names(await list(`device_group_id=${top.id}&include_subgroups=false`))).to.deep.equal([inTop.name])
    expect(names(await list(`device_group_id=${top.id}&include_subgroups=true`)).sort()).to.deep.equal([inTop, inMid, inLeaf].map((d) => d.name).sort())
    expect(names(await list(`device_group_id=${mid.id}&include_subgroups=true`)).sort()).to.deep.equal([inMid, inLeaf].map((d) => d.name).sort())
    expectError(await t.admin('GET', '/api/v1/devices?device_group_id=nope'), 422, 'VALIDATION_FAILED', 'device_group_id')
    expectError(await t.admin('GET', '/api/v1/devices?include_subgroups=maybe'), 422, 'VALIDATION_FAILED', 'include_subgroups')
  })

  it('filters by enabled and by vendor', async () => {
    const vendor = uniq('EnVendor')
    const on = await createDevice(t, { vendor })
    const off = await createDevice(t, { vendor: vendor.toUpperCase(), enabled: false })
    expect(names(await list(`vendor=${vendor}&enabled=true`))).to.deep.equal([on.name])
    expect(names(await list(`vendor=${vendor}&enabled=false`))).to.deep.equal([off.name])
    expect((await list(`vendor=${vendor}`)).total_by_filter).to.equal(2)
  })

  it('filters by a contained address, the most specific first when sorted by address descending', async () => {
    const net = freshNet()
    const wide = await createDevice(t, { address: `${net}.0/24` })
    const half = await createDevice(t, { address: `${net}.0/25`, enabled: false })
    const host = await createDevice(t, { address: `${net}.5` })
    await createDevice(t, { address: `${net}.9` })
    const r = await list(`address_contains=${net}.5&sort_by=address&sort_order=desc`)
    expect(names(r)).to.deep.equal([host.name, half.name, wide.name])
    expect(names(await list(`address_contains=::ffff:${net}.200`))).to.deep.equal([wide.name])
    expect((await list('address_contains=2001:db8:ffff::1')).total_by_filter).to.equal(0)
    for (const bad of ['abc', `${net}.0/24`, '10.0.0.300']) {
      expectError(await t.admin('GET', `/api/v1/devices?address_contains=${encodeURIComponent(bad)}`), 422, 'ADDRESS_INVALID', 'address_contains')
    }
  })
})
