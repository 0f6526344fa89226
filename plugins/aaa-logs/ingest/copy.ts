/**
 * The ingester's write path on PostgreSQL: a batch's rows as one
 * `COPY … FROM STDIN` (text format) inside the batch's transaction, through
 * pg-copy-streams on the transaction's own connection, so the rows, the
 * quarantine, the drop counters and the checkpoint still commit together
 * (exactly once across kill -9). The rows are encoded while the batch is parsed
 * and filtered (excluded events never reach the stream), overlapping the
 * previous batch's write.
 *
 * The embedded engine (PGlite) has no COPY FROM STDIN over its knex driver: it
 * keeps the batched INSERT (one jsonb parameter expanded by
 * jsonb_populate_recordset), see core.ts.
 */
import { randomFillSync } from 'node:crypto'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Knex } from 'knex'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { Row } from './records.js'

/** Columns stored as jsonb (every other array is text[]). */
const JSONB = new Set(['reply_attributes'])

/** COPY text format: backslash, tab, newline and carriage return escaped; every other character as is (UTF-8). */
const esc = (s: string) => (/[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : s)

/** A text[] literal: every element double-quoted, `"` and `\` escaped (then escaped again for COPY by `esc`). */
const arrayLiteral = (xs: unknown[]) => `{${xs.map((x) => `"${String(x).replace(/[\\"]/g, (c) => '\\' + c)}"`).join(',')}}`

function field(col: string, v: unknown): string {
  if (v === null || v === undefined) return '\\N'
  if (JSONB.has(col)) return esc(JSON.stringify(v))
  if (Array.isArray(v)) return esc(arrayLiteral(v))
  if (typeof v === 'object') return esc(JSON.stringify(v))
  return esc(String(v))
}

export interface CopyBatch {
  columns: string[]
  data: Buffer
  rows: number
}

/** The rows of a batch as COPY text (the columns of the first row: a kind's rows all have the same). */
export function encodeCopy(rows: Row[]): CopyBatch | null {
  if (!rows.length) return null
  const columns = Object.keys(rows[0])
  const lines: string[] = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]
    let line = ''
    for (let c = 0; c < columns.length; c++) line += (c ? '\t' : '') + field(columns[c], r[columns[c]])
    lines[i] = line
  }
  return { columns, data: Buffer.from(lines.join('\n') + '\n', 'utf8'), rows: rows.length }
}

/** What knex's transaction client gives: the transaction's own pg connection. */
interface TrxClient {
  acquireConnection(): Promise<pg.ClientBase>
}

/** COPY the batch into `table` on the transaction's connection. */
export async function copyRows(trx: Knex.Transaction, table: string, b: CopyBatch): Promise<void> {
  const conn = await (trx.client as TrxClient).acquireConnection()
  const list = b.columns.map((c) => `"${c}"`).join(', ')
  const sink = conn.query(copyFrom(`COPY ${table} (${list}) FROM STDIN`))
  await pipeline(Readable.from([b.data]), sink)
}

const pool = Buffer.alloc(16 * 4096)
let poolAt = pool.length

/**
 * A time-ordered id (UUID version 7, RFC 9562: 48-bit Unix milliseconds, then
 * random bits). Ingested rows get these instead of the column's random default
 * so that the primary key (id, timestamp) grows at its right edge like the
 * time index instead of touching a random page of a large index for each row.
 */
export function uuidv7(now = Date.now()): string {
  if (poolAt >= pool.length) {
    randomFillSync(pool)
    poolAt = 0
  }
  const b = pool.subarray(poolAt, (poolAt += 16))
  b.writeUIntBE(now, 0, 6)
  b[6] = 0x70 | (b[6] & 0x0f)
  b[8] = 0x80 | (b[8] & 0x3f)
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}
