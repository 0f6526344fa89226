/**
 * The database a restore writes into: whether it is empty, what schema it
 * has, and bringing it to the archive's schema before the rows are loaded.
 *
 * Empty means nothing was ever done with it: no schema at all (a database
 * just created, a new DATA_DIR), or a schema with no deploy, no audit entry
 * and no user but the administrator a first start creates, still waiting
 * for the first sign-in. Every change through the API or the command line
 * and every sign-in attempt is audited, so a server that was started (once
 * or many times) and never used is empty; one that was used is not.
 */
import type { Knex } from 'knex'
import type { Logger } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import { FolderSource, listMigrationFiles, migrationTable, type MigrationOwner } from '../db/migrate.js'
import { hasSchema } from './catalog.js'

const exists = async (db: Knex, table: string) => ((await db.raw('SELECT to_regclass(?) AS t', [table])) as { rows: { t: string | null }[] }).rows[0].t !== null

const hasRows = async (db: Knex, table: string) => ((await db.raw(`SELECT EXISTS (SELECT 1 FROM ${table}) AS e`)) as { rows: { e: boolean }[] }).rows[0].e

/** null when the database is empty; otherwise the table that says it is not, for the refusal's message. */
export async function whatItHolds(db: Knex): Promise<string | null> {
  if (!(await hasSchema(db))) return null
  if ((await exists(db, 'deploys')) && (await hasRows(db, 'deploys'))) return 'deploys'
  if ((await exists(db, 'audit_log')) && (await hasRows(db, 'audit_log'))) return 'audit_log'
  if (await exists(db, 'users')) {
    const users = (await db.raw('SELECT username, is_admin, must_change_password FROM users LIMIT 2')) as { rows: { username: string; is_admin: boolean; must_change_password: boolean }[] }
    const [u, other] = users.rows
    if (other || (u && !(u.username === 'admin' && u.is_admin && u.must_change_password))) return 'users'
  }
  return null
}

/** A migration source that stops at `head`: the schema the archive's rows were dumped from. */
class UpTo implements Knex.MigrationSource<string> {
  constructor(private readonly inner: FolderSource, private readonly head: string) {}
  async getMigrations() {
    return (await this.inner.getMigrations()).filter((n) => n <= this.head)
  }
  getMigrationName(name: string) {
    return name
  }
  getMigration(name: string) {
    return this.inner.getMigration(name)
  }
}

/** Migrates each owner the archive has up to the archive's head for it, and no further. */
export async function migrateTo(db: Knex, owners: MigrationOwner[], heads: Record<string, string | null>, log: Logger): Promise<void> {
  for (const o of owners) {
    const head = heads[o.owner]
    if (!head) continue
    try {
      const [, applied] = (await db.migrate.latest({ migrationSource: new UpTo(new FolderSource(o.dir), head), tableName: migrationTable(o.owner) })) as [number, string[]]
      if (applied.length) log.info({ owner: o.owner, applied }, 'restore: migrations applied up to the archive\'s schema')
    } catch (e) {
      throw new BootError('MIGRATION_FAILED', `migrations of ${o.owner} failed: ${(e as Error).message}`)
    }
  }
}

/** The owners whose archive head is a migration this code does not have (an archive of a newer or another version). */
export function unknownHeads(owners: MigrationOwner[], heads: Record<string, string | null>): string[] {
  const out: string[] = []
  for (const [owner, head] of Object.entries(heads)) {
    if (!head) continue
    const o = owners.find((x) => x.owner === owner)
    if (o && !listMigrationFiles(o.dir).includes(head)) out.push(`${owner} ${head}`)
  }
  return out
}
