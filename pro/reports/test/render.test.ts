/**
 * The report renderers (pro/reports/render): one document of two sections
 * (the first cut at 3,000 rows with the runner's note, Cyrillic and hostile
 * text) rendered to each format and read back the way a user's program reads
 * it: the PDF with poppler (pdftotext, pdfinfo, pdftoppm), the xlsx with
 * exceljs, the HTML as text. No database: the embedded run only.
 */
import { execFile, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { inflateRawSync } from 'node:zlib'
import { expect } from 'chai'
import ExcelJS from 'exceljs'
import { runsOn } from '../../../test/kit/app.js'
import { countColour, decodePng } from '../../../test/kit/png.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { BAR_COLOUR, LINE_COLOUR } from '../render/charts.js'
import { renderReport } from '../render/index.js'
import { PDF_FONT } from '../render/pdf.js'
import { sheetName } from '../render/xlsx.js'
import { FIRST_TIME, HOSTILE, NOTE, ROWS, reportDocument } from './render-document.js'

const run = promisify(execFile)

/** The files of a zip (an xlsx), read through its central directory: stored or deflated entries. */
function unzip(zip: Buffer): Map<string, string> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  const count = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  const files = new Map<string, string>()
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10)
    const size = zip.readUInt32LE(at + 20)
    const nameLength = zip.readUInt16LE(at + 28)
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength)
    const local = zip.readUInt32LE(at + 42)
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const data = zip.subarray(start, start + size)
    files.set(name, (method === 8 ? inflateRawSync(data) : data).toString('utf8'))
    at += 46 + skip
  }
  return files
}
const hasPoppler = ['pdftotext', 'pdfinfo', 'pdftoppm'].every((p) => spawnSync(p, ['-v']).error === undefined)

