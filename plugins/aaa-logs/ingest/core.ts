/**
 * The ingestion pipeline shared by the tailer, the CLI ingester and the replay
 * CLI: read complete lines of a file from its checkpoint, parse, drop the
 * excluded events (counting them), and write the rows, the quarantined lines,
 * the drop counters and the new checkpoint IN ONE TRANSACTION, so a crash at
 * any point followed by a restart yields every line exactly once.
 */
import { open } from 'node:fs/promises'
import type { Knex } from 'knex'
import type { DatabaseService, InsertOf, Logger } from '../../../sdk/index.js'
import { LOG_TABLE, protocolOf, type ExclusionMatcher, type LoadExclusions, type LogKind, type RadiusLogRecord } from '../api.js'
import { copyRows, encodeCopy, uuidv7, type CopyBatch } from './copy.js'
import type { RecordListeners } from './listeners.js'
import { parseLine, type Row } from './records.js'
import type { QuarantineTable } from '../tables.js'

type QuarantinedLine = InsertOf<typeof QuarantineTable>

export interface Checkpoint {
  inode: number
  offset: number
}

export interface CoreDeps {
  database: DatabaseService
  logger: Logger
  nodeId: string
  loadExclusions: LoadExclusions
  /** How often the exclusion rules are reloaded (ms). */
  exclusionReloadMs?: number
  /** Other plugins' listeners of the RADIUS records, called after each batch commits. */
  listeners?: RecordListeners
}

/** A line longer than this without a newline is cut and quarantined instead of waiting forever. */
export const MAX_LINE_BYTES = 1 << 20
const READ_CHUNK = 4 << 20
/** PostgreSQL accepts at most 65535 bind parameters per statement. */
const MAX_PARAMS = 60000

export interface Prepared {
  kind: LogKind
  source: string
  file: string
  inode: number
  endOffset: number
  /** The rows to INSERT (embedded engine), or none when `copy` holds them. */
  rows: Row[]
  /** PostgreSQL: the rows, already encoded for COPY (ingest/copy.ts). */
  copy: CopyBatch | null
  stored: number
  quarantine: QuarantinedLine[]
  drops: { exclusion_id: string; day: string; dropped: number }[]
  dropped: number
  /** The stored RADIUS records with their row ids, for the listeners (empty when none listens). */
  records: RadiusLogRecord[]
}

export interface BatchLine {
  offset: number
  raw: Buffer
  /** Set when the line was cut (too long, or the unterminated tail of a finished file). */
  cut?: string
}

export class IngestCore {
  private matcher: ExclusionMatcher = { match: () => null }
  private matcherLoadedAt = 0
  readonly checkpoints = new Map<string, Checkpoint>()
  /**
   * What this node last read from or wrote to the database for each checkpoint (null: no row). A batch
   * commits only while the stored checkpoint is still this one: batches are written with asynchronous
   * commit, and a failover can lose a commit this node saw succeed, rows and checkpoint together. The
   * memory must not run ahead of the database then, or the lost lines would never be read again.
   */
  private readonly persisted = new Map<string, Checkpoint | null>()
  /** Where the time goes (ms), and how many lines went each way. */
  readonly stats = { parseMs: 0, dbMs: 0, lines: 0, stored: 0, dropped: 0, quarantined: 0, copied: 0 }

  constructor(private readonly d: CoreDeps) {}

  private key = (source: string, file: string) => `${source}\u0000${file.slice(0, 512)}`

  /** The exclusion rules, reloaded every few seconds (outside any transaction: PGlite has one connection). */
  async exclusions(): Promise<ExclusionMatcher> {
    if (Date.now() - this.matcherLoadedAt >= (this.d.exclusionReloadMs ?? 5000)) {
      try {
        this.matcher = await this.d.loadExclusions(this.d.database.knex)
      } catch (e) {
        this.d.logger.warn({ err: e }, 'aaa-logs: cannot load the exclusion rules; keeping the previous ones')
      }
      this.matcherLoadedAt = Date.now()
    }
    return this.matcher
  }

  /** The checkpoint of a file (memory, else the database), or null. */
  async checkpoint(source: string, file: string): Promise<Checkpoint | null> {
    const k = this.key(source, file)
    const mem = this.checkpoints.get(k)
    if (mem) return mem
    const row = await this.d.database.knex('aaa_log_checkpoints').where({ node_id: this.d.nodeId, source, file: file.slice(0, 512) }).first('inode', 'offset_bytes')
    if (!row) {
      this.persisted.set(k, null)
      return null
    }
    const cp = { inode: row.inode, offset: row.offset_bytes }
    this.checkpoints.set(k, cp)
    this.persisted.set(k, { ...cp })
    return cp
  }

