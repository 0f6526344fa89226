/** Reading TACACS+ profiles with their ordered command sets, and checking what a write refers to. */
import type { Knex } from 'knex'
import type { RowOf } from '../../../sdk/index.js'
import type { TacacsProfile } from '../api.js'
import { TacacsErrors } from '../errors.js'
import type { ProfileTable } from '../tables.js'
import { iso } from './command-set-store.js'

type Db = Knex | Knex.Transaction

/** A profile's row with its command set ids in order (a subquery, see selectProfiles). */
type ProfileRow = Omit<RowOf<typeof ProfileTable>, 'enable_secret'> & { command_set_ids: string[]; has_enable_secret: boolean }

/**
 * Every column of the profiles and their ordered command set ids. The ids come
 * from a raw subquery, which knex's typing cannot see into: the row type is
 * stated here, once.
 */
export const selectProfiles = (db: Db): Knex.QueryBuilder<Knex.TableType<'tacacs_profiles'>, ProfileRow[]> =>
  db('tacacs_profiles').select(
    'tacacs_profiles.id',
    'tacacs_profiles.name',
    'tacacs_profiles.description',
    'tacacs_profiles.privilege_level',
    'tacacs_profiles.shell_attributes',
    'tacacs_profiles.default_action',
    'tacacs_profiles.services',
    'tacacs_profiles.enable_mode',
    'tacacs_profiles.enable_privilege_level',
    // Whether a secret is stored, never the verifier itself.
    db.raw('(tacacs_profiles.enable_secret IS NOT NULL) AS has_enable_secret'),
    'tacacs_profiles.created_at',
    'tacacs_profiles.updated_at',
    db.raw(
      `(SELECT coalesce(json_agg(pcs.command_set_id ORDER BY pcs.position), '[]'::json) FROM tacacs_profile_command_sets pcs WHERE pcs.profile_id = tacacs_profiles.id) AS command_set_ids`,
    ),
  )

export const toProfile = (r: ProfileRow): TacacsProfile => ({
  id: r.id,
  name: r.name,
  description: r.description,
  privilege_level: r.privilege_level,
  shell_attributes: r.shell_attributes,
  command_set_ids: r.command_set_ids,
  default_action: r.default_action,
  services: r.services,
  enable_mode: r.enable_mode,
  enable_privilege_level: r.enable_privilege_level,
  has_enable_secret: r.has_enable_secret,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export async function getProfile(db: Db, id: string): Promise<TacacsProfile | null> {
  const row = await selectProfiles(db).where('tacacs_profiles.id', id).first()
  return row ? toProfile(row) : null
}

/** The SHA-512 crypt verifier of the profile's enable secret, for the renderer only (null: none stored). */
export async function getEnableVerifier(db: Db, id: string): Promise<string | null> {
  const row = await db('tacacs_profiles').where({ id }).first('enable_secret')
  return row?.enable_secret ?? null
}

/** Every profile, by name. */
export async function listProfiles(db: Db): Promise<TacacsProfile[]> {
  return (await selectProfiles(db).orderBy([{ column: 'tacacs_profiles.name' }, { column: 'tacacs_profiles.id' }])).map(toProfile)
}

/**
 * 422 REFERENCE_NOT_FOUND at `command_set_ids[i]` for the first id naming no
 * set. The sets found are locked (KEY SHARE, as the foreign key would) so that
 * none is deleted before the profile's rows are written.
 */
export async function checkCommandSetIds(trx: Knex.Transaction, ids: readonly string[]): Promise<void> {
  if (!ids.length) return
  const found = new Set((await trx('tacacs_command_sets').whereIn('id', ids).forKeyShare().pluck('id')).map((id) => id.toLowerCase()))
  const i = ids.findIndex((id) => !found.has(id.toLowerCase()))
  if (i >= 0) throw TacacsErrors.commandSetNotFound({ field: `command_set_ids[${i}]`, vars: { id: ids[i] } })
}

/** Replaces the profile's ordered command sets. */
export async function writeProfileSets(trx: Knex.Transaction, profileId: string, ids: readonly string[]): Promise<void> {
  await trx('tacacs_profile_command_sets').where({ profile_id: profileId }).delete()
  if (ids.length) await trx('tacacs_profile_command_sets').insert(ids.map((command_set_id, position) => ({ profile_id: profileId, command_set_id, position })))
}
