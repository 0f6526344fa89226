/**
 * The CSV file of an endpoint import, read whole (it is bounded: IMPORT_MAX_BYTES,
 * IMPORT_MAX_ROWS) with csv-parse: RFC 4180 quoting, a byte-order mark, CRLF
 * or LF. What makes the file as a whole unreadable is one 422 IMPORT_INVALID
 * naming what (and the line); what is wrong with one row is that row's
 * refusal in the report (services/import.ts).
 */
import { parse } from 'csv-parse/sync'
import { NacErrors as E } from '../errors.js'

export const IMPORT_MAX_BYTES = 4 * 1024 * 1024
export const IMPORT_MAX_ROWS = 10_000

/** Columns an import writes. `mac` is required; a column left out keeps what an existing endpoint has. */
export const WRITABLE_COLUMNS = ['mac', 'description', 'endpoint_group', 'owner'] as const
export type WritableColumn = (typeof WRITABLE_COLUMNS)[number]

/** The export's other columns: accepted (so an export imports back) and ignored, which the report says. */
export const IGNORED_COLUMNS = [
  'id', 'locally_administered', 'vendor', 'first_seen_at', 'last_seen_at', 'last_nas_ip', 'last_nas_port', 'last_auth_result',
  'device_type', 'device_type_confidence', 'device_type_reason', 'created_at', 'updated_at',
] as const

export interface CsvRow {
  /** 1 for the first row after the header. */
  row: number
  /** The file line the row ends on (the same line unless a quoted field spans several). */
  line: number
  cells: Partial<Record<WritableColumn, string>>
  /** More or fewer cells than the header names. */
  width: number
}

export interface CsvFile {
  columns: WritableColumn[]
  ignored: string[]
  expectedWidth: number
  rows: CsvRow[]
}

const invalid = (error: (typeof E)[keyof typeof E], vars: Record<string, unknown> = {}) => error({ field: 'body', vars })

export function readCsv(bytes: Buffer): CsvFile {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw invalid(E.importNotUtf8)
  }
  let records: { info: { lines: number }; record: string[] }[]
  try {
    records = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 16 * 1024 }) as unknown as typeof records
  } catch (e) {
    const err = e as { code?: string; lines?: number }
    throw invalid(E.importNotCsv, { line: err.lines ?? '?', problem: err.code ?? 'unreadable' })
  }
  if (!records.length) throw invalid(E.importEmpty)
  const header = records[0].record.map((h) => h.trim().toLowerCase())
  const seen = new Set<string>()
  const index: Partial<Record<WritableColumn, number>> = {}
  const ignored: string[] = []
  header.forEach((h, i) => {
    if (seen.has(h)) throw invalid(E.importRepeatedColumn, { column: h.slice(0, 40) })
    seen.add(h)
    if ((WRITABLE_COLUMNS as readonly string[]).includes(h)) index[h as WritableColumn] = i
    else if ((IGNORED_COLUMNS as readonly string[]).includes(h)) ignored.push(h)
    else throw invalid(E.importUnknownColumn, { column: h.slice(0, 40), known: [...WRITABLE_COLUMNS, ...IGNORED_COLUMNS].join(', ') })
  })
  if (index.mac === undefined) throw invalid(E.importNoMac)
  const data = records.slice(1)
  if (data.length > IMPORT_MAX_ROWS) throw invalid(E.importTooManyRows, { rows: data.length, max: IMPORT_MAX_ROWS })
  const columns = WRITABLE_COLUMNS.filter((c) => index[c] !== undefined)
  return {
    columns,
    ignored,
    expectedWidth: header.length,
    rows: data.map((r, i) => ({
      row: i + 1,
      line: r.info.lines,
      width: r.record.length,
      cells: Object.fromEntries(columns.map((c) => [c, r.record[index[c]!] ?? ''])) as CsvRow['cells'],
    })),
  }
}
