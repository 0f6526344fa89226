import type { Knex } from 'knex'

/**
 * A plugin's tables are its own (docs/architecture.md): the rules stop pointing foreign keys at
 * the kernel's and other plugins' tables (users, user_groups, inventory_devices,
 * inventory_device_groups, tacacs_profiles, radius_profiles), and the policy stops keeping
 * triggers on those tables (aaa_policy_version_names, which bumped the version on a rename).
 * Their work moves to the owners' reference contract (sdk/references.ts; this plugin's side in
 * services/references.ts): a delete of a referenced user, group, device or device group is
 * refused by the guard, a deleted profile is cleared from the rules by the guard, a rename bumps
 * the version through the guard.
 *
 * The data stays: the columns, their values and their indexes are unchanged, and the foreign keys
 * held, so every reference names a record. A database made after 0001 and 0002 changed never had
 * them (so an edition without tacacs or radius migrates): both statements then find nothing.
 */
export async function up(knex: Knex): Promise<void> {
  const fks = (await knex.raw(
    `SELECT conname FROM pg_constraint WHERE conrelid = 'aaa_policy_rules'::regclass AND contype = 'f' AND confrelid <> conrelid ORDER BY conname`,
  )) as { rows: { conname: string }[] }
  for (const { conname } of fks.rows) await knex.raw('ALTER TABLE aaa_policy_rules DROP CONSTRAINT ??', [conname])

  const triggers = (await knex.raw(
    `SELECT n.nspname AS schema, c.relname AS tbl
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE t.tgname = 'aaa_policy_version_names' ORDER BY 1, 2`,
  )) as { rows: { schema: string; tbl: string }[] }
  for (const { schema, tbl } of triggers.rows) await knex.raw('DROP TRIGGER aaa_policy_version_names ON ??.??', [schema, tbl])
}
