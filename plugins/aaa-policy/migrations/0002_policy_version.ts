import type { Knex } from 'knex'

/**
 * The policy's version: one row, bumped by every statement that can change what the ordered rule
 * views (`listRules`) or the policy test's trace show. The policy test keeps those views in memory
 * and reads this one row per request to know whether they are still current (services/cache.ts).
 *
 * - aaa_policy_rules: any INSERT, UPDATE, DELETE or TRUNCATE (this also catches a profile delete,
 *   whose reference guard clears the rules' profile, and the compaction after a delete);
 * - renames of the records whose names the views carry: the owners announce them through the
 *   reference contract (services/references.ts bumps this row in the renaming transaction).
 *   Databases made before that change had triggers on the owners' tables for it; 0003 drops them.
 *
 * Statement-level, so a reorder of thousands of rows bumps it once. The row is updated inside the
 * writing transaction: readers see the new version exactly when they see the change.
 */

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE TABLE aaa_policy_version (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)')
  await knex.raw('INSERT INTO aaa_policy_version (id, version) VALUES (1, 1)')
  await knex.raw(`
    CREATE FUNCTION aaa_policy_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE aaa_policy_version SET version = version + 1 WHERE id = 1;
      RETURN NULL;
    END $$`)
  await knex.raw(
    'CREATE TRIGGER aaa_policy_version_rules AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON aaa_policy_rules FOR EACH STATEMENT EXECUTE FUNCTION aaa_policy_version_bump()',
  )
}
