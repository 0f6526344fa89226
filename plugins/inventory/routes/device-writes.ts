/**
 * The checks and writes behind POST and PUT /devices: uniqueness of name and
 * prefix, the group reference, and the sealing of the shared secrets. Each
 * check answers a coded error naming the field; the unique indexes are the
 * last word when two requests race past a check.
 */
import type { Knex } from 'knex'
import { givenFields, isReferenceViolation, lockForChange, uniqueColumn, uniqueViolation, type SecretsService } from '../../../sdk/index.js'
import type { Device } from '../api.js'
import type { DeviceCreate, DeviceUpdate } from '../schemas/devices.js'
import { InventoryErrors as E } from '../errors.js'
import { parsePrefix } from '../services/address.js'
import { SEAL } from '../services/inventory.js'
import { DEVICES, GROUPS, loadDevice } from '../services/rows.js'
import type { InventoryRouteDeps } from './deps.js'
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

/** POST /devices without its audit entry: the checks and the insert (the import calls it for each new row). */
export async function insertDevice(trx: Knex.Transaction, secrets: SecretsService, b: DeviceCreate): Promise<Device> {
  const address = canonicalAddress(b.address)
  const groupId = b.device_group_id ?? null
  await deviceNames.assertFree(trx, b.name)
  await assertGroupExists(trx, groupId, 'device_group_id')
  await assertAddressFree(trx, address)
  const [{ id }] = await guardedWrite(trx, { name: b.name, address, groupId }, async (sp) =>
    sp(DEVICES)
      .insert({
        name: b.name,
        address,
        address_cidr: address,
        vendor: b.vendor ?? null,
        model: b.model ?? null,
        description: b.description ?? null,
        device_group_id: groupId,
        enabled: b.enabled ?? true,
        ...sealedKeys(secrets, b),
      })
      .returning('id'),
  )
  return (await loadDevice(trx, id))!
}

/** PUT /devices/{id} without its audit entry (the import calls it for each changed row). */
export async function changeDevice(trx: Knex.Transaction, d: Pick<InventoryRouteDeps, 'secrets' | 'references'>, id: string, b: DeviceUpdate): Promise<{ before: Device; after: Device; secretsChanged: string[] }> {
  const before = await lockForChange(trx, DEVICES, id, 'device_id', loadDevice)
  if (b.name !== undefined) await deviceNames.assertFree(trx, b.name, id)
  const address = b.address === undefined ? before.address : canonicalAddress(b.address)
  if (b.address !== undefined) await assertAddressFree(trx, address, id)
  if (b.device_group_id !== undefined) await assertGroupExists(trx, b.device_group_id, 'device_group_id')
  const cols = {
    ...givenFields(b, ['name', 'vendor', 'model', 'description', 'device_group_id', 'enabled']),
    ...(b.address === undefined ? {} : { address, address_cidr: address }),
    ...sealedKeys(d.secrets, b),
    updated_at: new Date(),
  }
  const groupId = b.device_group_id === undefined ? before.device_group_id : b.device_group_id
  await guardedWrite(trx, { name: b.name ?? before.name, address, groupId }, (sp) => sp(DEVICES).where({ id }).update(cols))
  if (b.name !== undefined && b.name !== before.name) await d.references.device.renamed([id], trx)
  const after = (await loadDevice(trx, id))!
  // Which keys were written (set, replaced or removed): a rotation shows in the trail, the value never does.
  const secretsChanged = (['tacacs_key', 'radius_secret'] as const).filter((k) => b[k] !== undefined)
  return { before, after, secretsChanged }
}
