/**
 * A CSV import of records (devices, users): the file read whole and bounded,
 * then every row judged by the same code as the single-record route, each in
 * its own savepoint, the whole in one more savepoint that a dry run or an
 * atomic import with a refused row rolls back. The conventions are those of
 * the endpoint import (docs/nac.md, Import): what makes the file unreadable is
 * one 422 IMPORT_INVALID naming why; what is wrong with one row is that row's
 * refusal in the report, with the code, column and message the API answers for
 * the same value; the report never repeats a cell's value beyond the row's key.
 */
import type { Knex } from 'knex'
import { parse } from 'csv-parse/sync'
import { defineError, isPortcullisError, type PortcullisError } from './errors.js'
import { Nullable, StringEnum, Type, Uuid } from './schema.js'

export const ImportErrors = {
  notUtf8: defineError(422, 'IMPORT_INVALID', 'core:import.not_utf8'),
  notCsv: defineError(422, 'IMPORT_INVALID', 'core:import.not_csv'),
  empty: defineError(422, 'IMPORT_INVALID', 'core:import.empty'),
  missingColumn: defineError(422, 'IMPORT_INVALID', 'core:import.missing_column'),
  unknownColumn: defineError(422, 'IMPORT_INVALID', 'core:import.unknown_column'),
  repeatedColumn: defineError(422, 'IMPORT_INVALID', 'core:import.repeated_column'),
  tooManyRows: defineError(422, 'IMPORT_INVALID', 'core:import.too_many_rows'),
  rowWidth: defineError(422, 'IMPORT_ROW_INVALID', 'core:import.row_width'),
  cellInvalid: defineError(422, 'IMPORT_ROW_INVALID', 'core:import.cell_invalid'),
  duplicate: defineError(409, 'DUPLICATE_IN_FILE', 'core:import.duplicate'),
  nameNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'core:import.name_not_found'),
}

export interface CsvImportSpec<C extends string> {
  /** The columns an import writes, lower case. */
  columns: readonly C[]
  /** The key column, required (it names the record in the report). */
  key: C
  /** Columns accepted and not written (an export's read-only ones), so an export imports back. */
  ignored?: readonly string[]
  maxRows: number
}

export interface CsvImportRow<C extends string> {
  /** 1 for the first row after the header. */
  row: number
  /** The file line the row ends on. */
  line: number
  /** The cells of the columns the file has; a column it lacks is absent. */
  cells: Partial<Record<C, string>>
  /** Cells in the row, against `expected` the header names. */
  width: number
  expected: number
}

export interface CsvImportFile<C extends string> {
  columns: C[]
  ignored: string[]
  rows: CsvImportRow<C>[]
}

const invalid = (e: (typeof ImportErrors)[keyof typeof ImportErrors], vars: Record<string, unknown> = {}) => e({ field: 'body', vars })

/** Reads the CSV file (RFC 4180, UTF-8, a byte-order mark allowed), refusing it whole when it cannot be imported. */
export function readCsvImport<C extends string>(bytes: Buffer, spec: CsvImportSpec<C>): CsvImportFile<C> {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw invalid(ImportErrors.notUtf8)
  }
  let records: { info: { lines: number }; record: string[] }[]
  try {
    records = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 16 * 1024 }) as unknown as typeof records
  } catch (e) {
    const err = e as { code?: string; lines?: number }
    throw invalid(ImportErrors.notCsv, { line: err.lines ?? '?', problem: err.code ?? 'unreadable' })
  }
  const known = [...spec.columns, ...(spec.ignored ?? [])].join(', ')
  if (!records.length) throw invalid(ImportErrors.empty, { known })
  const header = records[0].record.map((h) => h.trim().toLowerCase())
  const index = new Map<C, number>()
  const ignored: string[] = []
  const seen = new Set<string>()
  header.forEach((h, i) => {
    if (seen.has(h)) throw invalid(ImportErrors.repeatedColumn, { column: h.slice(0, 40) })
    seen.add(h)
    if ((spec.columns as readonly string[]).includes(h)) index.set(h as C, i)
    else if (spec.ignored?.includes(h)) ignored.push(h)
    else throw invalid(ImportErrors.unknownColumn, { column: h.slice(0, 40), known })
  })
  if (!index.has(spec.key)) throw invalid(ImportErrors.missingColumn, { column: spec.key, known })
  const data = records.slice(1)
  if (data.length > spec.maxRows) throw invalid(ImportErrors.tooManyRows, { rows: data.length, max: spec.maxRows })
  const columns = spec.columns.filter((c) => index.has(c))
  return {
    columns,
    ignored,
    rows: data.map((r, i) => ({
      row: i + 1,
      line: r.info.lines,
      width: r.record.length,
      expected: header.length,
      cells: Object.fromEntries(columns.map((c) => [c, r.record[index.get(c)!] ?? ''])) as Partial<Record<C, string>>,
    })),
  }
}

