/** sdk/export.ts, the export writer every plugin uses: CSV quoting, formula neutralizing, file names, xlsx streaming. */
import { expect } from 'chai'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import { csvField, exportFileName, neutralizeFormula, toCell, writeExport, type ExportColumn } from '../../../sdk/index.js'

const collect = async (s: NodeJS.ReadableStream) => {
  const parts: Buffer[] = []
  for await (const c of s) parts.push(Buffer.from(c as Buffer))
  return Buffer.concat(parts)
}

describe('sdk export writer', () => {
  it('quotes CSV fields per RFC 4180', () => {
    expect(csvField('plain')).to.equal('plain')
    expect(csvField('a,b')).to.equal('"a,b"')
    expect(csvField('say "hi"')).to.equal('"say ""hi"""')
    expect(csvField('two\r\nlines')).to.equal('"two\r\nlines"')
    expect(csvField('lf\nonly')).to.equal('"lf\nonly"')
    expect(csvField(null)).to.equal('')
    expect(csvField(42)).to.equal('42')
    expect(csvField(-1)).to.equal('-1')
  })

  it('neutralizes formula-looking text', () => {
    for (const s of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(neutralizeFormula(s)).to.equal(`'${s}`)
    for (const s of ['1+1', 'a=b', '', "'quoted"]) expect(neutralizeFormula(s)).to.equal(s)
    expect(csvField('=HYPERLINK("x")')).to.equal(`"'=HYPERLINK(""x"")"`)
    expect(csvField('\r=1')).to.equal(`"'\r=1"`)
  })

  it('turns values into cells', () => {
    expect(toCell(new Date('2026-11-21T07:00:00Z'))).to.equal('2026-11-21T07:00:00.000Z')
    expect(toCell(['a', 'b'])).to.equal('a b')
    expect(toCell([{ name: 'x' }])).to.equal('[{"name":"x"}]')
    expect(toCell(10n)).to.equal(10)
    expect(toCell(undefined)).to.equal(null)
  })

  it('names files with a UTC time stamp', () => {
    expect(exportFileName('tacacs-authorization', 'xlsx', new Date('2026-01-02T03:04:05Z'))).to.equal('tacacs-authorization-20260102-030405.xlsx')
  })

  const columns: ExportColumn<{ n: number; s: string }>[] = [
    { header: 'N', key: 'n' },
    { header: 'Text', key: 's', format: (r) => r.s.toUpperCase() },
  ]
  async function* rows(count: number) {
    for (let n = 1; n <= count; n++) yield { n, s: n % 2 ? `row ${n}` : `=cmd ${n}` }
  }

  it('streams CSV from an async iterable', async () => {
    const f = writeExport(rows(3), columns, 'csv')
    expect(f).to.include({ contentType: 'text/csv; charset=utf-8', extension: 'csv' })
    const text = (await collect(f.stream)).toString('utf8')
    expect(text).to.equal("\uFEFFN,Text\r\n1,ROW 1\r\n2,'=CMD 2\r\n3,ROW 3\r\n")
    expect(parse(text, { bom: true })).to.deep.equal([['N', 'Text'], ['1', 'ROW 1'], ['2', "'=CMD 2"], ['3', 'ROW 3']])
  })

  it('streams xlsx rows with numbers as numbers and formula text as text', async () => {
    const f = writeExport(rows(2000), columns, 'xlsx', { sheetName: 'Probe' })
    expect(f.extension).to.equal('xlsx')
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load((await collect(f.stream)) as unknown as ArrayBuffer)
    const ws = wb.getWorksheet('Probe')!
    expect(ws.rowCount).to.equal(2001)
    expect(ws.getRow(1).values).to.deep.equal([undefined, 'N', 'Text'])
    expect(ws.getRow(3).getCell(1).value).to.equal(2)
    expect(ws.getRow(3).getCell(2).value).to.equal('=CMD 2')
    expect(ws.getRow(3).getCell(2).type).to.equal(ExcelJS.ValueType.String)
  })

  it('ends the stream with the source\'s error', async () => {
    async function* bad() {
      yield { n: 1, s: 'a' }
      throw new Error('source broke')
    }
    const f = writeExport(bad(), columns, 'csv')
    let err: Error | null = null
    try {
      await collect(f.stream)
    } catch (e) {
      err = e as Error
    }
    expect(err?.message).to.equal('source broke')
  })
})
