import type { Knex } from 'knex'

/**
 * Trigram indexes for `search` on the five log tables: one GIN index per table
 * over the same expression the API filters with (services/logs.ts
 * `searchExpression`), so `expr ILIKE '%term%'` is an index scan instead of a
 * scan of every row in the date window.
 *
 * Only where pg_trgm can be had: real PostgreSQL ships it in contrib; the
 * embedded engine (PGlite) does not, and there search scans (the embedded
 * engine is for small installations). Without the privilege to create the
 * extension, the indexes are skipped the same way and can be added later by
 * an administrator (CREATE EXTENSION pg_trgm, then re-create them by hand).
 *
 * The expressions are spelled out here, not imported: a migration is frozen.
 */
const SEARCH: Record<string, string[]> = {
  aaa_log_tacacs_authn: ['username', 'device_name', 'client_address', 'session_id', 'rule_name', 'profile', 'authen_type', 'port', 'message'],
  aaa_log_tacacs_authz: ['username', 'device_name', 'client_address', 'session_id', 'rule_name', 'profile', 'service', 'command'],
  aaa_log_tacacs_acct: ['username', 'device_name', 'client_address', 'session_id', 'service', 'command', 'port'],
  aaa_log_radius_auth: ['username', 'device_name', 'client_address', 'session_id', 'rule_name', 'rule_label', 'calling_station_id', 'called_station_id', 'nas_identifier', 'reason'],
  aaa_log_radius_acct: ['username', 'device_name', 'client_address', 'session_id', 'acct_session_id', 'calling_station_id', 'nas_port'],
}

const expr = (cols: string[]) => cols.map((c) => `coalesce(${c}::text, '')`).join(` || ' ' || `)

export async function up(knex: Knex): Promise<void> {
  const available = await knex.raw(`SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'`)
  if (!available.rows?.length) return
  const created = await knex.raw(`DO $$ BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pg_trgm not created: %', SQLERRM;
    END $$`)
  void created
  const has = await knex.raw(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)
  if (!has.rows?.length) return
  for (const [table, cols] of Object.entries(SEARCH)) {
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${table}_search_trgm ON ${table} USING gin ((${expr(cols)}) gin_trgm_ops)`)
  }
}