export type ImportOutcome = 'created' | 'updated' | 'unchanged' | 'skipped' | 'refused'

export interface ImportRowResult {
  row: number
  line: number
  /** The row's key as given (at most 128 characters), null when empty. */
  key: string | null
  outcome: ImportOutcome
  id: string | null
  code: string | null
  field: string | null
  detail: string | null
}

export interface ImportRunOptions {
  atomic: boolean
  dryRun: boolean
}

/** What judging one row answers: the outcome and the record it touched. Throw a PortcullisError to refuse the row. */
export interface RowVerdict {
  outcome: Exclude<ImportOutcome, 'refused'>
  id: string | null
  /** A write that changed nothing is rolled back (its savepoint), so `updated_at` stays. */
  rollback?: boolean
}

/** Thrown inside a savepoint to undo it; never leaves runCsvImport. */
class Undo extends Error {}

/**
 * Runs `judge` on every row, each in its own savepoint inside one more: a refused row's savepoint is
 * rolled back; the whole is rolled back for a dry run, or an atomic import with a refused row. A row
 * sees the rows before it (a name repeated in the file is refused at its second row with the code the
 * API answers, as for a second request). `fieldOf` turns an error's field (`group_ids[0]`) into the
 * file's column (`groups`). Anything but a PortcullisError is a fault and ends the request.
 */
export async function runCsvImport<C extends string>(
  trx: Knex.Transaction,
  file: CsvImportFile<C>,
  o: ImportRunOptions,
  d: { t(key: string, vars?: Record<string, unknown>): string; key: C; fieldOf(field: string | null): string | null; judge(row: CsvImportRow<C>, sp: Knex.Transaction): Promise<RowVerdict> },
): Promise<{ applied: boolean; results: ImportRowResult[] }> {
  const results: ImportRowResult[] = []
  const refuse = (r: ImportRowResult, e: PortcullisError) => Object.assign(r, { outcome: 'refused' as const, id: null, code: e.code, field: d.fieldOf(e.field), detail: d.t(e.messageKey, e.vars) })
  let applied = false
  try {
    await trx.transaction(async (all) => {
      for (const row of file.rows) {
        const key = (row.cells[d.key] ?? '').trim()
        const r: ImportRowResult = { row: row.row, line: row.line, key: key.slice(0, 128) || null, outcome: 'refused', id: null, code: null, field: null, detail: null }
        results.push(r)
        if (row.width !== row.expected) {
          refuse(r, ImportErrors.rowWidth({ field: null, vars: { cells: row.width, expected: row.expected } }))
          continue
        }
        try {
          await all.transaction(async (sp) => {
            const v = await d.judge(row, sp)
            Object.assign(r, { outcome: v.outcome, id: v.id })
            if (v.rollback) throw new Undo()
          })
        } catch (e) {
          if (e instanceof Undo) continue
          if (!isPortcullisError(e)) throw e
          refuse(r, e)
        }
      }
      if (o.dryRun || (o.atomic && results.some((r) => r.outcome === 'refused'))) throw new Undo()
    })
    applied = true
  } catch (e) {
    if (!(e instanceof Undo)) throw e
    // Nothing was written: a row that would have created a record has no id to show.
    for (const r of results) if (r.outcome === 'created') r.id = null
  }
  return { applied, results }
}

