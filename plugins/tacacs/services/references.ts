/**
 * Who refers to a command set or a profile. Blocking references make a
 * delete fail while they exist; auto-clearing ones are removed by the delete
 * itself (the referring record stays, without the reference).
 *
 * - A command set is referred to by profiles (blocking). Nothing refers to a
 *   set in a way a delete would clear, so its `auto_clearing` is empty.
 * - A profile is referred to by AAA policy rules, whose reference a delete
 *   sets to null (auto-clearing). They come from the policy source the AAA
 *   policy plugin registers; without one, there are none to list.
 */
import type { Knex } from 'knex'
import type { PolicySource } from '../api.js'

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

/** The AAA policy rules that name the profile, by name; none while no policy source is registered. */
export async function rulesUsingProfile(db: Db, source: PolicySource | null, profileId: string): Promise<Reference[]> {
  if (!source) return []
  const rules = (await source.listRules(db)).filter((r) => r.tacacs_profile_id === profileId)
  return rules.map((r) => ({ type: 'aaa_policy_rule', id: r.id, name: r.name })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1))
}
