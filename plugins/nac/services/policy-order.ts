/**
 * The NAC policy's evaluation order, kept as the AAA policy keeps its own
 * (plugins/aaa-policy/services/order.ts): positions dense 0..n-1, the default
 * rule last, and the default rule's row the order's lock. Every change to the
 * rules takes it first (after locking what the rule will reference), so
 * parallel requests run one after another and never leave a gap, a duplicate
 * or a default out of place.
 */
import type { Knex } from 'knex'

export const RULES = 'nac_policy_rules'

export interface OrderLock {
  defaultId: string
  /** The default rule's position: the number of other rules. */
  defaultPosition: number
}

/** Take the order's lock for the rest of the transaction. */
export async function lockOrder(trx: Knex.Transaction): Promise<OrderLock> {
  const row = await trx(RULES).where({ is_default: true }).forUpdate().first('id', 'position')
  // Migration 0002 creates the default rule and nothing deletes it.
  if (!row) throw new Error('nac_policy_rules has no default rule')
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

/** Write a complete order: `ids[i]` gets position i (unique at commit, so one statement). `updated_at` stays. */
export async function writeOrder(trx: Knex.Transaction, ids: string[]): Promise<void> {
  await trx.raw(
    `UPDATE ${RULES} AS r SET position = o.ord - 1
       FROM unnest(?::uuid[]) WITH ORDINALITY AS o(id, ord)
      WHERE r.id = o.id AND r.position <> o.ord - 1`,
    [`{${ids.join(',')}}`],
  )
}
