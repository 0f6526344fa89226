/**
 * The CSV file of an endpoint import, read whole (it is bounded: IMPORT_MAX_BYTES,
 * IMPORT_MAX_ROWS) with csv-parse: RFC 4180 quoting, a byte-order mark, CRLF
 * or LF. What makes the file as a whole unreadable is one 422 IMPORT_INVALID
 * naming what (and the line); what is wrong with one row is that row's
 * refusal in the report (services/import.ts).
 */
import { readCsvImport, type CsvImportRow } from '../../../sdk/index.js'

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

export type CsvRow = Omit<CsvImportRow<WritableColumn>, 'expected'>

export interface CsvFile {
  columns: WritableColumn[]
  ignored: string[]
  expectedWidth: number
  rows: CsvRow[]
}

/** The SDK's reader (the device and user imports use it too), with the endpoints' columns; `mac` is the key. */
export function readCsv(bytes: Buffer): CsvFile {
  const file = readCsvImport(bytes, { columns: WRITABLE_COLUMNS, key: 'mac', ignored: IGNORED_COLUMNS, maxRows: IMPORT_MAX_ROWS })
  return { columns: file.columns, ignored: file.ignored, expectedWidth: file.rows[0]?.expected ?? file.columns.length, rows: file.rows }
}
