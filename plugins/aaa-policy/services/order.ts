/**
 * The evaluation order and what guards it. Positions are dense, 0..n-1, the
 * default rule last. Every change that can move a position (create, delete,
 * move, reorder), and every other change for simplicity, first locks the
 * default rule's row: that row is the order's mutex, so parallel requests run
 * one after another and never leave a gap, a duplicate or a default out of
 * place. A row lock rather than an advisory lock works on every engine and is
 * the lock the table's delete trigger takes too (for deletes in bare SQL).
 *
 * Lock order, to stay free of deadlocks with the owners of what rules
 * reference: first the records a rule will reference (FOR KEY SHARE, through
 * their owner: references.ts), then the order, then the rule rows. A profile
 * delete clearing rules takes them in the same order.
 */
import type { Knex } from 'knex'
import { RULES } from './rules.js'

export interface OrderLock {
  defaultId: string
  /** The default rule's position: the number of other rules. */
  defaultPosition: number
}

/** Take the order's lock for the rest of the transaction. */
export async function lockOrder(trx: Knex.Transaction): Promise<OrderLock> {
  const row = await trx(RULES).where({ is_default: true }).forUpdate().first('id', 'position')
  // The migration creates the default rule and nothing deletes it.
  if (!row) throw new Error('aaa_policy_rules has no default rule')
  return { defaultId: row.id, defaultPosition: row.position }
}

/** Make room at `position`: every rule there or after moves down one. */
export async function openGap(trx: Knex.Transaction, position: number): Promise<void> {
  await trx(RULES).where('position', '>=', position).increment('position', 1)
}

/** Move one rule from `from` to `to`; the rules between shift by one towards `from`. */
export async function moveRule(trx: Knex.Transaction, id: string, from: number, to: number): Promise<void> {
  if (from === to) return
  if (to < from) await trx(RULES).whereBetween('position', [to, from - 1]).increment('position', 1)
  else await trx(RULES).whereBetween('position', [from + 1, to]).decrement('position', 1)
  await trx(RULES).where({ id }).update({ position: to })
}

/**
 * Write a complete order: `ids[i]` gets position i. Positions are unique at commit only, so one
 * statement suffices. `updated_at` stays: it dates changes to the rule itself, not to its place.
 */
export async function writeOrder(trx: Knex.Transaction, ids: string[]): Promise<void> {
  // An array literal rather than a bound JS array: both drivers (pg, PGlite) read it the same way.
  await trx.raw(
    `UPDATE ${RULES} AS r SET position = o.ord - 1
       FROM unnest(?::uuid[]) WITH ORDINALITY AS o(id, ord)
      WHERE r.id = o.id AND r.position <> o.ord - 1`,
    [`{${ids.join(',')}}`],
  )
}