  /**
   * Forget every checkpoint whose stored value is no longer the one this node last saw (a commit lost
   * by a failover while the file was quiet): the next poll reads it from the database and reads the
   * lost lines again. Returns how many were forgotten.
   */
  async reconcile(): Promise<number> {
    if (!this.persisted.size) return 0
    const rows = await this.d.database.knex('aaa_log_checkpoints').where({ node_id: this.d.nodeId }).select('source', 'file', 'inode', 'offset_bytes')
    const stored = new Map(rows.map((r) => [this.key(r.source, r.file), { inode: Number(r.inode), offset: Number(r.offset_bytes) }]))
    let forgotten = 0
    for (const [k, mine] of [...this.persisted]) {
      if (sameCheckpoint(mine, stored.get(k) ?? null)) continue
      this.forget(k)
      forgotten++
    }
    if (forgotten) this.d.logger.warn({ checkpoints: forgotten }, 'aaa-logs: the stored checkpoints are behind this node (a commit lost by a database failover?); reading those lines again')
    return forgotten
  }

  private forget(k: string): void {
    this.checkpoints.delete(k)
    this.persisted.delete(k)
  }

  /** Remember a checkpoint in memory only (a reset after rotation: persisted with the next batch). */
  setCheckpoint(source: string, file: string, cp: Checkpoint): void {
    this.checkpoints.set(this.key(source, file), cp)
  }

  /** Store a checkpoint now (a renamed file taking over its inode's position). */
  async saveCheckpoint(source: string, file: string, cp: Checkpoint): Promise<void> {
    await this.d.database.knex.raw(
      `INSERT INTO aaa_log_checkpoints (node_id, source, file, inode, offset_bytes, updated_at) VALUES (?, ?, ?, ?, ?, now())
       ON CONFLICT (node_id, source, file) DO UPDATE SET inode = EXCLUDED.inode, offset_bytes = EXCLUDED.offset_bytes, updated_at = now()`,
      [this.d.nodeId, source, file.slice(0, 512), cp.inode, cp.offset],
    )
    this.checkpoints.set(this.key(source, file), cp)
    this.persisted.set(this.key(source, file), { ...cp })
  }

  /** Every checkpoint of a source held in memory, by file. */
  checkpointsOf(source: string): Map<string, Checkpoint> {
    const out = new Map<string, Checkpoint>()
    for (const [k, v] of this.checkpoints) {
      const [s, f] = k.split('\u0000')
      if (s === source) out.set(f, v)
    }
    return out
  }

  /** Write one batch: rows, quarantine, drop counters and the checkpoint, in one transaction. */
  async commit(kind: LogKind, source: string, file: string, inode: number, lines: BatchLine[], endOffset: number): Promise<{ stored: number; dropped: number; quarantined: number }> {
    return this.write(this.prepare(kind, source, file, inode, lines, endOffset, await this.exclusions()))
  }

  /** Parse and filter a batch (synchronous: the CPU half, overlapped with the previous batch's write). */
  prepare(kind: LogKind, source: string, file: string, inode: number, lines: BatchLine[], endOffset: number, matcher: ExclusionMatcher): Prepared {
    const t0 = performance.now()
    const protocol = protocolOf(kind)
    const rows: Row[] = []
    const records: RadiusLogRecord[] = []
    const listening = this.d.listeners?.active === true
    const quarantine: QuarantinedLine[] = []
    const drops = new Map<string, { exclusion_id: string; day: string; dropped: number }>()
    let dropped = 0
    for (const l of lines) {
      const p = l.cut ? ({ ok: false, reason: l.cut } as const) : parseLine(kind, l.raw)
      if (!p.ok) {
        quarantine.push({ node_id: this.d.nodeId, source, source_file: file.slice(0, 512), source_offset: l.offset, line: l.raw, reason: p.reason })
        continue
      }
      const ex = matcher.match(protocol, p.username)
      if (ex) {
        const day = p.timestamp.slice(0, 10)
        const k = `${ex}|${day}`
        const cur = drops.get(k)
        if (cur) cur.dropped++
        else drops.set(k, { exclusion_id: ex, day, dropped: 1 })
        dropped++
        continue
      }
      p.row.id = uuidv7()
      p.row.node_id = this.d.nodeId
      p.row.source_file = file.slice(0, 512)
      p.row.source_offset = l.offset
      rows.push(p.row)
      if (listening && p.record) records.push({ ...p.record, id: p.row.id as string } as RadiusLogRecord)
    }
    // PostgreSQL: encode for COPY now, in the CPU half that overlaps the previous batch's write.
    const copy = this.d.database.engine === 'postgres' ? encodeCopy(rows) : null
    this.stats.parseMs += performance.now() - t0
    this.stats.lines += lines.length
    return { kind, source, file, inode, endOffset, rows: copy ? [] : rows, copy, stored: rows.length, quarantine, drops: [...drops.values()], dropped, records }
  }

