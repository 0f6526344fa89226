/**
 * The inventory's tables as its code reads them (sdk/tables.ts), from
 * migrations/0001_inventory.ts: knex types every query on them, and the kernel
 * checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'

export const DeviceGroupTable = defineTable('inventory_device_groups', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  parent_id: column.uuid().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export const DeviceTable = defineTable('inventory_devices', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  /** Canonical text: what the API returns and `search` matches. */
  address: column.varchar(),
  /** The same prefix as `address`, for containment (`>>=`) and uniqueness. */
  address_cidr: column.cidr(),
  vendor: column.varchar().nullable(),
  model: column.varchar().nullable(),
  description: column.varchar().nullable(),
  device_group_id: column.uuid().nullable(),
  /** Sealed with the master key (services/inventory.ts SEAL); never returned. */
  tacacs_key_sealed: column.text().nullable(),
  radius_secret_sealed: column.text().nullable(),
  enabled: column.boolean().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export type DeviceGroupTableRow = RowOf<typeof DeviceGroupTable>
export type DeviceTableRow = RowOf<typeof DeviceTable>

export const inventoryTables = [DeviceGroupTable, DeviceTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    inventory_device_groups: TableType<typeof DeviceGroupTable>
    inventory_devices: TableType<typeof DeviceTable>
  }
}
