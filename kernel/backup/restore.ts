/**
 * `portcullis restore`: an archive into an empty installation, on either
 * engine, whichever engine made it. It never boots the server (a first start
 * would create an administrator and register the node). It reads the sealed
 * manifest and checks the key, the versions and the target before it writes
 * anything; then, in ONE transaction, it brings the target's schema to the
 * archive's, empties the tables, creates the missing partitions, loads the
 * rows in foreign-key order as it reads them, checks every member against
 * the sealed contents and sets the sequences. Anything wrong (a damaged or
 * changed member, a truncated file, a failure, a kill) rolls it all back and
 * leaves the target as it was. Only after the commit does it run this
 * version's newer migrations (--force).
 */
import path from 'node:path'
import type { Knex } from 'knex'
import semverGt from 'semver/functions/gt.js'
import semverValid from 'semver/functions/valid.js'
import type { DatabaseService, Logger } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import type { Config } from '../config.js'
import { connect } from '../db/connect.js'
import { appliedHead, expectedHead, migrateAll, type MigrationOwner } from '../db/migrate.js'
import { loadMasterKey } from '../security/master-key.js'
import { privateUmask, protectDataDir } from '../security/data-dir.js'
import { platformVersion } from '../version.js'
import { foreignKeys, keyConstraints, listPartitions, listTables, plainIndexes, quoteIdent } from './catalog.js'
import { copyIn } from './copy.js'
import { countRows, NEUTRAL_SETTINGS } from './dump.js'
import { BackupErrors } from './errors.js'
import { memberOf, type Manifest } from './manifest.js'
import { migrateTo, unknownHeads, whatItHolds } from './target.js'
import { ArchiveReader } from './verify.js'

/**
 * From this many rows a table's indexes (its plain ones, and its primary key and unique constraints that
 * no foreign key uses) are dropped for the load and built again after it, as pg_restore builds them after
 * the data: one sorted build instead of an index update per row.
 */
const REBUILD_INDEXES_FROM = 50_000

/** A progress line for each table of at least this many rows (the others load in an instant). */
const PROGRESS_FROM = 1000

export interface RestoreRequest {
  file: string
  force: boolean
  config: Config
  owners: MigrationOwner[]
  log: Logger
  /** A line per step, for the operator. */
  progress?: (line: string) => void
  /** Tables of at least this many rows load without their indexes, built after (default REBUILD_INDEXES_FROM; tests lower it). */
  rebuildIndexesFrom?: number
}

export interface RestoreSummary {
  manifest: Manifest
  tables: number
  rows: number
}

const later = (a: string | null | undefined, b: string | null | undefined) => (a ?? '') > (b ?? '')

/** The refusals that need only the archive and this code: versions and plugins. */
function checkVersions(m: Manifest, owners: MigrationOwner[], version: string, force: boolean): void {
  const newerApp = semverValid(m.app_version) && semverValid(version) && semverGt(m.app_version, version)
  const expected = expectedHead(owners)
  // A schema past this code's last migration, or one it does not have (another line of versions).
  const newerSchema = Object.entries(m.schema).filter(([o, head]) => o in expected && later(head, expected[o])).map(([o, h]) => `${o} ${h}`)
  const what = [...new Set([...newerSchema, ...unknownHeads(owners, m.schema)])]
  if (newerApp || what.length) throw BackupErrors.fromNewerVersion({ vars: { archive: m.app_version, version, schema: what.join(', ') || '-' } })
  const missing = Object.entries(m.schema).filter(([o, head]) => head && !(o in expected)).map(([o]) => o)
  if (missing.length) throw BackupErrors.pluginMissing({ vars: { plugins: missing.join(', ') } })
  if (m.app_version !== version && !force) throw BackupErrors.versionMismatch({ vars: { archive: m.app_version, version } })
}

