/**
 * How devices and groups are read for the API and the service: one select
 * each, so a route, a renderer and another plugin all see the same record.
 * The sealed keys never leave the database here; only whether they are set.
 */
import type { Knex } from 'knex'
import type { Device, DeviceGroup } from '../api.js'

type Db = Knex | Knex.Transaction

export const DEVICES = 'inventory_devices'
export const GROUPS = 'inventory_device_groups'

/** What PostgreSQL's uuid type accepts; anything else is no record (not a 500 from a failed cast). */
export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

const iso = (d: Date | string) => new Date(d).toISOString()

interface DeviceRow extends Omit<Device, 'created_at' | 'updated_at'> {
  created_at: Date
  updated_at: Date
}

export const selectDevices = (db: Db) =>
  db(DEVICES).select(
    `${DEVICES}.id`, `${DEVICES}.name`, `${DEVICES}.address`, `${DEVICES}.vendor`, `${DEVICES}.model`, `${DEVICES}.description`,
    `${DEVICES}.device_group_id`, `${DEVICES}.enabled`,
    db.raw(`(${DEVICES}.tacacs_key_sealed IS NOT NULL) AS has_tacacs_key`),
    db.raw(`(${DEVICES}.radius_secret_sealed IS NOT NULL) AS has_radius_secret`),
    `${DEVICES}.created_at`, `${DEVICES}.updated_at`,
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
  const row = (await selectDevices(db).where(`${DEVICES}.id`, id).first()) as DeviceRow | undefined
  return row ? toDevice(row) : null
}

interface GroupRow extends Omit<DeviceGroup, 'created_at' | 'updated_at'> {
  created_at: Date
  updated_at: Date
}

export interface GroupWithCounts extends DeviceGroup {
  /** Devices directly in the group (not in its subgroups). */
  device_count: number
  /** Direct subgroups. */
  child_count: number
}

const groupColumns = [`${GROUPS}.id`, `${GROUPS}.name`, `${GROUPS}.description`, `${GROUPS}.parent_id`, `${GROUPS}.created_at`, `${GROUPS}.updated_at`]

export const selectGroups = (db: Db) => db(GROUPS).select(groupColumns)

export const selectGroupsWithCounts = (db: Db) =>
  db(GROUPS).select(
    ...groupColumns,
    db.raw(`(SELECT count(*)::int FROM ${DEVICES} d WHERE d.device_group_id = ${GROUPS}.id) AS device_count`),
    db.raw(`(SELECT count(*)::int FROM ${GROUPS} c WHERE c.parent_id = ${GROUPS}.id) AS child_count`),
  )

export const toGroup = (r: GroupRow): DeviceGroup => ({
  id: r.id,
  name: r.name,
  description: r.description,
  parent_id: r.parent_id,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export const toGroupWithCounts = (r: GroupRow & { device_count: number; child_count: number }): GroupWithCounts => ({
  ...toGroup(r),
  device_count: r.device_count,
  child_count: r.child_count,
})

export async function loadGroup(db: Db, id: string): Promise<DeviceGroup | null> {
  if (!isUuid(id)) return null
  const row = (await selectGroups(db).where(`${GROUPS}.id`, id).first()) as GroupRow | undefined
  return row ? toGroup(row) : null
}

export async function loadGroupWithCounts(db: Db, id: string): Promise<GroupWithCounts | null> {
  if (!isUuid(id)) return null
  const row = (await selectGroupsWithCounts(db).where(`${GROUPS}.id`, id).first()) as (GroupRow & { device_count: number; child_count: number }) | undefined
  return row ? toGroupWithCounts(row) : null
}
