/**
 * The embedded engine (PGlite) behind knex, made to answer exactly as
 * node-postgres does against a real server, so that code written and tested
 * on one engine behaves the same on the other. knex-pglite alone differs:
 *
 * - counts: it tags every answer with the knex method name (`DEL` for a
 *   delete, `COUNTER` for increment), so knex returns the raw result object
 *   instead of the affected row count (an MFA reset that checked
 *   `(await ….delete()) > 0` never saw a deletion); here the command tag and
 *   row count come from the server's CommandComplete message, as in pg;
 * - values: PGlite parses with its own parsers (int8 as number or BigInt,
 *   numeric as a string, bytea as Uint8Array, interval as text, arrays of
 *   every type); here every column goes through the parser node-postgres
 *   would use for its type (pg.types, including the kernel's own: int8 and
 *   numeric as numbers), and a type pg does not parse stays a string;
 * - parameters: PGlite serializes by the parameter's inferred type (a JS
 *   array sent to a jsonb column becomes JSON; pg makes it a PostgreSQL
 *   array literal, which the server refuses); here every value is prepared
 *   by pg's own prepareValue and the server parses the text, so a value one
 *   engine refuses the other refuses too, with the same SQLSTATE;
 * - statements without parameters go through the simple query protocol, as
 *   pg sends them (several statements in one string are allowed);
 * - errors keep PostgreSQL's fields (code, constraint, detail…) but lose the
 *   query parameters PGlite attaches, which pg never does (they could carry
 *   a password into a log line).
 *
 * A new data folder is not initialized by running initdb (seconds in
 * WebAssembly) but by copying a pristine cluster kept in a template folder,
 * made once per machine and PGlite version (see `openEmbedded`).
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, renameSync, rmSync, rmdirSync, constants as fsConstants } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import ClientPgLite from 'knex-pglite'
import pg from 'pg'
import type { Logger } from '../../sdk/index.js'

const require = createRequire(import.meta.url)
const { prepareValue } = require('pg/lib/utils.js') as { prepareValue(v: unknown): unknown }
/** PGlite's package folder (its exports hide package.json from require): …/node_modules/@electric-sql/pglite. */
const PGLITE_DIR = path.resolve(path.dirname(require.resolve('@electric-sql/pglite')), '..')
const PGLITE_VERSION = (JSON.parse(readFileSync(path.join(PGLITE_DIR, 'package.json'), 'utf8')) as { version: string }).version

/** What a PGlite query answers (the fields this module reads). */
interface PgliteResult {
  rows: unknown[]
  fields: { name: string; dataTypeID: number }[]
  command?: string
  rowCount?: number
  affectedRows?: number
}

/** The shape of node-postgres's Result, as knex's pg dialect and callers of `raw` read it. */
interface PgResult {
  command: string | null
  rowCount: number | null
  oid: number | null
  rows: unknown[]
  fields: { name: string; dataTypeID: number }[]
}

const asPgResult = (r: PgliteResult): PgResult => ({
  command: r.command ?? null,
  // The tag's count: rows returned by a SELECT, rows changed by INSERT/UPDATE/DELETE; none for DDL.
  rowCount: r.rowCount ?? null,
  oid: r.command === 'INSERT' ? 0 : null,
  rows: r.rows,
  fields: r.fields,
})

/** Every type parsed as node-postgres parses it, read at call time so a later pg.types.setTypeParser applies too. */
const pgParsers = new Proxy({} as Record<string, (x: string) => unknown>, {
  get: (_t, oid) => (typeof oid === 'string' && /^\d+$/.test(oid) ? pg.types.getTypeParser(Number(oid), 'text') : undefined),
  // PGlite registers its own array parsers after start: pg's (or none) are kept.
  set: () => true,
})

/** Every parameter prepared as node-postgres prepares it; the server then parses the text for its type. */
const pgSerializers = new Proxy({} as Record<string, (x: unknown) => string>, {
  get: (_t, oid) => (x: unknown) => {
    const v = prepareValue(x)
    if (typeof v === 'string') return v
    // pg sends a Buffer in binary format: the bytes themselves, which bytea's text input reads from hex.
    const bytes = v as Buffer
    return oid === '17' ? `\\x${bytes.toString('hex')}` : bytes.toString('utf8')
  },
  set: () => true,
})

function scrubError(e: unknown): unknown {
  if (e && typeof e === 'object') for (const k of ['query', 'params', 'queryOptions']) delete (e as Record<string, unknown>)[k]
  return e
}

interface QueryObject {
  sql: string
  bindings?: unknown[]
  method?: string
  options?: object
  response?: unknown
  output?: unknown
}

type BaseClient = InstanceType<typeof ClientPgLite> & {
  processResponse(obj: QueryObject, runner: unknown): unknown
}

/** knex's pg dialect over PGlite, with the differences above removed. */
class EmbeddedClientImpl extends (ClientPgLite as unknown as new (config: object) => BaseClient) {
  private opening: Promise<PGlite> | null = null