  /** The database half of a batch: one transaction. */
  async write(b: Prepared): Promise<{ stored: number; dropped: number; quarantined: number }> {
    const { kind, source, file, inode, endOffset, rows, copy, stored, quarantine, dropped } = b
    const t1 = performance.now()
    const k = this.key(source, file)
    const expected = this.persisted.get(k)
    await this.d.database.transaction(async (trx) => {
      if (expected !== undefined) {
        const now = await trx('aaa_log_checkpoints').where({ node_id: this.d.nodeId, source, file: file.slice(0, 512) }).forUpdate().first('inode', 'offset_bytes')
        if (!sameCheckpoint(expected, now ? { inode: Number(now.inode), offset: Number(now.offset_bytes) } : null)) {
          this.forget(k)
          throw new CheckpointMoved(source, file)
        }
      }
      // Rows and checkpoint commit together, so a commit lost by a database crash loses both and
      // the lines are read again (the next batch finds the stored checkpoint behind this node's, or
      // reconcile() does): exactly-once holds without waiting for the WAL flush or the standby.
      if (this.d.database.engine === 'postgres') await trx.raw('SET LOCAL synchronous_commit TO off')
      // A batch (up to aaa-logs.batch_size rows into tables with trigram indexes) must not be cut by the
      // statement timeout meant for requests: a cut batch is read again and could be cut again, forever.
      if (this.d.database.engine === 'postgres') await trx.raw('SET LOCAL statement_timeout = 0')
      if (copy) await copyRows(trx, LOG_TABLE[kind], copy)
      else await insertLogRows(trx, LOG_TABLE[kind], rows)
      await insertQuarantine(trx, quarantine)
      if (b.drops.length) {
        const list = b.drops
        await trx.raw(
          `INSERT INTO aaa_log_exclusion_drops (node_id, exclusion_id, day, dropped) VALUES ${list.map(() => '(?, ?, ?, ?)').join(', ')}
           ON CONFLICT (node_id, exclusion_id, day) DO UPDATE SET dropped = aaa_log_exclusion_drops.dropped + EXCLUDED.dropped`,
          list.flatMap((x) => [this.d.nodeId, x.exclusion_id, x.day, x.dropped]),
        )
      }
      await trx.raw(
        `INSERT INTO aaa_log_checkpoints (node_id, source, file, inode, offset_bytes, updated_at) VALUES (?, ?, ?, ?, ?, now())
         ON CONFLICT (node_id, source, file) DO UPDATE SET inode = EXCLUDED.inode, offset_bytes = EXCLUDED.offset_bytes, updated_at = now()`,
        [this.d.nodeId, source, file.slice(0, 512), inode, endOffset],
      )
    })
    this.checkpoints.set(k, { inode, offset: endOffset })
    this.persisted.set(k, { inode, offset: endOffset })
    const st = this.stats
    st.dbMs += performance.now() - t1
    st.stored += stored
    if (copy) st.copied += copy.rows
    st.dropped += dropped
    st.quarantined += quarantine.length
    // After the commit: the rows are stored whatever the listeners do (they never throw).
    if (b.records.length && this.d.listeners) await this.d.listeners.deliver(b.records)
    return { stored, dropped, quarantined: quarantine.length }
  }

