import type { Knex } from 'knex'

/**
 * A rollup of the five log tables, kept by statement-level triggers in the
 * writing transaction (like migration 0003's row counts), so a list's
 * `total_by_filter` is a sum over a few rollup rows instead of a count of
 * every matching row (issue 11: 10 million rows per kind over 90 days).
 *
 * One row per (log table, dimension, value, time bucket, enum values):
 * - `dim` is the list filter the row answers: `node_id` (every row has one, so
 *   summing over its values answers a list with no such filter), `username`,
 *   `nas_ip`, and the kind's exact text filters (`rule_name`, `profile`,
 *   `service`); `val` is the row's value of it (text; an address as `inet::text`,
 *   so `2001:db8:0::1` and `2001:db8::1` are one value). NULL values are not
 *   rolled up: an equality filter never matches them.
 * - `bucket` is the start of the UTC hour for the dimensions of few values
 *   (nodes, rule names, profiles, services) and of the UTC day for the many
 *   (user names, devices), whose partial edge days the list counts through
 *   their own (username, timestamp) and (nas_ip, timestamp) indexes.
 * - `e1`, `e2` are the kind's enum filters (status/action/acct_status_type, and
 *   RADIUS auth_type), '' where the kind has none or the value is NULL. The
 *   day-grained dimensions keep `e1` only (`e2` ''): they are the many rows,
 *   and a user's or device's day split four ways by auth_type would be more.
 *
 * Keys are ordered (table, dimension, bucket, value, …): the rows a batch of
 * fresh events touches (this hour's, this day's) sit together in the primary
 * key, so the ingester's upserts stay on a few hot pages however large the
 * rollup grows; a second index (table, dimension, value, bucket) serves the
 * lists' reads of one value over a window. `n` is in neither index and the
 * table keeps free room per page (fillfactor 70), so an upsert of an existing
 * row is a HOT update that touches no index at all.
 *
 * Each statement's rows are grouped once (one pass over the transition table)
 * and upserted in key order, so concurrent writers take the rollup rows' locks
 * in the same order; they already serialise on 0003's counter row, taken first.
 * DELETE subtracts, UPDATE moves, TRUNCATE of the parent clears the table's
 * rows. As with 0003, TRUNCATE, DROP or DETACH of a single partition is not
 * seen: whoever drops old months must subtract their rollup rows in the same
 * transaction.
 *
 * Names and columns are spelled out here, not imported: a migration is frozen.
 */
const KINDS: Record<string, { e1: string; e2: string | null; text: string[] }> = {
  aaa_log_tacacs_authn: { e1: 'status', e2: null, text: ['rule_name', 'profile'] },
  aaa_log_tacacs_authz: { e1: 'action', e2: null, text: ['rule_name', 'profile', 'service'] },
  aaa_log_tacacs_acct: { e1: 'action', e2: null, text: [] },
  aaa_log_radius_auth: { e1: 'status', e2: 'auth_type', text: [] },
  aaa_log_radius_acct: { e1: 'acct_status_type', e2: null, text: [] },
}

const HOUR = `interval '1 hour'`
const DAY = `interval '1 day'`

/** The rollup contributions of the rows of `source` (a transition table or the table itself), `sign` 1 or -1. */
function contributions(table: string, source: string, sign: 1 | -1): string {
  const k = KINDS[table]
  const dims = [
    `('node_id', r.node_id::text, ${HOUR})`,
    `('username', r.username::text, ${DAY})`,
    `('nas_ip', r.nas_ip::text, ${DAY})`,
    ...k.text.map((c) => `('${c}', r.${c}::text, ${HOUR})`),
  ]
  const e2 = k.e2 ? `CASE WHEN d.grain = ${DAY} THEN '' ELSE coalesce(r.${k.e2}::text, '') END` : `''`
  return `SELECT '${table}', d.dim, date_bin(d.grain, r.timestamp, TIMESTAMPTZ '1970-01-01 00:00:00+00') AS bucket, d.val,
      coalesce(r.${k.e1}::text, '') AS e1, ${e2} AS e2, ${sign} * count(*)
    FROM ${source} r CROSS JOIN LATERAL (VALUES ${dims.join(', ')}) AS d(dim, val, grain)
    WHERE d.val IS NOT NULL
    GROUP BY d.dim, bucket, d.val, e1, e2
    ORDER BY d.dim, bucket, d.val, e1, e2`
}

const upsert = (select: string) => `INSERT INTO aaa_log_rollup (table_name, dim, bucket, val, e1, e2, n) ${select}
    ON CONFLICT (table_name, dim, bucket, val, e1, e2) DO UPDATE SET n = aaa_log_rollup.n + EXCLUDED.n`

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE aaa_log_rollup (
    table_name varchar(64) NOT NULL,
    dim varchar(16) NOT NULL,
    bucket timestamptz NOT NULL,
    val text NOT NULL,
    e1 varchar(32) NOT NULL,
    e2 varchar(16) NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (table_name, dim, bucket, val, e1, e2)
  ) WITH (fillfactor = 70)`)
  await knex.raw('CREATE INDEX aaa_log_rollup_val ON aaa_log_rollup (table_name, dim, val, bucket)')
  for (const t of Object.keys(KINDS)) {
    await knex.raw(`CREATE FUNCTION ${t}_rollup_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${upsert(contributions(t, 'aaa_new_rows', 1))};
        RETURN NULL;
      END $$`)
    await knex.raw(`CREATE FUNCTION ${t}_rollup_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${upsert(contributions(t, 'aaa_old_rows', -1))};
        RETURN NULL;
      END $$`)
    await knex.raw(`CREATE FUNCTION ${t}_rollup_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${upsert(contributions(t, 'aaa_old_rows', -1))};
        ${upsert(contributions(t, 'aaa_new_rows', 1))};
        RETURN NULL;
      END $$`)
    await knex.raw(`CREATE FUNCTION ${t}_rollup_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM aaa_log_rollup WHERE table_name = '${t}';
        RETURN NULL;
      END $$`)
    // Lock first so no row lands between the seeding and the triggers.
    await knex.raw(`LOCK TABLE ${t} IN SHARE ROW EXCLUSIVE MODE`)
    await knex.raw(upsert(contributions(t, t, 1)))
    // Named after 0003's `_count_*` triggers, so they fire after them (same event: name order).
    await knex.raw(`CREATE TRIGGER ${t}_rollup_insert AFTER INSERT ON ${t} REFERENCING NEW TABLE AS aaa_new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${t}_rollup_insert()`)
    await knex.raw(`CREATE TRIGGER ${t}_rollup_delete AFTER DELETE ON ${t} REFERENCING OLD TABLE AS aaa_old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${t}_rollup_delete()`)
    await knex.raw(
      `CREATE TRIGGER ${t}_rollup_update AFTER UPDATE ON ${t} REFERENCING OLD TABLE AS aaa_old_rows NEW TABLE AS aaa_new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${t}_rollup_update()`,
    )
    await knex.raw(`CREATE TRIGGER ${t}_rollup_truncate AFTER TRUNCATE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION ${t}_rollup_truncate()`)
  }
}
