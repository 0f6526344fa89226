/**
 * The checks behind POST and PUT /nac/endpoints and the import: the MAC's
 * form and uniqueness, the group and the owner. Each answers a coded error
 * naming the field; the unique index is the last word when two requests race
 * past a check.
 */
import type { Knex } from 'knex'
import { isReferenceViolation, uniqueViolation } from '../../../sdk/index.js'
import { NacErrors as E, macError } from '../errors.js'
import { parseMac } from '../services/mac.js'
import { ENDPOINTS, GROUPS } from '../services/rows.js'

/** The canonical MAC, or the 422 of its kind naming `field`. */
export function canonicalMac(text: string, field = 'mac'): string {
  const p = parseMac(text)
  if (!p.ok) throw macError(p.reason)({ field, vars: { value: text.slice(0, 64) } })
  return p.mac
}

/** Same MAC, another endpoint: 409 naming the MAC. */
export async function assertMacFree(db: Knex | Knex.Transaction, mac: string, exceptId?: string): Promise<void> {
  const q = db(ENDPOINTS).where({ mac })
  if (exceptId) q.whereNot({ id: exceptId })
  if (await q.first('id')) throw E.macTaken({ field: 'mac', vars: { mac } })
}

/** The group exists, locked FOR KEY SHARE until commit so that it cannot be deleted before the endpoint lands in it. */
export async function lockGroup(trx: Knex.Transaction, id: string | null | undefined, field = 'endpoint_group_id'): Promise<void> {
  if (!id) return
  if (!(await trx(GROUPS).where({ id }).forKeyShare().first('id'))) throw E.groupNotFound({ field, vars: { id } })
}

/** Runs an endpoint write in a savepoint, so that when a concurrent request won a race, the transaction can still answer. */
export async function guardedWrite<T>(trx: Knex.Transaction, v: { mac: string; groupId: string | null }, fn: (sp: Knex.Transaction) => Promise<T>): Promise<T> {
  try {
    return await trx.transaction(fn)
  } catch (e) {
    if (uniqueViolation(e) === 'nac_endpoints_mac_unique') throw E.macTaken({ field: 'mac', vars: { mac: v.mac } })
    if (isReferenceViolation(e) && v.groupId) throw E.groupNotFound({ field: 'endpoint_group_id', vars: { id: v.groupId } })
    throw e
  }
}