// Renderers touch no database: one run is enough, the PostgreSQL one (the shorter of the two).
;(runsOn('postgres') ? describe : describe.skip)('report renderers', function () {
  this.timeout(60_000)
  let dir: string
  before(() => { dir = mkdtempSync(join(tmpdir(), 'report-render-')) })
  after(() => rmSync(dir, { recursive: true, force: true }))

  describe('PDF', () => {
    let file: string
    let pages: number
    let creationDate: string | undefined
    before(async function () {
      if (!hasPoppler) skipBecause(this, 'poppler-utils (pdftotext, pdfinfo, pdftoppm) is not installed')
      const r = await renderReport(reportDocument('en'), 'pdf')
      expect(r.contentType).to.equal('application/pdf')
      expect(r.extension).to.equal('pdf')
      file = join(dir, 'report.pdf')
      writeFileSync(file, r.content)
      const info = (await run('pdfinfo', ['-isodates', file])).stdout
      pages = Number(/^Pages:\s+(\d+)/m.exec(info)?.[1])
      creationDate = /^CreationDate:\s+(\S+)/m.exec(info)?.[1]
    })
    const text = async (first: number, last: number) => (await run('pdftotext', ['-f', String(first), '-l', String(last), '-layout', file, '-'], { maxBuffer: 64 << 20 })).stdout

    it('the first page is the summary: title, parameters, generated in the zone, figures, chart labels and values, the note', async () => {
      const p1 = await text(1, 1)
      for (const s of ['Weekly access report', 'Last 7 days (Europe/Moscow), device group: Core', 'Generated: 2026-11-08 09:30:00 (Europe/Moscow)',
        'Device administration', '3,000 of 12,345 rows shown', NOTE, 'Logins', '12,345', 'Failed logins', '42',
        'Failures by device', 'core-sw1', 'edge-rtr', 'Logins per day', '11-04', '2,105', 'Expiring']) expect(p1).to.include(s)
      // The table starts on the next page: no row on the summary.
      expect(p1).not.to.include('user-10')
    })

    it('draws the charts on the summary page as vector bars and a line', async () => {
      const prefix = join(dir, 'page')
      await run('pdftoppm', ['-f', '1', '-l', '1', '-r', '50', '-png', file, prefix])
      const img = decodePng(readFileSync(`${prefix}-001.png`))
      // At 50 dpi the four bars cover thousands of pixels of their colour, the line and its dots some dozens.
      expect(countColour(img, BAR_COLOUR, 10)).to.be.greaterThan(2000)
      expect(countColour(img, LINE_COLOUR, 10)).to.be.greaterThan(40)
      // Both in the chart area: the upper two thirds of the page, below the title.
      const inArea = { ...img, rgba: img.rgba.subarray(img.width * 4 * Math.round(img.height * 0.1), img.width * 4 * Math.round(img.height * 0.7)) }
      expect(countColour(inArea, BAR_COLOUR, 10)).to.equal(countColour(img, BAR_COLOUR, 10))
    })

    it('holds every row of the table over many pages, the header on each, numbered "page N of M"', async () => {
      expect(pages).to.be.greaterThan(20)
      const all = await text(1, pages)
      expect(all).to.include('user-7')
      expect(all).to.include(`user-${ROWS - 1}`)
      expect(all).to.include('2026-11-01 13:00:00') // the first row's time in Moscow (UTC+3)
      expect(all).to.include(HOSTILE.script)
      expect(all).to.include('show running-config interface')
      expect(all).not.to.include('END-OF-LONG') // cut at three lines
      expect(all).to.include('CN=radius.example.net')
      expect(all).to.include(`page 1 of ${pages}`)
      expect(all).to.include(`page ${pages} of ${pages}`)
      // The header of the first section's table on each of its pages (all but the summary and the last section's).
      const headers = all.split('\f').filter((p) => /Time\s+User\s+Device\s+Command/.test(p)).length
      expect(headers).to.equal(pages - 2)
    })

    it('renders Cyrillic text with the embedded DejaVu Sans', async function () {
      if (!existsSync(PDF_FONT)) skipBecause(this, `${PDF_FONT} is missing (Debian fonts-dejavu-core): without it the PDF has Latin text only`)
      const ru = join(dir, 'ru.pdf')
      writeFileSync(ru, (await renderReport(reportDocument('ru', 60), 'pdf')).content)
      const t = (await run('pdftotext', ['-f', '1', '-l', '3', '-layout', ru, '-'])).stdout
      for (const s of ['Еженедельный отчёт', 'Сформирован: 2026-11-08 09:30:00', 'Неудачные входы', 'Отказы по устройствам', 'коммутатор',
        'Сертификаты: срок действия [PKI]', 'Иван Петров', 'маршрутизатор-2', 'Пользователь', 'стр. 1 из']) expect(t).to.include(s)
    })

    it('renders the same document to the same bytes: dated when the report was generated', async () => {
      expect(creationDate).to.equal('2026-11-08T06:30:00Z')
      const [a, b] = [await renderReport(reportDocument('en', 200), 'pdf'), await renderReport(reportDocument('en', 200), 'pdf')]
      expect(a.content.equals(b.content)).to.equal(true)
    })
  })

  it('renders a section without rows and a chart without points in every format', async function () {
    const doc = reportDocument('en')
    doc.sections = [{ ...doc.sections[1], rows: [], totalRows: 0, charts: [{ title: { en: 'Nothing yet' }, kind: 'line', points: [] }] }]
    const html = (await renderReport(doc, 'html')).content.toString('utf8')
    expect(html).to.include('No rows in this time range.')
    expect(html).to.include('No data')
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load((await renderReport(doc, 'xlsx')).content as unknown as ArrayBuffer)
    expect(wb.worksheets[1].rowCount).to.equal(1) // the header alone
    if (!hasPoppler) skipBecause(this, 'poppler-utils is not installed')
    const file = join(dir, 'empty.pdf')
    writeFileSync(file, (await renderReport(doc, 'pdf')).content)
    const t = (await run('pdftotext', ['-layout', file, '-'])).stdout
    for (const s of ['Nothing yet', 'No data', 'No rows in this time range.', 'page 2 of 2']) expect(t).to.include(s)
  })

  describe('xlsx', () => {
    let wb: ExcelJS.Workbook
    let raw: Buffer
    before(async () => {
      const r = await renderReport(reportDocument('en'), 'xlsx')
      expect(r.contentType).to.equal('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
      raw = r.content
      wb = new ExcelJS.Workbook()
      await wb.xlsx.load(raw as unknown as ArrayBuffer)
    })

    it('has a Summary sheet and one sheet per section, names made valid', () => {
      expect(wb.worksheets.map((w) => w.name)).to.deep.equal(['Summary', 'Device administration', 'Сертификаты срок действия PKI'])
    })

    it('the Summary holds the parameters, the figures as numbers and the charts as tables', () => {
      const ws = wb.getWorksheet('Summary')!
      const rows = ws.getSheetValues().filter(Boolean).map((r) => (r as ExcelJS.CellValue[]).slice(1))
      expect(rows[0]).to.deep.equal(['Weekly access report — Еженедельный отчёт'])
      expect(rows).to.deep.include(['Logins', 12345])
      expect(rows).to.deep.include(['Top user', 'Иван Петров'])
      expect(rows).to.deep.include([NOTE])
      expect(rows).to.deep.include(['Failures by device'])
      expect(rows).to.deep.include(['core-sw1', 30])
      expect(rows).to.deep.include([HOSTILE.script, 5])
      expect(rows).to.deep.include(['Times are in Europe/Moscow'])
      const generated = rows.find((r) => r[0] === 'Generated')!
      expect((generated[1] as Date).toISOString()).to.equal('2026-11-08T09:30:00.000Z') // Moscow's wall clock
    })

    it('a section sheet: bold frozen header, typed values, every row, the note after them', () => {
      const ws = wb.getWorksheet('Device administration')!
      expect(ws.getRow(1).values).to.deep.equal([undefined, 'Time', 'User', 'Device', 'Command', 'Privileged', 'Count'])
      expect(ws.getRow(1).font?.bold).to.equal(true)
      expect(ws.views[0]).to.include({ state: 'frozen', ySplit: 1 })
      const first = ws.getRow(2)
      expect(first.getCell(1).value).to.be.instanceOf(Date)
      expect((first.getCell(1).value as Date).toISOString()).to.equal(new Date(FIRST_TIME + 3 * 3600_000).toISOString())
      expect(first.getCell(1).numFmt).to.equal('yyyy-mm-dd hh:mm:ss')
      expect(first.getCell(5).value).to.equal(true)
      expect(ws.getRow(3).getCell(6).value).to.equal(7)
      expect(ws.getRow(3).getCell(2).value).to.equal('Иван Петров')
      expect(ws.getRow(ROWS + 1).getCell(2).value).to.equal(`user-${ROWS - 1}`)
      expect(ws.getRow(ROWS + 3).getCell(1).value).to.equal(NOTE)
    })

    it('text that looks like a formula stays text', async () => {
      const ws = wb.getWorksheet('Device administration')!
      const cells = [4, 5, 6, 7, 8].map((r) => ws.getRow(r).getCell(2))
      expect(cells.map((c) => c.value)).to.deep.equal([HOSTILE.script, HOSTILE.formula, HOSTILE.plus, HOSTILE.at, HOSTILE.minus])
      for (const c of cells) expect(c.type).to.equal(ExcelJS.ValueType.String)
      // No formula anywhere in the file's sheets.
      const sheets = [...unzip(raw)].filter(([n]) => n.startsWith('xl/worksheets/sheet'))
      expect(sheets).to.have.length(3)
      for (const [, xml] of sheets) expect(xml).not.to.match(/<f[ >]/)
    })

    it('sheet names: at most 31 characters, no [ ] : * ? / \\, not quoted, not History, unique', () => {
      const taken = new Set<string>()
      const names = ['a/b\\c?d*e:f[g]h', 'x'.repeat(40), 'x'.repeat(40), "'quoted'", 'History', 'SUMMARY', 'summary', '[]', '😀'.repeat(20)]
        .map((t) => sheetName(t, taken))
      expect(names).to.deep.equal(['a b c d e f g h', 'x'.repeat(31), `${'x'.repeat(27)} (2)`, 'quoted', 'Sheet', 'SUMMARY', 'summary (2)', 'Sheet (2)', '😀'.repeat(15)])
      for (const n of names) expect(n.length).to.be.at.most(31)
    })
  })

  describe('HTML', () => {
    let html: string
    before(async () => {
      const r = await renderReport(reportDocument('en'), 'html')
      expect(r.contentType).to.equal('text/html; charset=utf-8')
      html = r.content.toString('utf8')
    })

    it('escapes every text: a script in a name or a chart label shows as text', () => {
      expect(html).not.to.match(/<script/i)
      expect(html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;')
      expect(html).to.include('=HYPERLINK(&quot;http://evil.example/&quot;,&quot;click&quot;)')
    })

    it('is self-contained: inline styles and SVG charts, no external resource', () => {
      expect(html.match(/<svg /g)).to.have.length(2)
      expect(html).to.include(`fill="${BAR_COLOUR}"`)
      expect(html).to.include('<polyline')
      expect(html).not.to.match(/<link|<img|<iframe|\bsrc=|@import|url\(/i)
      // The only URL outside the escaped data is SVG's namespace name, never fetched.
      const urls = html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, '').match(/https?:\/\/[^&"<\s]+/g) ?? []
      expect(urls).to.deep.equal(['http://evil.example/'])
    })

    it('holds the summary, every row and the note', () => {
      for (const s of ['Weekly access report — Еженедельный отчёт', 'Generated: 2026-11-08 09:30:00 (Europe/Moscow)', '12,345', 'Failures by device', NOTE, 'Сертификаты: срок действия [PKI]'])
        expect(html).to.include(s)
      expect(html.match(/<tr>/g)).to.have.length(ROWS + 2 + 2 + 2) // both sections' rows, their header rows, their figures' rows
      expect(html).to.include(`<td style="padding:3px 8px;border-bottom:1px solid #e2e2e2;vertical-align:top;text-align:left">user-${ROWS - 1}</td>`)
    })
  })
})
