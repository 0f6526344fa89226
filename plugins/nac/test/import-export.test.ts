/** POST /nac/endpoints/import (CSV, per-row report, atomic or per row) and GET /nac/endpoints/export (xlsx, csv). */
import { expect } from 'chai'
import ExcelJS from 'exceljs'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, createEndpoint, createGroup, createUser, expectError, freshMac, importCsv, snapshot, uniq } from './helpers.js'

describe('nac: endpoint import and export', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['nac'] })
  })
  after(async () => t?.stop())

  const importAudits = async (): Promise<{ after: any }[]> => t.app.db.knex('audit_log').where({ action: 'endpoint.import' }).orderBy('at').select('after')

  describe('import', () => {
    it('atomic by default: one refused row and nothing is written; the report judges every row', async () => {
      const g = await createGroup(t)
      const before = await snapshot(t)
      const audits = (await importAudits()).length
      const [a, b, c] = [freshMac(), freshMac(), freshMac()]
      const csv = `MAC,Description,endpoint_group\r\n${a.toUpperCase()},"printer, 2nd floor",${g.name.toUpperCase()}\r\n${b.replace(/:/g, '')},,\r\nff:ff:ff:ff:ff:ff,broadcast,\r\n${c.replace(/:/g, '-')},x,no-such-group\r\n`
      const r = await importCsv(t, csv)
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.include({ applied: false, atomic: true, dry_run: false, rows: 4, created: 2, refused: 2 })
      expect(r.body.columns).to.deep.equal(['mac', 'description', 'endpoint_group'])
      expect(r.body.results.map((x: any) => [x.row, x.line, x.mac, x.outcome, x.code, x.field, x.endpoint_id])).to.deep.equal([
        [1, 2, a, 'created', null, null, null],
        [2, 3, b, 'created', null, null, null],
        [3, 4, 'ff:ff:ff:ff:ff:ff', 'refused', 'MAC_GROUP_ADDRESS', 'mac', null],
        [4, 5, c, 'refused', 'REFERENCE_NOT_FOUND', 'endpoint_group', null],
      ])
      expect(r.body.results[3].detail).to.include('no-such-group')
      expect(await snapshot(t)).to.equal(before)
      expect((await importAudits()).length).to.equal(audits)
    })

    it('atomic=false writes the rows that pass, reports the rest, and audits once', async () => {
      const g = await createGroup(t)
      const u = await createUser(t)
      const [a, b] = [freshMac(), freshMac()]
      const csv = `mac,description,endpoint_group,owner\n${a},cam,${g.name},${u.username.toUpperCase()}\n00:00:00:00:00:00,zero,,\nnot a mac,?,,\n${b},"bell\u0007",,\n${a.replace(/:/g, '.')},dup,,\n${b},ok,,nobody-${uniq('x')}\n${b},fine,,\n`
      const r = await importCsv(t, csv, '?atomic=false')
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.include({ applied: true, atomic: false, rows: 7, created: 2, refused: 5 })
      const by = r.body.results.map((x: any) => [x.outcome, x.code, x.field])
      expect(by).to.deep.equal([
        ['created', null, null],
        ['refused', 'MAC_ZERO', 'mac'],
        ['refused', 'MAC_INVALID', 'mac'],
        ['refused', 'IMPORT_ROW_INVALID', 'description'],
        ['refused', 'MAC_INVALID', 'mac'],
        ['refused', 'REFERENCE_NOT_FOUND', 'owner'],
        ['created', null, null],
      ])
      const created = (await t.admin('GET', `/api/v1/nac/endpoints/${r.body.results[0].endpoint_id}`)).body
      expect(created).to.include({ mac: a, description: 'cam', endpoint_group_id: g.id, owner_user_id: u.id })
      expect(created.vendor).to.match(/^Cisco/)
      expect((await t.admin('GET', `/api/v1/nac/endpoints?mac=${b}`)).body.items[0].description).to.equal('fine')
      const audit = (await importAudits()).at(-1)!.after
      expect(audit).to.include({ atomic: false, rows: 7, refused: 5 })
      expect(audit.created.map((x: any) => x.mac).sort()).to.deep.equal([a, b].sort())
    })

    it('speaks the caller\'s language in the report and the file refusals', async () => {
      const r = await t.req('POST', '/api/v1/nac/endpoints/import', { token: t.adminToken, raw: `mac,description\nff-ff-ff-ff-ff-ff,x\n${freshMac()},"a\u0007"\n${freshMac()}\n`, headers: { 'content-type': 'text/csv', 'accept-language': 'ru' } })
      expect(r.body.results.map((x: any) => x.detail)).to.deep.equal([
        'Это групповой (multicast или широковещательный) адрес: первый октет нечётный, с такого адреса оконечные устройства не отправляют кадры.',
        'В описании есть управляющий символ или символ направления текста.',
        'В строке 1 ячейка, а заголовок называет 2.',
      ])
      const f = await t.req('POST', '/api/v1/nac/endpoints/import', { token: t.adminToken, raw: 'mac,colour\n', headers: { 'content-type': 'text/csv', 'accept-language': 'ru' } })
      expectError(f, 422, 'IMPORT_INVALID', 'body')
      expect(f.body.detail).to.match(/^В файле неизвестный столбец «colour»/)
    })

    it('refuses a MAC repeated in the file (any notation) at its second row', async () => {
      const a = freshMac()
      const r = await importCsv(t, `mac\n${a}\n${a.toUpperCase().replace(/:/g, '-')}\n`)
      expect(r.body.results[1]).to.include({ outcome: 'refused', code: 'DUPLICATE_IN_FILE', field: 'mac', mac: a })
      expect(r.body.results[1].detail).to.include('Row 1')
      expect(r.body.applied).to.equal(false)
    })

    it('updates existing endpoints by the columns given; unchanged, skipped; an empty cell clears; a missing column keeps', async () => {
      const g = await createGroup(t)
      const u = await createUser(t)
      const e1 = await createEndpoint(t, { description: 'old', endpoint_group_id: g.id, owner_user_id: u.id })
      const e2 = await createEndpoint(t, { description: 'same' })
      const r = await importCsv(t, `mac,description,endpoint_group\n${e1.mac},new,\n${e2.mac},same,\n`)
      expect(r.body).to.include({ applied: true, updated: 1, unchanged: 1 })
      expect(r.body.results.map((x: any) => [x.outcome, x.endpoint_id])).to.deep.equal([['updated', e1.id], ['unchanged', e2.id]])
      // The owner column was left out: kept. The group cell was empty: cleared.
      expect((await t.admin('GET', `/api/v1/nac/endpoints/${e1.id}`)).body).to.include({ description: 'new', endpoint_group_id: null, owner_user_id: u.id })
      const audit = (await importAudits()).at(-1)!.after
      expect(audit.updated).to.deep.equal([{ id: e1.id, mac: e1.mac, before: { description: 'old', endpoint_group_id: g.id }, after: { description: 'new', endpoint_group_id: null } }])
      const skip = await importCsv(t, `mac,description\n${e1.mac},ignored\n`, '?update_existing=false')
      expect(skip.body.results[0]).to.include({ outcome: 'skipped', endpoint_id: e1.id })
      expect((await t.admin('GET', `/api/v1/nac/endpoints/${e1.id}`)).body.description).to.equal('new')
    })

    it('dry_run judges and writes nothing', async () => {
      const before = await snapshot(t)
      const e = await t.app.db.knex('nac_endpoints').first('mac')
      const r = await importCsv(t, `mac,description\n${freshMac()},new one\n${e!.mac},changed\n`, '?dry_run=true')
      expect(r.body).to.include({ applied: false, dry_run: true, created: 1, updated: 1 })
      expect(r.body.results[0].endpoint_id).to.equal(null)
      expect(await snapshot(t)).to.equal(before)
    })

    it('refuses a file that cannot be read as a whole (422 IMPORT_INVALID), too large (413), not CSV (415), changing nothing', async () => {
      const before = await snapshot(t)
      expectError(await importCsv(t, ''), 422, 'BODY_REQUIRED')
      const bad: [string | Buffer, string][] = [
        ['\uFEFF\r\n', 'is empty'],
        ['description\nx\n', 'no "mac" column'],
        ['mac,colour\naa:bb:cc:dd:ee:01,red\n', 'unknown column "colour"'],
        ['mac,MAC\n', '"mac" twice'],
        [`mac\n"${freshMac()}\n`, 'not CSV (CSV_QUOTE_NOT_CLOSED at line 2'],
        [Buffer.from([0x6d, 0x61, 0x63, 0x0a, 0xff, 0xfe, 0x0a]), 'not UTF-8'],
        ['mac\n' + Array.from({ length: 10_001 }, () => freshMac()).join('\n'), '10001 rows, more than 10000'],
      ]
      for (const [body, why] of bad) {
        const r = await importCsv(t, body)
        expectError(r, 422, 'IMPORT_INVALID', 'body')
        expect(r.body.detail, why).to.include(why)
      }
      const huge = await importCsv(t, 'mac,description\n' + `${freshMac()},${'x'.repeat(400)}\n`.repeat(12_000))
      expect(huge.status).to.equal(413)
      const json = await t.admin('POST', '/api/v1/nac/endpoints/import', { body: { mac: freshMac() } })
      expect(json.status).to.equal(415)
      expectError(await importCsv(t, 'mac\n', '?atomic=maybe'), 422, 'VALIDATION_FAILED', 'atomic')
      expect(await snapshot(t)).to.equal(before)
    })

    it('is gated by nac.write', async () => {
      const reader = await t.token({ permissions: ['nac.read'] })
      const writer = await t.token({ permissions: ['nac.write'] })
      const mac = freshMac()
      expect((await importCsv(t, `mac\n${mac}\n`, '', reader)).status).to.equal(403)
      const r = await importCsv(t, `mac\n${mac}\n`, '', writer)
      expect(r.status, r.text).to.equal(200)
      expect(r.body.created).to.equal(1)
    })
  })

  describe('export', () => {
    let g: any
    const tag = uniq('exp')
    before(async () => {
      g = await createGroup(t)
      const u = await createUser(t)
      await createEndpoint(t, { mac: '00:00:0c:e0:00:02', description: `${tag} =HYPERLINK("http://x")`, endpoint_group_id: g.id, owner_user_id: u.id })
      await createEndpoint(t, { mac: '00:00:0c:e0:00:01', description: `${tag} "quoted", comma`, endpoint_group_id: g.id })
    })

    const download = async (q: string, token = t.adminToken) => {
      const res = await fetch(`${t.url}/api/v1/nac/endpoints/export?${q}`, { headers: { authorization: `Bearer ${token}` } })
      return { res, buf: Buffer.from(await res.arrayBuffer()) }
    }

    it('writes the filtered, sorted list as CSV: the import\'s headers, RFC 4180, formulas neutralized', async () => {
      const { res, buf } = await download(`format=csv&endpoint_group_id=${g.id}&sort_by=mac&sort_order=desc`)
      expect(res.status).to.equal(200)
      expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8')
      expect(res.headers.get('x-service-export-rows')).to.equal('2')
      expect(res.headers.get('x-service-export-truncated')).to.equal(null)
      expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="nac-endpoints-\d{8}-\d{6}\.csv"$/)
      const text = buf.toString('utf8')
      expect(text.startsWith('\uFEFFmac,description,endpoint_group,owner,vendor,locally_administered,device_type,')).to.equal(true)
      const lines = text.slice(1).split('\r\n')
      expect(lines[1].startsWith(`00:00:0c:e0:00:02,${tag} =HYPERLINK(""http://x"")`.replace(`${tag} =HYPERLINK(""http://x"")`, `"${tag} =HYPERLINK(""http://x"")"`))).to.equal(true)
      expect(lines[2]).to.include(`"${tag} ""quoted"", comma",${g.name},,"Cisco`)
      expect(lines.length).to.equal(4)
    })

    it('writes xlsx with plain cells, and imports back unchanged', async () => {
      const { res, buf } = await download(`search=${tag}`)
      expect(res.headers.get('content-type')).to.equal('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
      const wb = new ExcelJS.Workbook()
      await wb.xlsx.load(buf as unknown as ArrayBuffer)
      const ws = wb.worksheets[0]
      expect(ws.getRow(1).getCell(1).value).to.equal('mac')
      expect(ws.getRow(2).getCell(1).value).to.equal('00:00:0c:e0:00:01')
      expect(ws.getRow(3).getCell(2).value).to.equal(`${tag} =HYPERLINK("http://x")`)
      expect(ws.rowCount).to.equal(3)
      // The CSV export imports back as it is: every row unchanged, the read-only columns ignored.
      const csv = (await download(`format=csv&search=${tag}`)).buf
      const r = await importCsv(t, csv)
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.include({ applied: true, rows: 2, unchanged: 2, refused: 0 })
      expect(r.body.ignored_columns).to.include.members(['vendor', 'device_type', 'last_seen_at'])
    })

    it('refuses a bad filter in the envelope, and is gated by nac.read', async () => {
      const r = await t.admin('GET', '/api/v1/nac/endpoints/export?mac=01:02:03:04:05:06')
      expectError(r, 422, 'MAC_GROUP_ADDRESS', 'mac')
      expectError(await t.admin('GET', '/api/v1/nac/endpoints/export?format=pdf'), 422, 'VALIDATION_FAILED', 'format')
      expect((await download('format=csv', await t.token({ permissions: ['nac.write'] }))).res.status).to.equal(403)
      expect((await download('format=csv', await t.token({ permissions: ['nac.read'] }))).res.status).to.equal(200)
    })
  })
})
