/**
 * One row of a device import, judged by the code of POST and PUT /devices:
 * the row becomes the body those routes would get (checked with their schema,
 * so a bad value answers the same code and message), a new name is created
 * through insertDevice, an existing one (by name, case-insensitively) changed
 * through changeDevice. Nothing here repeats a check of those routes.
 *
 * Cells: a column present writes its value, an empty cell clearing the
 * vendor, model, description or group; a column left out keeps what an
 * existing device has. The keys are the exception: an empty `tacacs_key` or
 * `radius_secret` cell keeps the key (an export never holds one, and a
 * spreadsheet must not remove keys by accident); removing one is PUT's
 * `null`. A key equal to the device's is no change.
 */
import type { Knex } from 'knex'
import { ImportErrors, csvBoolean, type CsvImportRow, type RowVerdict, type SecretsService, type TSchema, type Static } from '../../../sdk/index.js'
import { changeDevice, insertDevice } from '../routes/device-writes.js'
import type { InventoryRouteDeps } from '../routes/deps.js'
import { DeviceCreate, DeviceUpdate } from '../schemas/devices.js'
import { DEVICES, GROUPS } from './rows.js'
import { SEAL } from './inventory.js'

export const DEVICE_IMPORT_COLUMNS = ['name', 'address', 'device_group', 'vendor', 'model', 'description', 'tacacs_key', 'radius_secret', 'enabled'] as const
export type DeviceColumn = (typeof DEVICE_IMPORT_COLUMNS)[number]
/** The list's read-only fields, accepted so that a saved list imports back. */
export const DEVICE_IGNORED_COLUMNS = ['id', 'has_tacacs_key', 'has_radius_secret', 'created_at', 'updated_at'] as const
export const DEVICE_IMPORT_MAX_ROWS = 5000
export const DEVICE_IMPORT_MAX_BYTES = 2 * 1024 * 1024

/** The body field an error names, as the file's column. */
export const deviceColumnOf = (field: string | null): string | null => (field === 'device_group_id' ? 'device_group' : field)

type Check = <T extends TSchema>(schema: T, value: unknown) => Static<T>

export async function judgeDeviceRow(sp: Knex.Transaction, row: CsvImportRow<DeviceColumn>, d: Pick<InventoryRouteDeps, 'secrets' | 'references'>, check: Check): Promise<RowVerdict> {
  const c = row.cells
  const name = (c.name ?? '').trim()
  const body: Record<string, unknown> = { name }
  for (const k of ['address', 'vendor', 'model', 'description'] as const) if (c[k] !== undefined) body[k] = c[k].trim()
  if (c.device_group !== undefined) body.device_group_id = await groupId(sp, c.device_group.trim())
  for (const k of ['tacacs_key', 'radius_secret'] as const) if (c[k] !== undefined && c[k].trim() !== '') body[k] = c[k]
  const enabled = csvBoolean(c.enabled, 'enabled')
  if (enabled !== undefined) body.enabled = enabled
  const existing: { id: string; tacacs_key_sealed: string | null; radius_secret_sealed: string | null } | undefined = name
    ? await sp(DEVICES).whereRaw('lower(name) = lower(?)', [name]).first('id', 'tacacs_key_sealed', 'radius_secret_sealed')
    : undefined
  if (!existing) {
    const device = await insertDevice(sp, d.secrets, check(DeviceCreate, body))
    return { outcome: 'created', id: device.id }
  }
  // An empty address cell on an existing device keeps its address (it is required only to create one).
  if (body.address === '') delete body.address
  const b = check(DeviceUpdate, body)
  for (const k of ['tacacs_key', 'radius_secret'] as const) if (b[k] && sameSecret(d.secrets, k, existing[`${k}_sealed`], b[k])) delete b[k]
  const { before, after, secretsChanged } = await changeDevice(sp, d, existing.id, b)
  const same = secretsChanged.length === 0 && JSON.stringify({ ...before, updated_at: '' }) === JSON.stringify({ ...after, updated_at: '' })
  return same ? { outcome: 'unchanged', id: existing.id, rollback: true } : { outcome: 'updated', id: existing.id }
}

function sameSecret(secrets: SecretsService, k: 'tacacs_key' | 'radius_secret', sealed: string | null, value: string): boolean {
  return sealed !== null && secrets.decrypt(SEAL[k], sealed) === value
}

/** A group by name (case-insensitively, as names are unique); empty: no group. */
async function groupId(sp: Knex.Transaction, name: string): Promise<string | null> {
  if (!name) return null
  const g = name.length <= 64 ? await sp(GROUPS).whereRaw('lower(name) = lower(?)', [name]).first('id') : undefined
  if (!g) throw ImportErrors.nameNotFound({ field: 'device_group', vars: { column: 'device_group', name: name.slice(0, 64) } })
  return g.id
}
