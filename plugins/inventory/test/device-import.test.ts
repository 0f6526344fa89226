/** POST /devices/import (CSV, per-row report, atomic or per row, keys write-only) and GET /devices/covering. */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createDevice, createGroup, expectError, freshNet, uniq } from './helpers.js'

describe('inventory: device import and covering search', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory'] })
  })
  after(async () => t?.stop())

  const importCsv = (csv: string | Buffer, query = '', token?: string) =>
    t.req('POST', `/api/v1/devices/import${query}`, { token: token ?? t.adminToken, raw: csv as string, headers: { 'content-type': 'text/csv' } })
  const snapshot = async () => JSON.stringify(await t.app.db.knex('inventory_devices').orderBy('id').select('*'))
  const audits = async () => t.app.db.knex('audit_log').where({ action: 'device.import' }).orderBy('at').select('after')

  describe('import', () => {
    it('creates and updates through the routes, keys write-only, and audits once without key values', async () => {
      const g = await createGroup(t)
      const old = await createDevice(t, { vendor: 'Cisco', tacacs_key: 'old-key-1' })
      const [n1, n2] = [uniq('sw'), uniq('fw')]
      const net = freshNet()
      const csv = `Name,Address,device_group,vendor,tacacs_key,radius_secret,enabled\r\n${n1},${net}.0/24,${g.name.toUpperCase()},Arista,Sekr3t-key,rad-Secret-1,yes\r\n${n2},2001:db8:${Math.floor(Math.random() * 9999)}::/64,,,,,false\r\n${old.name.toUpperCase()},${old.address},,Juniper,new-key-2,,\r\n`
      const r = await importCsv(csv)
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.include({ applied: true, atomic: true, dry_run: false, rows: 3, created: 2, updated: 1, refused: 0 })
      expect(r.text).to.not.include('Sekr3t').and.not.include('rad-Secret').and.not.include('new-key-2')
      const [a, b, c] = r.body.results
      expect([a.row, a.line, a.key, a.outcome]).to.deep.equal([1, 2, n1, 'created'])
      const d1 = (await t.admin('GET', `/api/v1/devices/${a.id}`)).body
      expect(d1).to.include({ name: n1, address: `${net}.0/24`, device_group_id: g.id, vendor: 'Arista', enabled: true, has_tacacs_key: true, has_radius_secret: true })
      expect((await t.admin('GET', `/api/v1/devices/${b.id}`)).body).to.include({ enabled: false, has_tacacs_key: false })
      expect(c).to.include({ outcome: 'updated', id: old.id })
      expect((await t.admin('GET', `/api/v1/devices/${old.id}`)).body).to.include({ vendor: 'Juniper', device_group_id: null, has_tacacs_key: true })
      const audit = (await audits()).at(-1)!.after as any
      expect(audit.created.map((x: { name: string }) => x.name)).to.deep.equal([n1, n2])
      expect(audit.updated[0]).to.deep.equal({ id: old.id, name: old.name.toUpperCase(), secrets_written: ['tacacs_key'] })
      expect(JSON.stringify(audit)).to.not.include('Sekr3t').and.not.include('new-key-2')
      // The same file again: the same key and values are no change, an empty key cell keeps the key.
      const stamp = (await t.admin('GET', `/api/v1/devices/${old.id}`)).body.updated_at
      const again = await importCsv(csv)
      expect(again.body).to.include({ created: 0, updated: 0, unchanged: 3 })
      expect((await t.admin('GET', `/api/v1/devices/${old.id}`)).body.updated_at).to.equal(stamp)
    })

    it('atomic by default: bad rows are reported with their row, line, code and column, and nothing changes', async () => {
      const taken = await createDevice(t)
      const before = await snapshot()
      const n = (await audits()).length
      const net = freshNet()
      const csv = [
        'name,address,device_group,tacacs_key,enabled',
        `${uniq('ok')},${net}.1,,,`,
        `bad name!,${net}.2,,,`,
        `${uniq('hb')},${net}.3/24,,,`,
        `${uniq('tk')},${taken.address},,,`,
        `${uniq('ng')},${net}.5,no-such-group,,`,
        `${uniq('ky')},${net}.6,,"bad""quote",`,
        `${uniq('en')},${net}.7,,,maybe`,
        `${uniq('w')},${net}.8`,
        `${uniq('noaddr')},,,,`,
        `"${uniq('ml')}`,
        `multi",${net}.9,,,`,
      ].join('\n')
      const r = await importCsv(csv)
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.include({ applied: false, rows: 10, created: 1, refused: 9 })
      expect(r.body.results.map((x: any) => [x.row, x.line, x.outcome, x.code, x.field])).to.deep.equal([
        [1, 2, 'created', null, null],
        [2, 3, 'refused', 'VALIDATION_FAILED', 'name'],
        [3, 4, 'refused', 'ADDRESS_HOST_BITS', 'address'],
        [4, 5, 'refused', 'ADDRESS_TAKEN', 'address'],
        [5, 6, 'refused', 'REFERENCE_NOT_FOUND', 'device_group'],
        [6, 7, 'refused', 'VALIDATION_FAILED', 'tacacs_key'],
        [7, 8, 'refused', 'IMPORT_ROW_INVALID', 'enabled'],
        [8, 9, 'refused', 'IMPORT_ROW_INVALID', null],
        [9, 10, 'refused', 'VALIDATION_FAILED', 'address'],
        [10, 12, 'refused', 'VALIDATION_FAILED', 'name'],
      ])
      expect(r.body.results[0].id).to.equal(null)
      expect(r.body.results[4].detail).to.include('no-such-group')
      expect(r.text).to.not.include('bad"quote')
      expect(await snapshot()).to.equal(before)
      expect((await audits()).length).to.equal(n)
      // atomic=false writes the row that passes; dry_run writes nothing at all.
      const dry = await importCsv(csv, '?atomic=false&dry_run=true')
      expect(dry.body).to.include({ applied: false, dry_run: true, created: 1 })
      expect(await snapshot()).to.equal(before)
      const partial = await importCsv(csv, '?atomic=false')
      expect(partial.body).to.include({ applied: true, created: 1, refused: 9 })
      expect((await t.admin('GET', `/api/v1/devices/${partial.body.results[0].id}`)).status).to.equal(200)
    })

    it('a name repeated in the file is refused at its second row with the API code', async () => {
      const name = uniq('dup')
      const r = await importCsv(`name,address\n${name},${freshNet()}.1\n${name.toUpperCase()},${freshNet()}.1\n`)
      expect(r.body.results.map((x: any) => [x.outcome, x.code, x.field])).to.deep.equal([['created', null, null], ['refused', 'DUPLICATE_IN_FILE', 'name']])
      expect(r.body.applied).to.equal(false)
    })

    it('refuses a file it cannot read, whole, with IMPORT_INVALID, and hostile input changes nothing', async () => {
      const before = await snapshot()
      for (const [csv, what] of [
        ['address\n10.0.0.1\n', 'no name column'],
        ['name,address,password\nx,10.0.0.1,p\n', 'unknown column'],
        ['name,name\nx,y\n', 'repeated column'],
        ['name,address\n"x,10.0.0.1\n', 'unclosed quote'],
        [Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xff, 0xfe]), 'not UTF-8'],
        ['name,address\n' + 'x,1.2.3.4\n'.repeat(5001), 'too many rows'],
      ] as const) {
        const r = await importCsv(csv as string)
        expect(r.status, what).to.equal(422)
        expectError(r, 422, 'IMPORT_INVALID', 'body')
      }
      expectError(await importCsv(''), 422, 'BODY_REQUIRED')
      const hostile = `name,address,description\n"=cmd|' /C calc'!A0",10.250.0.1,x\nx'; DROP TABLE inventory_devices; --,10.250.0.2,y\n${uniq('ok')},10.250.0.3,"\u202Eevil"\n`
      const r = await importCsv(hostile)
      expect(r.body).to.include({ applied: false, refused: 3 })
      expect(await snapshot()).to.equal(before)
      expect((await importCsv('name,address\nx,1.2.3.4\n'.padEnd(3 * 1024 * 1024, '#'))).status).to.equal(413)
      expect((await t.req('POST', '/api/v1/devices/import', { token: t.adminToken, body: { name: 'x' } })).status).to.equal(415)
    })

    it('needs inventory.write', async () => {
      const reader = await t.token({ permissions: ['inventory.read'] })
      expectError(await importCsv(`name,address\n${uniq('x')},${freshNet()}.1\n`, '', reader), 403, 'PERMISSION_DENIED')
      expect((await t.req('POST', '/api/v1/devices/import', { raw: 'name\n', headers: { 'content-type': 'text/csv' } })).status).to.equal(401)
    })
  })

  describe('covering', () => {
    const covering = (address: string, token?: string) => t.req('GET', `/api/v1/devices/covering?address=${encodeURIComponent(address)}`, { token: token ?? t.adminToken })
    const summary = (body: any) => body.items.map((x: any) => [x.device.address, x.prefix_length, x.tacacs_client, x.radius_client])

    it('IPv4: every prefix containing it, most specific first; the enabled ones are chosen, RADIUS only with a secret', async () => {
      const net = freshNet()
      const [, , host, hostOff] = [
        await createDevice(t, { address: `${net}.0/24`, radius_secret: 'wide-secret' }),
        await createDevice(t, { address: `${net}.0/28` }),
        await createDevice(t, { address: `${net}.5`, enabled: false, radius_secret: 'host-secret' }),
        null,
      ]
      void hostOff
      const r = await covering(`${net}.5`)
      expect(r.status, r.text).to.equal(200)
      expect(r.body.address).to.equal(`${net}.5`)
      expect(summary(r.body)).to.deep.equal([
        [`${net}.5/32`, 32, false, false],
        [`${net}.0/28`, 28, true, false],
        [`${net}.0/24`, 24, false, true],
      ])
      expect(r.body.items[0].device.id).to.equal(host.id)
      expect(JSON.stringify(r.body)).to.not.include('wide-secret').and.not.include('host-secret')
      // The chosen one agrees with the inventory service the daemons' renderers and the policy test use.
      expect(summary((await covering(`${net}.200`)).body)).to.deep.equal([[`${net}.0/24`, 24, true, true]])
    })

    it('IPv6, IPv4-mapped IPv6, no match, and refusals', async () => {
      const six = `2001:db8:${(Math.floor(Math.random() * 0xfff) + 0x1000).toString(16)}`
      await createDevice(t, { address: `${six}::/48`, radius_secret: 's' })
      await createDevice(t, { address: `${six}:1::/64` })
      expect(summary((await covering(`${six}:1::7`)).body)).to.deep.equal([
        [`${six}:1::/64`, 64, true, false],
        [`${six}::/48`, 48, false, true],
      ])
      const net = freshNet()
      await createDevice(t, { address: `${net}.0/24` })
      const mapped = await covering(`::ffff:${net}.9`)
      expect(mapped.body.address).to.equal(`${net}.9`)
      expect(summary(mapped.body)).to.deep.equal([[`${net}.0/24`, 24, true, false]])
      const none = await covering('192.0.2.77')
      expect(none.status).to.equal(200)
      expect(none.body.items).to.deep.equal([])
      for (const bad of ['10.0.0.0/8', 'switch-1', '300.1.1.1']) expectError(await covering(bad), 422, 'ADDRESS_INVALID', 'address')
      expectError(await t.req('GET', '/api/v1/devices/covering', { token: t.adminToken }), 422, 'FIELD_REQUIRED', 'address')
      expectError(await covering('10.0.0.1', await t.token({ permissions: [] })), 403, 'PERMISSION_DENIED')
    })
  })
})