/** Boolean cells: `true`/`false`, `yes`/`no`, `1`/`0` (any case); empty is absent. Anything else refuses the row at its column. */
export function csvBoolean(cell: string | undefined, column: string): boolean | undefined {
  const v = (cell ?? '').trim().toLowerCase()
  if (v === '') return undefined
  if (['true', 'yes', '1'].includes(v)) return true
  if (['false', 'no', '0'].includes(v)) return false
  throw ImportErrors.cellInvalid({ field: column, vars: { column, allowed: 'true, false, yes, no, 1, 0' } })
}

/** The query every CSV import takes. */
export const CsvImportQuery = Type.Object(
  {
    atomic: Type.Optional(Type.Boolean({ default: true, description: '`true` (default): one refused row and nothing is written (`applied: false`); the report still judges every row. `false`: the rows that pass are written, the refused ones reported.' })),
    dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Judge every row, exactly as a real import would, and write nothing (`applied: false`).' })),
  },
  { additionalProperties: false },
)

/** The report of a CSV import; `title` names the schema (`DeviceImportReport`), `key` the key column. */
export function csvImportReport(title: string, key: string, codes: string) {
  const count = (description: string) => Type.Integer({ minimum: 0, description })
  const row = Type.Object(
    {
      row: Type.Integer({ minimum: 1, description: 'The data row: 1 is the first after the header.' }),
      line: Type.Integer({ minimum: 1, description: 'The file line the row ends on (the same line unless a quoted field spans several).' }),
      key: Nullable(Type.String({ description: `The row's \`${key}\` cell as given (at most 128 characters); null when empty. No other cell is repeated back (secrets and passwords never are).` })),
      outcome: StringEnum(['created', 'updated', 'unchanged', 'skipped', 'refused'] as const),
      id: Nullable(Uuid({ description: 'The record created, updated, left unchanged or skipped; null when refused, or when nothing was written for a row that would have created one.' })),
      code: Nullable(Type.String({ description: `For a refused row: the code the API answers for the same value (${codes}, IMPORT_ROW_INVALID, or the validation codes).` })),
      field: Nullable(Type.String({ description: 'For a refused row: the column at fault, or null for the row as a whole.' })),
      detail: Nullable(Type.String({ description: 'For a refused row: why, in the language of Accept-Language.' })),
    },
    { title: `${title}Row`, additionalProperties: false },
  )
  return Type.Object(
    {
      applied: Type.Boolean({ description: 'Whether anything was written: false for a dry run, and for an atomic import with a refused row.' }),
      atomic: Type.Boolean(),
      dry_run: Type.Boolean(),
      rows: count('Data rows in the file.'),
      created: count('Rows that created a record (or would have, when `applied` is false).'),
      updated: count('Rows that changed an existing record (or would have).'),
      unchanged: count('Rows whose record already had those values.'),
      skipped: count('Rows left alone (see the route).'),
      refused: count('Rows refused; each says why.'),
      columns: Type.Array(Type.String(), { description: 'The columns the import wrote from.' }),
      ignored_columns: Type.Array(Type.String(), { description: 'Columns accepted and not written.' }),
      results: Type.Array(row, { description: 'Every data row, in file order.' }),
    },
    { title, additionalProperties: false },
  )
}

/** The report's counts, from the results. */
export function importCounts(results: readonly ImportRowResult[]) {
  const n = (x: ImportOutcome) => results.filter((r) => r.outcome === x).length
  return { rows: results.length, created: n('created'), updated: n('updated'), unchanged: n('unchanged'), skipped: n('skipped'), refused: n('refused') }
}
