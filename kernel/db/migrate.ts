/**
 * Migrations: the kernel's (migrations/) first, then each plugin's folder in
 * dependency order, each owner in its own table (`knex_migrations` for the
 * kernel, `knex_migrations_<plugin>` for a plugin). Forward-only: files export
 * `up` only. Idempotent: applied files are skipped, so a second start changes
 * nothing. A replica never migrates; it waits until the head has replicated.
 */
import { readdirSync, existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Knex } from 'knex'
import type { Logger } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'

export interface MigrationOwner {
  /** `kernel` or a plugin id. */
  owner: string
  dir: string
}

interface MigrationModule {
  up: (knex: Knex) => Promise<void>
}

export const migrationTable = (owner: string) => (owner === 'kernel' ? 'knex_migrations' : `knex_migrations_${owner.replace(/[^a-z0-9_]/g, '_')}`)

/** `0001_create_x.ts` in source, `.js` in dist; declarations and tests are not migrations. */
export function listMigrationFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  const names = readdirSync(dir).filter((f) => /^\d{4}_[\w-]+\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts'))
  // Knex records the name without extension, so source and build agree on what is applied.
  return [...new Set(names.map((f) => f.replace(/\.(ts|js|mjs)$/, '')))].sort()
}

export class FolderSource implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}
  async getMigrations() {
    return listMigrationFiles(this.dir)
  }
  getMigrationName(name: string) {
    return name
  }
  async getMigration(name: string): Promise<Knex.Migration> {
    const file = ['.js', '.mjs', '.ts'].map((ext) => path.join(this.dir, name + ext)).find(existsSync)
    if (!file) throw new Error(`migration ${name} not found in ${this.dir}`)
    const mod = (await import(pathToFileURL(file).href)) as MigrationModule
    if (typeof mod.up !== 'function') throw new Error(`migration ${file} exports no up()`)
    const up = async (knex: Knex) => {
      // A migration may rewrite or index a large table for longer than DB_STATEMENT_TIMEOUT_MS allows a
      // request: lift the limit for the migration's transaction only (SET LOCAL ends with it).
      if ((knex as Knex & { isTransaction?: boolean }).isTransaction) await knex.raw('SET LOCAL statement_timeout = 0')
      await mod.up(knex)
    }
    return { up, down: async () => { throw new Error('migrations are forward-only') } }
  }
}

export const urlToDir = (u: URL): string => fileURLToPath(u)

/**
 * The names each owner has applied, read in two statements for all owners
 * (knex's migrator asks information_schema several times per owner, which
 * costs ~50 ms a question on the embedded engine). A missing table: none.
 */
async function appliedNames(knex: Knex, owners: MigrationOwner[]): Promise<Map<string, string[]>> {
  const tables = owners.map((o) => migrationTable(o.owner))
  const found = (await knex.raw('select c.relname from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relname = any(?)', [tables])) as { rows: { relname: string }[] }
  const existing = new Set(found.rows.map((r) => r.relname))
  const present = owners.filter((o) => existing.has(migrationTable(o.owner)))
  const out = new Map<string, string[]>(owners.map((o) => [o.owner, []]))
  if (!present.length) return out
  const union = present.map((o) => knex(migrationTable(o.owner)).select(knex.raw('? as owner', [o.owner]), 'name'))
  const rows = (await knex.unionAll(union, true)) as { owner: string; name: string }[]
  for (const r of rows) out.get(r.owner)!.push(r.name)
  return out
}

export async function migrateAll(knex: Knex, owners: MigrationOwner[], log: Logger): Promise<void> {
  // Most starts have nothing to apply: then the migrator (its lock, its questions) is not run at all.
  // It runs for an owner whose applied names differ from its files in any way, and reports what it finds.
  const applied = await appliedNames(knex, owners)
  const upToDate = (o: MigrationOwner) => {
    const have = [...applied.get(o.owner)!].sort()
    const want = listMigrationFiles(o.dir)
    return have.length === want.length && have.every((n, i) => n === want[i])
  }
  for (const o of owners) {
    if (upToDate(o)) continue
    try {
      const [, applied] = (await knex.migrate.latest({ migrationSource: new FolderSource(o.dir), tableName: migrationTable(o.owner) })) as [number, string[]]
      if (applied.length) log.info({ owner: o.owner, applied }, 'migrations applied')
    } catch (e) {
      throw new BootError('MIGRATION_FAILED', `migrations of ${o.owner} failed: ${(e as Error).message}`)
    }
  }
}

/** The last applied migration of each owner: the schema revision system info reports. */
export async function appliedHead(knex: Knex, owners: MigrationOwner[]): Promise<Record<string, string | null>> {
  const head: Record<string, string | null> = {}
  const applied = await appliedNames(knex, owners)
  for (const o of owners) head[o.owner] = [...applied.get(o.owner)!].sort().at(-1) ?? null
  return head
}

/** The head this code expects: the last file of each owner. */
export function expectedHead(owners: MigrationOwner[]): Record<string, string | null> {
  return Object.fromEntries(owners.map((o) => [o.owner, listMigrationFiles(o.dir).at(-1) ?? null]))
}

// Names start with a zero-padded number, so string order is migration order.
const reached = (have: Record<string, string | null>, want: Record<string, string | null>) => Object.keys(want).every((k) => (have[k] ?? '') >= (want[k] ?? ''))

/** Every owner's applied head has reached what this code expects (a replica may serve). */
export async function schemaHeadReached(knex: Knex, owners: MigrationOwner[]): Promise<boolean> {
  return reached(await appliedHead(knex, owners), expectedHead(owners))
}

/** A replica's wait: poll until every owner's applied head has reached what this code expects. */
export async function waitForSchemaHead(knex: Knex, owners: MigrationOwner[], log: Logger, opts: { intervalMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  const want = expectedHead(owners)
  let logged = false
  for (;;) {
    let have: Record<string, string | null> = {}
    try {
      have = await appliedHead(knex, owners)
    } catch (e) {
      log.warn({ err: (e as Error).message }, 'replica: cannot read the schema head yet')
    }
    if (reached(have, want)) {
      if (logged) log.info({ head: want }, 'replica: schema head arrived, continuing')
      return
    }
    if (!logged) {
      log.info({ want, have }, 'replica: waiting for the schema head to arrive by replication (replicas never migrate)')
      logged = true
    }
    if (opts.signal?.aborted) throw new Error('aborted while waiting for the schema head')
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000))
  }
}
