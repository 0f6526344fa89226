/**
 * How devices and groups are read for the API and the service: one select
 * each, so a route, a renderer and another plugin all see the same record.
 * The sealed keys never leave the database here; only whether they are set.
 */
import type { Knex } from 'knex'
import type { Device, DeviceGroup } from '../api.js'
import type { DeviceGroupTableRow, DeviceTableRow } from '../tables.js'

type Db = Knex | Knex.Transaction

export const DEVICES = 'inventory_devices'
export const GROUPS = 'inventory_device_groups'

/** What PostgreSQL's uuid type accepts; anything else is no record (not a 500 from a failed cast). */
export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

const iso = (d: Date | string) => new Date(d).toISOString()

const deviceColumns = ['id', 'name', 'address', 'vendor', 'model', 'description', 'device_group_id', 'enabled', 'created_at', 'updated_at'] as const

/** A device as read: its columns but the sealed keys, and whether each key is set. */
export type DeviceRow = Pick<DeviceTableRow, (typeof deviceColumns)[number]> & { has_tacacs_key: boolean; has_radius_secret: boolean }

// Column names without the table: a select of one table, and knex types only plain names. The two
// flags are SQL expressions, which knex's typings cannot see into: their type is declared here, once.
export const selectDevices = (db: Db) =>
  db(DEVICES)
    .select(...deviceColumns)
    .select<DeviceRow[]>(
      db.raw(`(${DEVICES}.tacacs_key_sealed IS NOT NULL) AS has_tacacs_key`),
      db.raw(`(${DEVICES}.radius_secret_sealed IS NOT NULL) AS has_radius_secret`),
    )

export const toDevice = (r: DeviceRow): Device => ({
  id: r.id,
  name: r.name,
  address: r.address,
  vendor: r.vendor,
  model: r.model,
  description: r.description,
  device_group_id: r.device_group_id,
  enabled: r.enabled,
  has_tacacs_key: r.has_tacacs_key,
  has_radius_secret: r.has_radius_secret,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export async function loadDevice(db: Db, id: string): Promise<Device | null> {
  if (!isUuid(id)) return null
  const row = await selectDevices(db).where('id', id).first()
  return row ? toDevice(row) : null
}

export interface GroupWithCounts extends DeviceGroup {
  /** Devices directly in the group (not in its subgroups). */
  device_count: number
  /** Direct subgroups. */
  child_count: number
}

export const selectGroups = (db: Db) => db(GROUPS).select('id', 'name', 'description', 'parent_id', 'created_at', 'updated_at')

/** The counts are SQL expressions: their type is declared here, once. */
export const selectGroupsWithCounts = (db: Db) =>
  selectGroups(db).select<(DeviceGroupTableRow & { device_count: number; child_count: number })[]>(
    db.raw(`(SELECT count(*)::int FROM ${DEVICES} d WHERE d.device_group_id = ${GROUPS}.id) AS device_count`),
    db.raw(`(SELECT count(*)::int FROM ${GROUPS} c WHERE c.parent_id = ${GROUPS}.id) AS child_count`),
  )

export const toGroup = (r: DeviceGroupTableRow): DeviceGroup => ({
  id: r.id,
  name: r.name,
  description: r.description,
  parent_id: r.parent_id,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export const toGroupWithCounts = (r: DeviceGroupTableRow & { device_count: number; child_count: number }): GroupWithCounts => ({
  ...toGroup(r),
  device_count: r.device_count,
  child_count: r.child_count,
})

export async function loadGroup(db: Db, id: string): Promise<DeviceGroup | null> {
  if (!isUuid(id)) return null
  const row = await selectGroups(db).where('id', id).first()
  return row ? toGroup(row) : null
}

export async function loadGroupWithCounts(db: Db, id: string): Promise<GroupWithCounts | null> {
  if (!isUuid(id)) return null
  const row = await selectGroupsWithCounts(db).where('id', id).first()
  return row ? toGroupWithCounts(row) : null
}
