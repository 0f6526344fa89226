import type { Knex } from 'knex'
import { ensurePgTrgm } from '../../../sdk/index.js'

/**
 * The latest configuration of each tracked device, one masked line a row, for search (design31 §6):
 * `line_lc` is the line lower-cased in JavaScript, so both engines match alike. A trigram index on it
 * makes `line_lc LIKE '%term%'` an index scan over millions of lines.
 *
 * Only where pg_trgm can be had (as aaa-logs 0002): real PostgreSQL ships it in contrib, the embedded
 * engine (PGlite) loads it too. Without the privilege to create the extension the index is skipped and
 * search scans; an administrator can add it later (CREATE EXTENSION pg_trgm, then this index by hand).
 * DDL only: it runs at every fresh boot of the full edition.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE ncm_latest_lines (
    device_id uuid NOT NULL,
    n integer NOT NULL,
    line text NOT NULL,
    line_lc text NOT NULL,
    PRIMARY KEY (device_id, n)
  )`)
  if (!(await ensurePgTrgm(knex))) return
  await knex.raw('CREATE INDEX ncm_latest_lines_trgm ON ncm_latest_lines USING gin (line_lc gin_trgm_ops)')
}
