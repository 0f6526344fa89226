/**
 * Writing an archive: one REPEATABLE READ, read-only transaction, so every
 * table (and the releases, which live in the database since issue 27) comes
 * from the same snapshot while the server keeps serving and writing. The
 * sealed manifest comes first; then each table's rows as COPY text in members
 * of at most PART_BYTES, cut at row boundaries, so memory stays small however
 * large the log tables are; then the sealed contents (every member's
 * checksum, each table's rows) last (manifest.ts).
 */
import { createHash } from 'node:crypto'
import type { Readable, Writable } from 'node:stream'
import { createGzip, constants as zlib } from 'node:zlib'
import type { DatabaseService } from '../../sdk/index.js'
import { appliedHead, type MigrationOwner } from '../db/migrate.js'
import { parseKdfParams } from '../security/unlock.js'
import { foreignKeys, listPartitions, listSequences, listTables, loadOrder, quoteIdent, type CatalogTable } from './catalog.js'
import { copyOut } from './copy.js'
import { CONTENTS, CONTENTS_SEAL, FORMAT, FORMAT_VERSION, keyId, MANIFEST, MANIFEST_SEAL, memberName, seal, type Contents, type Manifest } from './manifest.js'
import { TarWriter } from './tar.js'

/** A member's size: large enough that the per-member cost vanishes, small enough to hold one in memory. */
export const PART_BYTES = 8 * 1024 * 1024

/**
 * gzip level 1: the rows compress about 5× at any level (measured on the log tables), and the higher
 * levels cost several times the CPU of the dump itself (bench/backup.ts).
 */
const GZIP_LEVEL = 1

export interface BackupSource {
  db: DatabaseService
  /** The master key as unlocked: it seals the manifest; only its id goes into the archive. */
  key: Buffer
  version: string
  nodeId: string
  owners: MigrationOwner[]
}

export interface BackupSummary {
  tables: number
  rows: number
  members: number
  manifest: Manifest
  contents: Contents
}

/** Session settings under which both engines write the same text for every value. */
export const NEUTRAL_SETTINGS = [
  `SET LOCAL TimeZone = 'UTC'`,
  `SET LOCAL DateStyle = 'ISO, YMD'`,
  `SET LOCAL IntervalStyle = 'postgres'`,
  `SET LOCAL extra_float_digits = 3`,
  `SET LOCAL bytea_output = 'hex'`,
  // A large table takes longer than a request may (DB_STATEMENT_TIMEOUT_MS).
  `SET LOCAL statement_timeout = 0`,
]

/** Rows of COPY text: one line each (a newline inside a value is written escaped). */
export const countRows = (b: Buffer) => {
  let n = 0
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++
  return n
}

/** COPY chunks regrouped into parts of about PART_BYTES that end on a row boundary. */
async function* parts(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let held: Buffer[] = []
  let size = 0
  for await (const c of chunks) {
    held.push(c)
    size += c.length
    if (size < PART_BYTES) continue
    const all = Buffer.concat(held, size)
    const cut = all.lastIndexOf(10) + 1
    if (cut === 0) continue
    yield all.subarray(0, cut)
    held = cut < all.length ? [all.subarray(cut)] : []
    size = all.length - cut
  }
  if (size) yield Buffer.concat(held, size)
}

const selectOf = (t: CatalogTable) => {
  const cols = t.columns.map(quoteIdent).join(', ')
  // COPY reads a partitioned table only through a query (its rows are in the partitions).
  return t.partitioned ? `(SELECT ${cols} FROM ${quoteIdent(t.name)})` : `${quoteIdent(t.name)} (${cols})`
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const json = (x: unknown) => Buffer.from(JSON.stringify(x, null, 2) + '\n')

/** Writes the whole archive (uncompressed tar) to `out`, then ends it; on failure `out` is destroyed with the error. */
export async function writeArchive(src: BackupSource, out: Writable, onSnapshot: () => void = () => undefined): Promise<BackupSummary> {
  const tar = new TarWriter(out)
  try {
    const summary = await src.db.knex.transaction(async (trx) => {
      await trx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY')
      for (const s of NEUTRAL_SETTINGS) await trx.raw(s)
      // The first read fixes the snapshot: from here on nothing written elsewhere reaches the archive.
      const schema = await appliedHead(trx, src.owners)
      onSnapshot()
      const kdfText = (await trx('kernel_meta').where({ key: 'master_key_kdf' }).first('value'))?.value
      // In foreign-key order, so that a restore loads the archive as it reads it.
      const byName = new Map((await listTables(trx)).map((t) => [t.name, t]))
      const tables = loadOrder([...byName.keys()], await foreignKeys(trx)).map((n) => byName.get(n)!)
      const manifest: Manifest = {
        format: FORMAT,
        format_version: FORMAT_VERSION,
        app_version: src.version,
        schema,
        engine: src.db.engine,
        created_at: new Date().toISOString(),
        node_id: src.nodeId,
        master_key: { id: keyId(src.key), kdf: kdfText ? parseKdfParams(kdfText) : null },
        tables: tables.map((t) => ({ name: t.name, columns: t.columns })),
        partitions: await listPartitions(trx),
        sequences: await listSequences(trx),
      }
      const manifestBytes = json(manifest)
      await tar.add(MANIFEST, manifestBytes)
      await tar.add(MANIFEST_SEAL, Buffer.from(seal(src.key, MANIFEST, manifestBytes) + '\n'))
      const contents: Contents = { manifest_sha256: sha256(manifestBytes), tables: [], checksums: {} }
      let rows = 0
      for (const t of tables) {
        const entry = { name: t.name, rows: 0, members: [] as string[] }
        for await (const part of parts(copyOut(trx, src.db.engine, selectOf(t), src.db.knex))) {
          const name = memberName(t.name, entry.members.length + 1)
          await tar.add(name, part)
          contents.checksums[name] = sha256(part)
          entry.members.push(name)
          entry.rows += countRows(part)
        }
        rows += entry.rows
        contents.tables.push(entry)
      }
      return { tables: tables.length, rows, members: Object.keys(contents.checksums).length, manifest, contents }
    })
    const contentsBytes = json(summary.contents)
    await tar.add(CONTENTS, contentsBytes)
    await tar.add(CONTENTS_SEAL, Buffer.from(seal(src.key, CONTENTS, contentsBytes) + '\n'))
    await tar.finish()
    out.end()
    return summary
  } catch (e) {
    out.destroy(e as Error)
    throw e
  }
}

/**
 * The archive as a gzip stream, made while it is read (the route's answer):
 * the snapshot's transaction lasts as long as the reader takes. `done`
 * settles with the summary, or the error that cut the stream short.
 */
export function archiveStream(src: BackupSource): ArchiveStream {
  const gzip = createGzip({ level: GZIP_LEVEL, memLevel: 9, strategy: zlib.Z_DEFAULT_STRATEGY })
  let taken: () => void = () => undefined
  const snapshot = new Promise<void>((resolve) => (taken = resolve))
  const done = writeArchive(src, gzip, () => taken())
  done.catch(() => undefined)
  // Settled either way: by the snapshot, or by the failure that came before it.
  return { stream: gzip, done, snapshot: Promise.race([snapshot, done.then(() => undefined)]) }
}

export interface ArchiveStream {
  stream: Readable
  done: Promise<BackupSummary>
  /** Resolves once the snapshot is taken (the archive is as of that moment); rejects if the backup failed before. */
  snapshot: Promise<void>
}
