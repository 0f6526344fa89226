/**
 * The shape both NAC exports share (endpoints, sessions): the ids read once in the list's order,
 * at most the ceiling, then the rows in batches by id streamed into the SDK's export writer. A
 * large export neither holds every row in memory nor sorts again per batch.
 */
import type { Knex } from 'knex'

const BATCH = 1000

/** The ids `query` (already filtered and ordered, selecting `id`) yields, cut at `ceiling`. */
export async function exportIds(query: Knex.QueryBuilder, ceiling: number): Promise<{ ids: string[]; truncated: boolean }> {
  const ids = ((await query.limit(ceiling + 1)) as { id: string }[]).map((r) => r.id)
  const truncated = ids.length > ceiling
  if (truncated) ids.length = ceiling
  return { ids, truncated }
}

/** The rows of `ids` in that order, `load`ed a batch at a time and shaped by `present`. */
export async function* rowsInOrder<R extends { id: string }, P>(ids: readonly string[], load: (batch: string[]) => Promise<R[]>, present: (rows: R[]) => P[] | Promise<P[]>): AsyncGenerator<P> {
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH)
    const found = new Map((await load(batch)).map((r) => [r.id, r]))
    // A row deleted since the ids were read is left out; the rest keep the list's order.
    yield* await present(batch.map((id) => found.get(id)).filter((r): r is R => r !== undefined))
  }
}
