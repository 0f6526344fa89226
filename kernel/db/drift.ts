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

export async function assertNoSchemaDrift(db: Knex, tables: TableDefinition[]): Promise<void> {
  const names = new Set<string>()
  for (const t of tables) {
    if (names.has(t.name)) throw new BootError('PLUGIN_INVALID', `table ${t.name} is declared twice: a table has one owner`)
    names.add(t.name)
  }
  const drift = await checkTables(db, tables)
  if (drift.length === 0) return
  const lines = drift.map((d) => `${d.table}${d.column ? `.${d.column}` : ''}: ${d.problem}`)
  throw new BootError('SCHEMA_DRIFT', `the database does not match the declared tables (a migration missing or a declaration stale): ${lines.join('; ')}`)
}