  /**
   * Read `path` (which must still be inode `inode`) from `offset`, committing
   * batches of `batchSize` complete lines under the checkpoint (`source`, `file`).
   * `final`: the writer is done with this file (rotated away, or a replay), so
   * an unterminated last line is taken (and quarantined as truncated when it
   * does not parse). Returns the offset reached.
   */
  async drain(
    kind: LogKind,
    source: string,
    file: string,
    path: string,
    inode: number,
    offset: number,
    o: { batchSize: number; final?: boolean; shouldStop?: () => boolean; onProgress?: (offset: number, lines: number) => void },
  ): Promise<number> {
    let fh
    let pending: Promise<unknown> | null = null
    let failed: unknown = null
    try {
      fh = await open(path, 'r')
    } catch {
      return offset
    }
    try {
      const st = await fh.stat()
      if (st.ino !== inode) return offset
      if (st.size <= offset) return offset
      let pos = offset
      let carry: Buffer = Buffer.alloc(0)
      let batch: BatchLine[] = []
      let batchEnd = pos
      // One write in flight while the next batch is parsed; writes stay in file order.
      const settle = async () => {
        await pending
        pending = null
        if (failed) throw failed
      }
      const flush = async (last = false) => {
        if (batch.length) {
          const prepared = this.prepare(kind, source, file, inode, batch, batchEnd, await this.exclusions())
          const n = batch.length
          batch = []
          await settle()
          pending = this.write(prepared).then(
            () => o.onProgress?.(prepared.endOffset, n),
            (e: unknown) => void (failed = e),
          )
        }
        if (last) await settle()
      }
      let readPos = pos
      for (;;) {
        if (o.shouldStop?.()) break
        const buf = Buffer.allocUnsafe(READ_CHUNK)
        const { bytesRead } = await fh.read(buf, 0, READ_CHUNK, readPos)
        if (bytesRead === 0) break
        readPos += bytesRead
        const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead)
        let start = 0
        for (;;) {
          const nl = data.indexOf(0x0a, start)
          if (nl < 0) break
          let end = nl
          if (end > start && data[end - 1] === 0x0d) end--
          if (end > start) batch.push({ offset: pos, raw: data.subarray(start, end) })
          pos += nl + 1 - start
          start = nl + 1
          batchEnd = pos
          if (batch.length >= o.batchSize) {
            await flush()
            if (o.shouldStop?.()) {
              await flush(true)
              return pos
            }
          }
        }
        carry = Buffer.from(data.subarray(start))
        if (carry.length >= MAX_LINE_BYTES) {
          batch.push({ offset: pos, raw: carry.subarray(0, MAX_LINE_BYTES), cut: `line longer than ${MAX_LINE_BYTES} bytes (cut)` })
          pos += carry.length
          batchEnd = pos
          carry = Buffer.alloc(0)
        }
      }
      if (o.final && carry.length && !o.shouldStop?.()) {
        const p = parseLine(kind, carry)
        batch.push({ offset: pos, raw: carry, ...(p.ok ? {} : { cut: `truncated last line of a finished file: ${p.reason}` }) })
        pos += carry.length
        batchEnd = pos
      }
      await flush(true)
      return pos
    } finally {
      await pending // never leave a write behind: the next one must come after it
      await fh.close()
    }
  }
}

function sameCheckpoint(a: Checkpoint | null, b: Checkpoint | null): boolean {
  return a === null || b === null ? a === b : a.inode === b.inode && a.offset === b.offset
}

/** A batch refused because the stored checkpoint is not the one it continues from (nothing was written). */
export class CheckpointMoved extends Error {
  constructor(source: string, file: string) {
    super(`aaa-logs: the stored checkpoint of ${source} ${file} is not the one this node last wrote (a commit lost by a database failover?); the file is read again from the stored one`)
  }
}

/**
 * Log rows on the embedded engine: the whole batch as ONE jsonb parameter expanded by
 * jsonb_populate_recordset over the table's row type (much faster than a
 * multi-row VALUES with thousands of parameters).
 */
async function insertLogRows(trx: Knex.Transaction, table: string, rows: Row[]): Promise<void> {
  if (!rows.length) return
  const cols = Object.keys(rows[0])
  const list = cols.map((c) => `"${c}"`).join(', ')
  await trx.raw(`INSERT INTO ${table} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${table}, ?::jsonb)`, [JSON.stringify(rows)])
}

async function insertQuarantine(trx: Knex.Transaction, rows: QuarantinedLine[]): Promise<void> {
  if (!rows.length) return
  const cols = Object.keys(rows[0]).length
  const per = Math.max(1, Math.floor(MAX_PARAMS / cols))
  for (let i = 0; i < rows.length; i += per) await trx('aaa_log_quarantine').insert(rows.slice(i, i + per))
}
