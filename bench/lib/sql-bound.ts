/**
 * The raw-SQL bound of a list endpoint: the statements a route runs on some tables, captured from its
 * knex, then replayed straight on pg connections in the same run (what the route could not beat).
 */
import type { Knex } from 'knex'
import type pg from 'pg'

export interface Statement {
  sql: string
  bindings: unknown[]
}

/** The statements on `tables` that `fn` runs through `knex`. */
export async function captureStatements(knex: Knex, tables: string[], fn: () => Promise<unknown>): Promise<Statement[]> {
  const seen: Statement[] = []
  const on = (q: { sql: string; bindings?: unknown[] }) => {
    if (tables.some((t) => q.sql.includes(`"${t}"`))) seen.push({ sql: q.sql, bindings: q.bindings ?? [] })
  }
  knex.on('query', on)
  try {
    await fn()
  } finally {
    knex.removeListener('query', on)
  }
  return seen
}

/** Replay as the route runs them: all at once, one connection each (a list handler runs its queries in parallel); milliseconds. */
export async function replayStatements(clients: pg.Client[], st: Statement[]): Promise<number> {
  const t0 = performance.now()
  await Promise.all(st.map((s, i) => clients[i % clients.length].query(s.sql, s.bindings as unknown[])))
  return performance.now() - t0
}
