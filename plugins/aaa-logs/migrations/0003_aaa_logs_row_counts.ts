import type { Knex } from 'knex'

/**
 * Exact row counts of the five log tables, kept by statement-level triggers,
 * so a list's `total` (every row of the kind, unfiltered) is one primary-key
 * read instead of a count of every row of the table on every request (about
 * 10 million rows per kind at the sizes of issue 5).
 *
 * The triggers are on the partitioned parents, AFTER … FOR EACH STATEMENT with
 * a transition table (which holds the rows of every partition touched), so a
 * multi-row INSERT (the ingester's batches), COPY, DELETE and TRUNCATE of the
 * parent all keep the count exact inside the writing transaction: it commits
 * or rolls back with the rows. An UPDATE moving a row between partitions does
 * not change the count. Not seen by the triggers: TRUNCATE, DROP or DETACH of
 * a single partition; whoever drops old months (no code of the platform does
 * yet) must subtract the partition's rows in the same transaction.
 *
 * Writers of one kind serialise on its counter row until they commit; the
 * ingester writes each file's batches one after another, so this costs one
 * short row lock per batch.
 *
 * The table names are spelled out here, not imported: a migration is frozen.
 */
const TABLES = ['aaa_log_tacacs_authn', 'aaa_log_tacacs_authz', 'aaa_log_tacacs_acct', 'aaa_log_radius_auth', 'aaa_log_radius_acct']

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE aaa_log_row_counts (
    table_name varchar(64) PRIMARY KEY,
    n bigint NOT NULL
  )`)
  await knex.raw(`CREATE FUNCTION aaa_log_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE aaa_log_row_counts SET n = n + (SELECT count(*) FROM aaa_new_rows) WHERE table_name = TG_TABLE_NAME;
      RETURN NULL;
    END $$`)
  await knex.raw(`CREATE FUNCTION aaa_log_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE aaa_log_row_counts SET n = n - (SELECT count(*) FROM aaa_old_rows) WHERE table_name = TG_TABLE_NAME;
      RETURN NULL;
    END $$`)
  await knex.raw(`CREATE FUNCTION aaa_log_count_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE aaa_log_row_counts SET n = 0 WHERE table_name = TG_TABLE_NAME;
      RETURN NULL;
    END $$`)
  for (const t of TABLES) {
    // Lock first so no row lands between the count and the trigger.
    await knex.raw(`LOCK TABLE ${t} IN SHARE ROW EXCLUSIVE MODE`)
    await knex.raw(`INSERT INTO aaa_log_row_counts (table_name, n) SELECT ?, count(*) FROM ${t}`, [t])
    await knex.raw(`CREATE TRIGGER ${t}_count_insert AFTER INSERT ON ${t} REFERENCING NEW TABLE AS aaa_new_rows FOR EACH STATEMENT EXECUTE FUNCTION aaa_log_count_insert()`)
    await knex.raw(`CREATE TRIGGER ${t}_count_delete AFTER DELETE ON ${t} REFERENCING OLD TABLE AS aaa_old_rows FOR EACH STATEMENT EXECUTE FUNCTION aaa_log_count_delete()`)
    await knex.raw(`CREATE TRIGGER ${t}_count_truncate AFTER TRUNCATE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION aaa_log_count_truncate()`)
  }
}
