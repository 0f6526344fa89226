/**
 * The checks and writes behind POST and PUT /devices: uniqueness of name and
 * prefix, the group reference, and the sealing of the shared secrets. Each
 * check answers a coded error naming the field; the unique indexes are the
 * last word when two requests race past a check.
 */
import type { Knex } from 'knex'
import { isReferenceViolation, uniqueColumn, uniqueViolation, type SecretsService } from '../../../sdk/index.js'
import { InventoryErrors as E } from '../errors.js'
import { parsePrefix } from '../services/address.js'
import { SEAL } from '../services/inventory.js'
import { DEVICES, GROUPS } from '../services/rows.js'
import type { DeviceTableRow } from '../tables.js'

/** The canonical prefix text, or a 422 naming `field`. */
export function canonicalAddress(text: string, field = 'address'): string {
  const r = parsePrefix(text)
  if (r.ok) return r.text
  throw r.reason === 'host_bits' ? E.addressHostBits({ field, vars: { network: r.network } }) : E.addressInvalid({ field })
}

/** Device names: unique case-insensitively (409 DEVICE_NAME_TAKEN), the index having the last word. */
export const deviceNames = uniqueColumn({ table: DEVICES, taken: E.deviceNameTaken, index: 'inventory_devices_name_unique' })

/** Same prefix, another device: refused, naming that device. Nested prefixes pass. */
export async function assertAddressFree(trx: Knex.Transaction, address: string, exceptId?: string): Promise<void> {
  const q = trx(DEVICES).whereRaw('address_cidr = ?::cidr', [address])
  if (exceptId) q.whereNot({ id: exceptId })
  const other = await q.first('name')
  if (other) throw E.addressTaken({ field: 'address', vars: { address, device: other.name } })
}

export async function assertGroupExists(trx: Knex.Transaction, id: string | null | undefined, field: string): Promise<void> {
  if (!id) return
  if (!(await trx(GROUPS).where({ id }).first('id'))) throw E.groupNotFound({ field, vars: { id } })
}

type SealedColumns = Partial<Pick<DeviceTableRow, 'tacacs_key_sealed' | 'radius_secret_sealed'>>

/** Sealed columns for the keys given: a string is sealed, `null` clears, absence keeps. */
export function sealedKeys(secrets: SecretsService, b: { tacacs_key?: string | null; radius_secret?: string | null }): SealedColumns {
  const cols: SealedColumns = {}
  if (b.tacacs_key !== undefined) cols.tacacs_key_sealed = b.tacacs_key === null ? null : secrets.encrypt(SEAL.tacacs_key, b.tacacs_key)
  if (b.radius_secret !== undefined) cols.radius_secret_sealed = b.radius_secret === null ? null : secrets.encrypt(SEAL.radius_secret, b.radius_secret)
  return cols
}

/**
 * Runs a device write in a savepoint, so that when a concurrent request won a
 * race past the checks, the transaction is still usable to name the winner.
 */
export async function guardedWrite<T>(trx: Knex.Transaction, v: { name: string; address: string; groupId: string | null }, fn: (sp: Knex.Transaction) => Promise<T>): Promise<T> {
  try {
    return await trx.transaction(fn)
  } catch (e) {
    const index = uniqueViolation(e)
    if (index === 'inventory_devices_name_unique') throw deviceNames.taken(v.name)
    if (index === 'inventory_devices_address_unique') {
      await assertAddressFree(trx, v.address)
      throw E.addressTaken({ field: 'address', vars: { address: v.address, device: '?' } })
    }
    // The group was deleted between the check and the write.
    if (isReferenceViolation(e) && v.groupId) throw E.groupNotFound({ field: 'device_group_id', vars: { id: v.groupId } })
    throw e
  }
}