export async function restoreArchive(r: RestoreRequest): Promise<RestoreSummary> {
  const say = r.progress ?? (() => undefined)
  const version = platformVersion(r.config.serviceVersion)
  const material = loadMasterKey({ ...r.config, mayGenerate: false }).material
  if (!material) throw BackupErrors.masterKeyMissing({ vars: { file: path.join(r.config.dataDir, 'master.key') } })

  const reader = await ArchiveReader.open(r.file, material)
  try {
    const { manifest } = reader
    say(`restore: archive of ${manifest.tables.length} tables, app_version ${manifest.app_version}, made ${manifest.created_at} on node ${manifest.node_id} (${manifest.engine}); sealed by this master key`)
    checkVersions(manifest, r.owners, version, r.force)
    return await restoreInto(r, reader, say)
  } finally {
    await reader.close()
  }
}

async function restoreInto(r: RestoreRequest, reader: ArchiveReader, say: (s: string) => void): Promise<RestoreSummary> {
  const { manifest } = reader
  // What the embedded engine writes under DATA_DIR is the service user's alone, as when the server runs (security/data-dir.ts).
  const releaseUmask = privateUmask()
  const db = await connect({ ...r.config, dbStatementTimeoutMs: 0, log: r.log })
  try {
    try {
      await db.knex.raw('select 1')
    } catch (e) {
      throw new BootError('DATABASE_UNREACHABLE', `cannot reach the database: ${(e as Error).message}`)
    }
    const holds = await whatItHolds(db.knex)
    if (holds) throw BackupErrors.targetNotEmpty({ vars: { what: holds } })
    const have = await appliedHead(db.knex, r.owners)
    // A plugin the archive has no data of keeps whatever schema it has here; the others must not be past the archive's.
    const ahead = Object.entries(have).filter(([o, head]) => head && manifest.schema[o] && later(head, manifest.schema[o])).map(([o, h]) => `${o} ${h}`)
    if (ahead.length) throw BackupErrors.targetSchemaNewer({ vars: { schema: ahead.join(', '), archive: manifest.app_version } })

    const rows = await db.knex.transaction((trx) => load(trx, db, r, reader, say))
    // The archive's schema is now the database's; a newer version's migrations follow (--force).
    await migrateAll(db.knex, r.owners, r.log)
    say(`restore: ${manifest.tables.length} tables, ${rows} rows restored from ${r.file}`)
    return { manifest, tables: manifest.tables.length, rows }
  } finally {
    await db.knex.destroy().catch(() => undefined)
    if (db.engine === 'embedded') protectDataDir(r.config.dataDir, r.log)
    releaseUmask()
  }
}

