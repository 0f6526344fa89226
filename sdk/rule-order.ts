/**
 * An ordered rule list as the policies keep it (the AAA policy, the NAC policy): positions dense
 * 0..n-1, a protected default rule last, and the default rule's row the order's lock. Every change
 * that can move a position (create, delete, move, reorder) first locks that row, so parallel
 * requests run one after another and never leave a gap, a duplicate or a default out of place. A
 * row lock rather than an advisory lock works on every engine and is the lock a table's delete
 * trigger can take too (for deletes in bare SQL).
 *
 * Lock order, to stay free of deadlocks with the owners of what rules reference: first the records
 * a rule will reference (FOR KEY SHARE, through their owner: references.ts), then the order, then
 * the rule rows.
 */
import type { Knex } from 'knex'

export interface OrderLock {
  defaultId: string
  /** The default rule's position: the number of other rules. */
  defaultPosition: number
}

/** How a plugin says what is wrong with a requested order (its own coded errors). */
export interface OrderFaults {
  duplicate(index: number, id: string): Error
  unknown(index: number, id: string): Error
  /** A rule left out: the rules changed since the order was computed. */
  incomplete(id: string): Error
  defaultNotLast(index: number): Error
}

export interface RuleOrder {
  /** Take the order's lock for the rest of the transaction. */
  lock(trx: Knex.Transaction): Promise<OrderLock>
  /** Make room at `position`: every rule there or after moves down one. */
  openGap(trx: Knex.Transaction, position: number): Promise<void>
  /** Move one rule from `from` to `to`; the rules between shift by one towards `from`. */
  move(trx: Knex.Transaction, id: string, from: number, to: number): Promise<void>
  /**
   * Write a complete order: `ids[i]` gets position i. Positions are unique at commit only, so one
   * statement suffices. `updated_at` stays: it dates changes to the rule itself, not to its place.
   */
  write(trx: Knex.Transaction, ids: readonly string[]): Promise<void>
  /**
   * A whole new order, under the lock: `requested` must be a permutation of the rules as they are
   * now with the default last (the first fault throws, nothing changes). Ids compare as lower-case
   * text, as PostgreSQL compares UUIDs. Returns the order before and after; an unchanged order
   * writes nothing (`changed: false`: no audit entry either).
   */
  reorder(trx: Knex.Transaction, requested: readonly string[], faults: OrderFaults): Promise<{ before: string[]; after: string[]; changed: boolean }>
  /**
   * The position of a new rule, under the lock: `requested`, or just above the default rule when
   * absent; past the default rule throws `outOfRange(max)`. Makes room there (openGap).
   */
  place(trx: Knex.Transaction, lock: OrderLock, requested: number | undefined, outOfRange: (max: number) => Error): Promise<number>
  /** Moves a rule to `to`, under the lock; it must stay above the default rule, else `outOfRange(max)`. */
  moveAbove(trx: Knex.Transaction, lock: OrderLock, id: string, from: number, to: number, outOfRange: (max: number) => Error): Promise<void>
  /**
   * Deletes a rule that is not the default one: takes the lock, `load`s the rule (its not-found
   * error first), refuses the default rule with `isDefault()`, deletes the row (the table's delete
   * trigger closes the gap) and returns it as loaded, for the audit.
   */
  remove<T extends { id: string; is_default: boolean }>(trx: Knex.Transaction, load: () => Promise<T>, isDefault: () => Error): Promise<T>
}

/** The order of the rules in `table` (columns `id`, `position`, `is_default`). */
export function ruleOrder(table: string): RuleOrder {
  const lock = async (trx: Knex.Transaction): Promise<OrderLock> => {
    const row = await trx(table).where({ is_default: true }).forUpdate().first('id', 'position')
    // The plugin's migration creates the default rule and nothing deletes it.
    if (!row) throw new Error(`${table} has no default rule`)
    return { defaultId: row.id, defaultPosition: row.position }
  }
  const write = async (trx: Knex.Transaction, ids: readonly string[]) => {
    // An array literal rather than a bound JS array: both drivers (pg, PGlite) read it the same way.
    await trx.raw(
      `UPDATE ${table} AS r SET position = o.ord - 1
         FROM unnest(?::uuid[]) WITH ORDINALITY AS o(id, ord)
        WHERE r.id = o.id AND r.position <> o.ord - 1`,
      [`{${ids.join(',')}}`],
    )
  }
  const openGap = async (trx: Knex.Transaction, position: number) => {
    await trx(table).where('position', '>=', position).increment('position', 1)
  }
  const move = async (trx: Knex.Transaction, id: string, from: number, to: number) => {
    if (from === to) return
    if (to < from) await trx(table).whereBetween('position', [to, from - 1]).increment('position', 1)
    else await trx(table).whereBetween('position', [from + 1, to]).decrement('position', 1)
    await trx(table).where({ id }).update({ position: to })
  }
  return {
    lock,
    openGap,
    move,
    write,
    async place(trx, order, requested, outOfRange) {
      const position = requested ?? order.defaultPosition
      // The new rule may take the default rule's place: the default moves down one.
      if (position > order.defaultPosition) throw outOfRange(order.defaultPosition)
      await openGap(trx, position)
      return position
    },
    async moveAbove(trx, order, id, from, to, outOfRange) {
      const max = order.defaultPosition - 1
      if (to > max) throw outOfRange(max)
      await move(trx, id, from, to)
    },
    async remove(trx, load, isDefault) {
      await lock(trx)
      const before = await load()
      if (before.is_default) throw isDefault()
      await trx(table).where({ id: before.id }).delete()
      return before
    },
    async reorder(trx, requestedIds, faults) {
      const { defaultId } = await lock(trx)
      const before: string[] = await trx(table).orderBy('position').pluck('id')
      const after = requestedIds.map((id) => id.toLowerCase())
      const known = new Set(before)
      const seen = new Set<string>()
      after.forEach((id, i) => {
        if (seen.has(id)) throw faults.duplicate(i, id)
        if (!known.has(id)) throw faults.unknown(i, id)
        seen.add(id)
      })
      const missing = before.find((id) => !seen.has(id))
      if (missing) throw faults.incomplete(missing)
      const at = after.indexOf(defaultId)
      if (at !== after.length - 1) throw faults.defaultNotLast(at)
      const changed = after.some((id, i) => id !== before[i])
      if (changed) await write(trx, after)
      return { before, after, changed }
    },
  }
}
