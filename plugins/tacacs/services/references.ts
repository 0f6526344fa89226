/**
 * Who refers to a command set or a profile. Blocking references make a
 * delete fail while they exist; auto-clearing ones are removed by the delete
 * itself (the referring record stays, without the reference).
 *
 * - A command set is referred to by profiles (blocking). Nothing refers to a
 *   set in a way a delete would clear, so its `auto_clearing` is empty.
 * - A profile is referred to by other plugins' records (AAA policy rules),
 *   whose reference a delete clears (auto-clearing): they are reported by the
 *   guards those plugins register on `references.tacacs_profile`
 *   (sdk/references.ts), not read here.
 */
import type { Knex } from 'knex'

type Db = Knex | Knex.Transaction

export interface Reference {
  type: string
  id: string
  name: string
}

export interface ReferenceReport {
  blocking: Reference[]
  auto_clearing: Reference[]
}

/** The profiles using a command set, by name (a profile holds a set once: the pair is unique). */
export async function profilesUsingSet(db: Db, commandSetId: string): Promise<Reference[]> {
  const rows = await db('tacacs_profiles')
    .whereIn('id', db('tacacs_profile_command_sets').where({ command_set_id: commandSetId }).select('profile_id'))
    .orderBy([{ column: 'name' }, { column: 'id' }])
    .select('id', 'name')
  return rows.map((r) => ({ type: 'tacacs_profile', id: r.id, name: r.name }))
}

/** Blocking references per command set id (ids naming no set count 0). */
export async function profileCountsBySet(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
  const rows = await db('tacacs_profile_command_sets').whereIn('command_set_id', ids).groupBy('command_set_id').select('command_set_id').count({ n: '*' })
  // count(*) is an int8: Number() whatever form the engine gives it in.
  return new Map(rows.map((r) => [r.command_set_id.toLowerCase(), Number(r.n)]))
}
