/**
 * The boot check behind `tables` declarations: the code's idea of each table
 * (the row types the compiler checks queries against) must match the migrated
 * database, or the server refuses to start naming every difference. A renamed
 * column then fails the build where the code uses it, and the boot where a
 * migration and a declaration disagree; never a query in production.
 */
import type { Knex } from 'knex'
import { checkTables, type TableDefinition } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'

/** The tables one owner (the kernel, a plugin) declares. */
export interface DeclaredTables {
  owner: string
  tables: readonly TableDefinition[]
}

/**
 * Every declared table, each with its one owner; PLUGIN_INVALID naming both owners when two
 * declare the same table (or one declares it twice). A manifest problem: checked before the
 * database is touched, so no migration of the offending plugin runs.
 */
export function declaredTables(owners: readonly DeclaredTables[]): TableDefinition[] {
  const ownerOf = new Map<string, string>()
  for (const o of owners) {
    for (const t of o.tables) {
      const first = ownerOf.get(t.name)
      if (first === o.owner) throw new BootError('PLUGIN_INVALID', `${o.owner} declares table ${t.name} twice`)
      if (first !== undefined) throw new BootError('PLUGIN_INVALID', `table ${t.name} is declared by both ${first} and ${o.owner}: a table has one owner`)
      ownerOf.set(t.name, o.owner)
    }
  }
  return owners.flatMap((o) => o.tables)
}

export async function assertNoSchemaDrift(db: Knex, tables: readonly TableDefinition[]): Promise<void> {
  const drift = await checkTables(db, tables)
  if (drift.length === 0) return
  const lines = drift.map((d) => `${d.table}${d.column ? `.${d.column}` : ''}: ${d.problem}`)
  throw new BootError('SCHEMA_DRIFT', `the database does not match the declared tables (a migration missing or a declaration stale): ${lines.join('; ')}`)
}
