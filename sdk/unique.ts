/**
 * Unique names, the way every resource wants them: a case-insensitive check
 * before the write that answers the resource's own 409 naming the field, and
 * the unique index as the last word when two requests race past the check
 * (PostgreSQL's unique_violation, SQLSTATE 23505, mapped to the same 409).
 *
 *   const names = uniqueColumn({ table: 'tacacs_profiles', taken: E.profileNameTaken })
 *   await names.assertFree(trx, b.name, id)            // before the write
 *   await trx('tacacs_profiles').insert(row).catch(names.onViolation(b.name))
 */
import type { Knex } from 'knex'
import type { ErrorFactory } from './errors.js'

type Db = Knex | Knex.Transaction

/** The index a unique_violation names, or null when `e` is not one. */
export const uniqueViolation = (e: unknown): string | null => {
  const err = e as { code?: unknown; constraint?: unknown } | null
  return err?.code === '23505' ? String(err.constraint ?? '') : null
}

export const isUniqueViolation = (e: unknown): boolean => uniqueViolation(e) !== null

export interface UniqueColumnOptions {
  table: string
  /** The column compared case-insensitively; `name` by default. */
  column?: string
  /** The primary key, excluded when a record keeps its own name; `id` by default. */
  idColumn?: string
  /** The 409 to throw; it gets `{ field, vars: { [column]: value } }`. */
  taken: ErrorFactory
  /** The field the error names; the column by default. */
  field?: string
  /**
   * The unique index that guards the column. When given, only a violation of
   * that index maps to `taken` (the table has other unique indexes); when
   * absent, any unique violation does.
   */
  index?: string
  /** Narrows the check to a scope (rows of one parent, say). */
  scope?: (q: Knex.QueryBuilder) => Knex.QueryBuilder
}

export interface UniqueColumn {
  /** Throws `taken` when another record (not `exceptId`) holds the value, in any letter case. */
  assertFree(db: Db, value: string, exceptId?: string): Promise<void>
  /** A `.catch` handler: a violation of the guarding index becomes `taken`, anything else is rethrown. */
  onViolation(value: string): (e: unknown) => never
  /** The error itself, for a caller that found the clash another way. */
  taken(value: string): Error
}

export function uniqueColumn(o: UniqueColumnOptions): UniqueColumn {
  const column = o.column ?? 'name'
  const idColumn = o.idColumn ?? 'id'
  const field = o.field ?? column
  const taken = (value: string) => o.taken({ field, vars: { [column]: value } })
  return {
    taken,
    async assertFree(db, value, exceptId) {
      let q = db(o.table).whereRaw('lower(??) = lower(?)', [column, value])
      if (exceptId !== undefined) q = q.whereNot(idColumn, exceptId)
      if (o.scope) q = o.scope(q)
      if (await q.first(idColumn)) throw taken(value)
    },
    onViolation: (value) => (e) => {
      const index = uniqueViolation(e)
      if (index !== null && (o.index === undefined || index === o.index)) throw taken(value)
      throw e
    },
  }
}
