/**
 * What every resource's GET, PUT and DELETE by id begin with: the record, or
 * the contract's 404 naming the path parameter.
 */
import type { Knex } from 'knex'
import { CommonErrors } from './errors.js'

/** The value, or 404 NOT_FOUND naming `field` (the path parameter) when there is none. */
export function orNotFound<T>(value: T | null | undefined, field: string): T {
  if (value === null || value === undefined) throw CommonErrors.notFound({ field })
  return value
}

/**
 * Locks a record for a change (SELECT … FOR UPDATE on its row, so concurrent
 * writers of the same record queue instead of overwriting each other) and
 * reads it as the API shows it: the `before` of the change's audit entry.
 * 404 naming `field` when the record does not exist.
 */
export async function lockForChange<T>(
  trx: Knex.Transaction,
  table: string,
  id: string,
  field: string,
  load: (trx: Knex.Transaction, id: string) => Promise<T | null | undefined>,
): Promise<T> {
  orNotFound(await trx(table).where({ id }).forUpdate().first('id'), field)
  return orNotFound(await load(trx, id), field)
}