  // knex-pglite opens PGlite when knex is made; here it opens on the first query, from the template if the folder is new.
  _driver(): unknown {
    return null
  }

  async _acquireOnlyConnection(): Promise<PGlite> {
    const c = (this as unknown as { config: { connection: { filename: string; templateDir: string | null; log?: Logger } } }).config.connection
    this.opening ??= openEmbedded(c.filename, { templateDir: c.templateDir, log: c.log })
    return this.opening
  }

  override async destroyRawConnection(connection: PGlite): Promise<void> {
    this.opening = null
    await connection.close()
  }

  async _query(connection: PGlite, obj: QueryObject): Promise<QueryObject> {
    if (!obj.sql) throw new Error('The query is empty')
    try {
      if (obj.bindings && obj.bindings.length > 0) {
        obj.response = asPgResult((await connection.query(obj.sql, obj.bindings)) as PgliteResult)
      } else {
        // pg sends a statement without parameters with the simple protocol: several statements are
        // allowed and answer one result each.
        const results = ((await connection.exec(obj.sql)) as PgliteResult[]).map(asPgResult)
        obj.response = results.length === 1 ? results[0] : results
      }
    } catch (e) {
      throw scrubError(e)
    }
    return obj
  }

  override processResponse(obj: QueryObject, runner: unknown): unknown {
    // knex's pg dialect as is: it reads the real command tag and row count set by _query.
    const pgDialect = Object.getPrototypeOf(ClientPgLite.prototype) as BaseClient
    return pgDialect.processResponse.call(this, obj, runner)
  }
}

export const EmbeddedClient = EmbeddedClientImpl

/** The default template folder: beside the installed packages, one per PGlite version. */
export function defaultTemplateDir(): string {
  // …/node_modules/@electric-sql/pglite → …/node_modules/.cache/portcullis
  return path.join(PGLITE_DIR, '..', '..', '.cache', 'portcullis', `pglite-${PGLITE_VERSION}`)
}

const isCluster = (dir: string) => existsSync(path.join(dir, 'PG_VERSION'))

function newPglite(dir: string): PGlite {
  // pg_trgm, as real PostgreSQL's contrib has it: a plugin's substring search gets its trigram index on
  // this engine too (aaa-logs: a search over millions of log rows is an index scan, not a scan of them all).
  // Only made available here: nothing is created until a migration runs CREATE EXTENSION.
  const db = new PGlite(dir, { extensions: { pg_trgm } })
  // Replaced, not merged (PGlite's options spread an object): no PGlite parser or serializer is left to apply.
  db.parsers = pgParsers
  db.serializers = pgSerializers
  return db
}

/** A fresh sibling path for building a folder before it is renamed into place. */
const scratch = (dir: string) => `${dir}.tmp-${process.pid}-${Date.now().toString(36)}`

/**
 * Makes the template once: initdb in a scratch folder, then a rename, so a
 * process that stops half-way, or two that race, never leave a partial
 * template behind (the loser of a race throws its copy away).
 */
export async function ensureTemplate(templateDir: string = defaultTemplateDir()): Promise<boolean> {
  if (isCluster(templateDir)) return true
  mkdirSync(path.dirname(templateDir), { recursive: true })
  const tmp = scratch(templateDir)
  try {
    const db = newPglite(tmp)
    await db.waitReady
    await db.close()
    // PGlite writes some files 0666: nobody but the owner may change what every new data folder starts from.
    readOnlyForOthers(tmp)
    try {
      renameSync(tmp, templateDir)
    } catch (e) {
      if (!isCluster(templateDir)) throw e
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  return isCluster(templateDir)
}

function readOnlyForOthers(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) readOnlyForOthers(p)
    if (!e.isSymbolicLink()) chmodSync(p, statSync(p).mode & 0o755)
  }
}

/**
 * PGlite on `dir`. A folder without a cluster gets a copy of the template
 * (copy-on-write where the file system can), made first if missing; when the
 * template cannot be written (a read-only install), PGlite runs initdb in the
 * folder itself, as it would alone.
 */
export async function openEmbedded(dir: string, o: { templateDir: string | null; log?: Logger }): Promise<PGlite> {
  const empty = !existsSync(dir) || readdirSync(dir).length === 0
  if (empty && o.templateDir) {
    let ready = false
    try {
      ready = await ensureTemplate(o.templateDir)
    } catch (e) {
      o.log?.info({ template: o.templateDir, err: (e as Error).message }, 'embedded database: no template folder, initializing in place (slower)')
    }
    if (ready) {
      const tmp = scratch(dir)
      try {
        cpSync(o.templateDir, tmp, { recursive: true, mode: fsConstants.COPYFILE_FICLONE })
        if (existsSync(dir)) rmdirSync(dir)
        renameSync(tmp, dir)
      } finally {
        rmSync(tmp, { recursive: true, force: true })
      }
    }
  }
  const db = newPglite(dir)
  await db.waitReady
  return db
}
