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

/** The profiles using a command set, by name. */
export async function profilesUsingSet(db: Db, commandSetId: string): Promise<Reference[]> {
  const rows = (await db('tacacs_profile_command_sets as pcs')
    .join('tacacs_profiles as p', 'p.id', 'pcs.profile_id')
    .where('pcs.command_set_id', commandSetId)
    .orderBy([{ column: 'p.name' }, { column: 'p.id' }])
    .select('p.id', 'p.name')) as { id: string; name: string }[]
  return rows.map((r) => ({ type: 'tacacs_profile', id: r.id, name: r.name }))
}

/** Blocking references per command set id (ids naming no set count 0). */
export async function profileCountsBySet(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
  const rows = (await db('tacacs_profile_command_sets')
    .whereIn('command_set_id', ids)
    .groupBy('command_set_id')
    .select('command_set_id', db.raw('count(*)::int AS n'))) as { command_set_id: string; n: number }[]
  return new Map(rows.map((r) => [r.command_set_id.toLowerCase(), r.n]))
}
