import type { Knex } from 'knex'

/** A connection for stale-tolerant reads, and how stale it is. */
export interface DatabaseReader {
  knex: Knex
  /**
   * How far the standby's data was behind the primary's when the read began, in ms (0: it had
   * replayed everything the primary had written); null when this reads the primary (no replica,
   * the embedded engine, or the replica lagging or unreachable).
   */
  lagMs: number | null
}