/** The one transaction: all of the archive, or nothing. Returns the rows loaded. */
async function load(trx: Knex.Transaction, db: DatabaseService, r: RestoreRequest, reader: ArchiveReader, say: (s: string) => void): Promise<number> {
  const m = reader.manifest
  // The archive's schema, inside the transaction: a refused archive leaves not even that behind.
  await migrateTo(trx, r.owners, m.schema, r.log)
  say('restore: schema ready (the archive\'s); loading the rows')
  for (const s of NEUTRAL_SETTINGS) await trx.raw(s)
  // Checked again inside: nothing may have been written since the first look.
  const holds = await whatItHolds(trx)
  if (holds) throw BackupErrors.targetNotEmpty({ vars: { what: holds } })

  const present = new Map((await listTables(trx)).map((t) => [t.name, new Set(t.columns)]))
  for (const t of m.tables) {
    const cols = present.get(t.name)
    const missing = cols ? t.columns.filter((c) => !cols.has(c)) : null
    if (!cols || missing!.length) throw BackupErrors.archiveInvalid({ vars: { reason: `table ${t.name}${missing ? ` (columns ${missing.join(', ')})` : ''} is not in the schema its manifest names` } })
  }
  const tables = m.tables.map((t) => quoteIdent(t.name))
  // Derived rows (the log tables' counters and rollup) are in the archive as they were: no trigger may add to them.
  for (const t of tables) await trx.raw(`ALTER TABLE ${t} DISABLE TRIGGER USER`)
  await trx.raw(`TRUNCATE TABLE ${tables.join(', ')} CASCADE`)

  // Every month of the logs in its own partition, as in the source (a row of a month without one would land in
  // the default partition, and that month could never get its own).
  const partitions = new Set((await listPartitions(trx)).map((p) => p.name))
  for (const p of m.partitions) {
    if (partitions.has(p.name)) continue
    if (!/^(DEFAULT|FOR VALUES .*)$/s.test(p.bound)) throw BackupErrors.archiveInvalid({ vars: { reason: `partition ${p.name} has a bound this version cannot read` } })
    await trx.raw(`CREATE TABLE ${quoteIdent(p.name)} PARTITION OF ${quoteIdent(p.parent)} ${p.bound}`)
  }

  // The archive holds the tables in foreign-key order (dump.ts): a referenced table's rows come first.
  const at = new Map(m.tables.map((t, i) => [t.name, i]))
  for (const k of await foreignKeys(trx)) {
    if ((at.get(k.parent) ?? -1) > (at.get(k.child) ?? Infinity)) throw BackupErrors.archiveInvalid({ vars: { reason: `table ${k.child} comes before ${k.parent}, which it references` } })
  }
  const threshold = r.rebuildIndexesFrom ?? REBUILD_INDEXES_FROM
  for (const t of m.tables) {
    // The first members, until the table is known to be large or has no more: whether to load it without its indexes.
    const head: Buffer[] = []
    let headRows = 0
    for (let next = await reader.peek(); next && memberOf(next.name)?.table === t.name && headRows < threshold; next = await reader.peek()) {
      const member = takeMember(await reader.next(), t.name, head.length + 1)
      head.push(member)
      headRows += countRows(member)
    }
    if (!head.length) continue
    const table = quoteIdent(t.name)
    const rebuild = headRows >= threshold
    if (rebuild || headRows >= PROGRESS_FROM) say(`restore: loading ${t.name}`)
    const keys = rebuild ? await keyConstraints(trx, t.name) : []
    const indexes = rebuild ? await plainIndexes(trx, t.name) : []
    for (const k of keys) await trx.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${quoteIdent(k.name)}`)
    for (const i of indexes) await trx.raw(`DROP INDEX ${quoteIdent(i.name)}`)
    await copyIn(trx, db.engine, `${table} (${t.columns.map(quoteIdent).join(', ')})`, rowsOf(reader, t.name, head))
    if (rebuild) say(`restore: building the ${keys.length + indexes.length} indexes of ${t.name}`)
    for (const k of keys) await trx.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${quoteIdent(k.name)} ${k.definition}`)
    for (const i of indexes) await trx.raw(i.definition)
  }
  // Everything read is what was written: every member's checksum, none missing or added, the file complete.
  const contents = await reader.finish()
  for (const s of m.sequences) {
    const found = (await trx.raw('SELECT to_regclass(?) AS s', [quoteIdent(s.name)])) as { rows: { s: string | null }[] }
    if (found.rows[0].s) await trx.raw('SELECT setval(?::regclass, ?, ?)', [quoteIdent(s.name), s.last_value, s.is_called])
  }
  for (const t of tables) await trx.raw(`ALTER TABLE ${t} ENABLE TRIGGER USER`)
  return contents.tables.reduce((n, t) => n + t.rows, 0)
}

/** A data member, checked to be the next of its table (`data/<table>.<n>`). */
function takeMember(m: { name: string; data: Buffer } | null, table: string, n: number): Buffer {
  const at = m && memberOf(m.name)
  if (!at || at.table !== table || at.n !== n) throw BackupErrors.archiveTampered({ vars: { reason: `member ${m?.name ?? '(none)'} is not where the manifest's tables put it` } })
  return m!.data
}

/** A table's rows: the members read ahead, then the rest of its members as they come. */
async function* rowsOf(reader: ArchiveReader, table: string, head: Buffer[]): AsyncGenerator<Buffer> {
  yield* head
  for (let n = head.length + 1; memberOf((await reader.peek())?.name ?? '')?.table === table; n++) yield takeMember(await reader.next(), table, n)
}
