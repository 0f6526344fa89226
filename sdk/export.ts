/**
 * The one export writer. Every list that offers a download (AAA logs …)
 * turns its rows into a spreadsheet here, so every export has the same
 * formats, quoting, formula-injection protection, file names and headers.
 *
 * - `xlsx`: written with exceljs's streaming WorkbookWriter, row by row; the
 *   file is never built whole in memory. Every value is written as a plain
 *   cell (text, number, boolean), never as a formula.
 * - `csv`: RFC 4180: CRLF line ends, a field containing `"`, `,`, CR or LF is
 *   quoted and its `"` doubled. UTF-8 with a byte-order mark (spreadsheet
 *   programs then read non-ASCII text right).
 *
 * Formula injection: in CSV a text cell starting with `=`, `+`, `-`, `@`, a
 * tab or a CR is prefixed with `'` so a spreadsheet program shows it as text
 * instead of evaluating it (OWASP "CSV injection"). Numbers are left alone.
 */
import { PassThrough, type Readable } from 'node:stream'
import type ExcelJSModule from 'exceljs'
import { reply, type DownloadDeclaration, type Reply } from './route.js'
import { Type } from './schema.js'

export type ExportFormat = 'xlsx' | 'csv'
export const EXPORT_FORMATS = ['xlsx', 'csv'] as const

export type ExportCell = string | number | boolean | null

export interface ExportColumn<Row> {
  /** The header label (first row). */
  header: string
  /** The row property read when no `format` is given. */
  key: string
  /** Turns the row into the cell value; default: the `key` property (dates as ISO-8601, arrays joined by a space, objects as JSON). */
  format?: (row: Row) => unknown
  /** Column width in characters (xlsx only). */
  width?: number
}

export interface ExportFile {
  stream: Readable
  contentType: string
  /** `xlsx` or `csv`, without a dot. */
  extension: string
}

export const EXPORT_CONTENT_TYPE: Record<ExportFormat, string> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv; charset=utf-8',
}

/**
 * What every export answers, for the OpenAPI document: a route whose 200 is an
 * exportReply declares `download: EXPORT_DOWNLOAD` beside `response: { 200: 'file' }`.
 */
export const EXPORT_DOWNLOAD: DownloadDeclaration = {
  // The media types without parameters: CSV is sent as `text/csv; charset=utf-8`.
  mediaTypes: [EXPORT_CONTENT_TYPE.xlsx, 'text/csv'],
  headers: {
    'Content-Disposition': { description: 'attachment; filename="<base>-YYYYMMDD-HHMMSS.<xlsx|csv>" (UTC)', schema: Type.String(), required: true },
    'X-Service-Export-Rows': { description: 'The number of rows in the file', schema: Type.Integer({ minimum: 0 }), required: true },
    'X-Service-Export-Truncated': { description: '`true` when the export ceiling cut the filtered set; absent otherwise', schema: Type.Literal('true') },
  },
}

/** A plain value for a cell: dates as ISO-8601 UTC, arrays joined by a space, objects as JSON, bigint as a number when exact. */
export function toCell(v: unknown): ExportCell {
  if (v === null || v === undefined) return null
  if (v instanceof Date) return v.toISOString()
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.map((x) => String(x ?? '')).join(' ')
  return JSON.stringify(v)
}

const FORMULA_START = /^[=+\-@\t\r]/

/** Text that a spreadsheet program would evaluate gets a leading `'`. */
export const neutralizeFormula = (s: string): string => (FORMULA_START.test(s) ? `'${s}` : s)

/** One CSV field per RFC 4180, formula-neutralized. */
export function csvField(v: ExportCell): string {
  if (v === null) return ''
  const s = typeof v === 'string' ? neutralizeFormula(v) : String(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

const cellsOf = <Row>(columns: readonly ExportColumn<Row>[], row: Row): ExportCell[] =>
  columns.map((c) => toCell(c.format ? c.format(row) : (row as Record<string, unknown>)[c.key]))

/**
 * Writes the rows as a file, streamed: the returned stream is readable at once
 * and fills as the rows arrive. An error in the source ends the stream with it.
 */
export function writeExport<Row>(
  rows: AsyncIterable<Row> | Iterable<Row>,
  columns: readonly ExportColumn<Row>[],
  format: ExportFormat,
  opts: { sheetName?: string } = {},
): ExportFile {
  const out = new PassThrough()
  const run = format === 'csv' ? writeCsv(rows, columns, out) : writeXlsx(rows, columns, out, opts.sheetName ?? 'Export')
  run.catch((e: unknown) => out.destroy(e instanceof Error ? e : new Error(String(e))))
  return { stream: out, contentType: EXPORT_CONTENT_TYPE[format], extension: format }
}

async function writeCsv<Row>(rows: AsyncIterable<Row> | Iterable<Row>, columns: readonly ExportColumn<Row>[], out: PassThrough) {
  const write = async (line: string) => {
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', resolve))
  }
  await write('\uFEFF' + columns.map((c) => csvField(c.header)).join(',') + '\r\n')
  for await (const row of rows) await write(cellsOf(columns, row).map(csvField).join(',') + '\r\n')
  out.end()
}

async function writeXlsx<Row>(rows: AsyncIterable<Row> | Iterable<Row>, columns: readonly ExportColumn<Row>[], out: PassThrough, sheetName: string) {
  // Loaded on the first xlsx export, not at boot: exceljs alone takes a tenth of the server's start.
  const ExcelJS = ((await import('exceljs')) as unknown as { default: typeof ExcelJSModule }).default
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false })
  const ws = wb.addWorksheet(sheetName.slice(0, 31))
  ws.columns = columns.map((c) => ({ header: c.header, key: c.key, width: c.width ?? Math.min(60, Math.max(12, c.header.length + 2)) }))
  for await (const row of rows) ws.addRow(cellsOf(columns, row)).commit()
  ws.commit()
  await wb.commit()
}

/** `<base>-YYYYMMDD-HHMMSS.<ext>` in UTC, e.g. `tacacs-authorization-20261121-071500.xlsx`. */
export function exportFileName(base: string, extension: string, at: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0')
  const stamp = `${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}-${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}`
  return `${base}-${stamp}.${extension}`
}

/** The export rules every download follows: the file, its name, and the row-count headers. */
export function exportReply<Row>(o: {
  rows: AsyncIterable<Row> | Iterable<Row>
  columns: readonly ExportColumn<Row>[]
  format: ExportFormat
  /** The file name's stem (`tacacs-authorization`); a UTC time stamp and the extension are added. */
  fileBase: string
  /** Rows in the file. */
  rowCount: number
  /** True when the ceiling cut the filtered set. */
  truncated: boolean
  sheetName?: string
}): Reply {
  const file = writeExport(o.rows, o.columns, o.format, { sheetName: o.sheetName })
  const headers: Record<string, string> = {
    'Content-Disposition': `attachment; filename="${exportFileName(o.fileBase, file.extension)}"`,
    'X-Service-Export-Rows': String(o.rowCount),
    'Cache-Control': 'no-store',
  }
  if (o.truncated) headers['X-Service-Export-Truncated'] = 'true'
  return reply({ status: 200, stream: file.stream, contentType: file.contentType, headers })
}
