import type { Knex } from 'knex'
import { ensurePgTrgm } from '../../../sdk/index.js'

/**
 * The trigram indexes of migration 0002 where it had to skip them: the
 * embedded engine (PGlite) now ships pg_trgm as real PostgreSQL's contrib
 * does, but installations made before had 0002 run without it, so their
 * search scanned every row in its window (the console's time-to-interactive
 * bench: a user searched over 10M rows). Same extension and indexes, created
 * only where missing (IF NOT EXISTS); skipped again, as 0002 does, where
 * pg_trgm cannot be had or created.
 *
 * The expressions are spelled out here, not imported: a migration is frozen
 * (they are 0002's, which services/logs.ts `searchExpression` matches).
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
  if (!(await ensurePgTrgm(knex))) return
  for (const [table, cols] of Object.entries(SEARCH)) {
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${table}_search_trgm ON ${table} USING gin ((${expr(cols)}) gin_trgm_ops)`)
  }
}
