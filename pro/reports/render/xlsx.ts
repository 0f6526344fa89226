/**
 * The spreadsheet: a Summary sheet (the parameters, each section's figures
 * and its charts' data as small tables) and one sheet per section with every
 * row the run read: the header bold and frozen, numbers as numbers, times as
 * dates showing the report zone's wall clock (a spreadsheet cell has no zone;
 * the Summary says which one), booleans as booleans.
 *
 * Text is always written as a text cell, never as a formula, so a user name
 * or a command like `=HYPERLINK(...)` or `@SUM(...)` stays the text it was
 * (the same rule as sdk/export.ts; here no `'` is added since the cell's type
 * already says text and the value reads back unchanged).
 */
import { PassThrough } from 'node:stream'
import ExcelJS from 'exceljs'
import type { ReportColumn } from '@portcullis/sdk'
import type { ReportDocument } from './document.js'
import { cleanText, localized, parseTime, wallClock, type Cell } from './format.js'
import { wordsFor } from './words.js'

const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss'
/** Excel's limit of characters in a cell. */
const CELL_MAX = 32_767

/**
 * A sheet name Excel accepts: at most 31 characters, none of `[ ] : * ? / \`,
 * not starting or ending with `'`, not "History" (reserved), unique without
 * regard to case (a suffix " (2)" when taken).
 */
export function sheetName(title: string, taken: Set<string>): string {
  const limit = (s: string, n: number) => {
    let t = s.slice(0, n)
    if (/[\uD800-\uDBFF]$/.test(t)) t = t.slice(0, -1) // never split a character in two
    return t.trimEnd()
  }
  let base = cleanText(title).replace(/[[\]:*?/\\]/g, ' ').replace(/\s+/g, ' ').trim().replace(/^'+|'+$/g, '').trim()
  base = limit(base, 31)
  if (base === '' || base.toLowerCase() === 'history') base = 'Sheet'
  let name = base
  for (let n = 2; taken.has(name.toLowerCase()); n++) {
    const suffix = ` (${n})`
    name = limit(base, 31 - suffix.length) + suffix
  }
  taken.add(name.toLowerCase())
  return name
}

/** The zone's wall clock as a date-time cell (Excel reads the UTC fields as the shown time). */
function zonedCell(at: Date, timeZone: string): Date {
  const w = wallClock(at, timeZone)
  return new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second))
}

const text = (s: string) => cleanText(s).slice(0, CELL_MAX)

function cellValue(v: Cell, column: ReportColumn, timeZone: string): ExcelJS.CellValue {
  if (v === null || v === undefined) return null
  if (column.type === 'timestamp') {
    const d = parseTime(v)
    return d ? zonedCell(d, timeZone) : text(String(v))
  }
  if (column.type === 'integer') {
    const n = typeof v === 'number' ? v : Number(v)
    return typeof v !== 'boolean' && Number.isFinite(n) && String(v).trim() !== '' ? n : text(String(v))
  }
  if (typeof v === 'boolean') return v
  return text(String(v))
}

export async function renderXlsx(doc: ReportDocument): Promise<Buffer> {
  const words = wordsFor(doc.locale)
  // The streaming writer: each row is written out as it is added, not kept as a cell model
  // (a run may read a million rows; exceljs's in-memory workbook would take gigabytes).
  const out = new PassThrough()
  const chunks: Buffer[] = []
  out.on('data', (b: Buffer) => chunks.push(b))
  const ended = new Promise<void>((resolve, reject) => {
    out.on('end', resolve)
    out.on('error', reject)
  })
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: true })
  wb.creator = 'Portcullis'
  wb.lastModifiedBy = 'Portcullis'
  wb.title = text(doc.title)
  wb.created = doc.generatedAt
  wb.modified = doc.generatedAt
  const taken = new Set<string>()

  const summary = wb.addWorksheet(sheetName(words.summary, taken))
  summary.columns = [{ width: 48 }, { width: 22 }]
  const add = (values: ExcelJS.CellValue[], font?: Partial<ExcelJS.Font>) => {
    const row = summary.addRow(values)
    if (font) row.font = font
    return row
  }
  add([text(doc.title)], { bold: true, size: 14 })
  if (doc.subtitle) add([text(doc.subtitle)])
  add([words.generated, zonedCell(doc.generatedAt, doc.timeZone)]).getCell(2).numFmt = TIME_FORMAT
  add([words.timesIn(doc.timeZone)])
  for (const s of doc.sections) {
    add([])
    add([text(s.title)], { bold: true, size: 12 })
    add([words.rows(s.rows.length, s.totalRows, s.truncated)])
    if (s.note) add([text(s.note)], NOTE_FONT)
    for (const f of s.figures) add([text(localized(f.label, doc.locale)), typeof f.value === 'number' ? f.value : text(f.value)])
    for (const chart of s.charts) {
      add([])
      add([text(localized(chart.title, doc.locale))], { bold: true })
      add([words.label, words.value], { bold: true })
      for (const p of chart.points) add([text(p.label), p.value])
    }
  }
  summary.commit()

  for (const s of doc.sections) {
    const ws = wb.addWorksheet(sheetName(s.title, taken), { views: [{ state: 'frozen', ySplit: 1 }] })
    ws.columns = s.columns.map((c) => ({
      header: text(localized(c.title, doc.locale)),
      key: c.key,
      width: c.type === 'timestamp' ? 20 : c.type === 'integer' ? 12 : c.type === 'boolean' ? 9 : textWidth(s.rows, c, localized(c.title, doc.locale)),
    }))
    ws.getRow(1).font = { bold: true }
    if (s.columns.length > 0) ws.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: s.columns.length } }
    const times = s.columns.flatMap((c, i) => (c.type === 'timestamp' ? [i + 1] : []))
    for (const r of s.rows) {
      const row = ws.addRow(s.columns.map((c) => cellValue(r[c.key], c, doc.timeZone)))
      for (const i of times) row.getCell(i).numFmt = TIME_FORMAT
      row.commit()
    }
    if (s.note) {
      ws.addRow([]).commit()
      const note = ws.addRow([text(s.note)])
      note.font = NOTE_FONT
      note.commit()
    }
    ws.commit()
  }
  await wb.commit()
  await ended
  return Buffer.concat(chunks)
}

const NOTE_FONT: Partial<ExcelJS.Font> = { italic: true, color: { argb: 'FF9A3D00' } }

function textWidth(rows: Record<string, Cell>[], c: ReportColumn, title: string): number {
  let w = Math.max(12, title.length + 2)
  for (const r of rows.slice(0, 200)) w = Math.max(w, String(r[c.key] ?? '').length + 2)
  return Math.min(60, w)
}
