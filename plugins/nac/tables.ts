/**
 * The plugin's tables as its code reads them (sdk/tables.ts), from
 * migrations/0001_nac_endpoints.ts: knex types every query on them, and the
 * kernel checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'

export const EndpointGroupTable = defineTable('nac_endpoint_groups', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export const EndpointTable = defineTable('nac_endpoints', {
  id: column.uuid().defaulted(),
  /** Canonical `aa:bb:cc:dd:ee:ff` (services/mac.ts); unique. */
  mac: column.varchar(),
  description: column.varchar().nullable(),
  /** A kernel user, through identity.references.user (no foreign key: sdk/references.ts). */
  owner_user_id: column.uuid().nullable(),
  endpoint_group_id: column.uuid().nullable(),
  /** From the IEEE registry (services/oui.ts), when the MAC is written. */
  vendor: column.varchar().nullable(),
  first_seen_at: column.timestamp().nullable(),
  last_seen_at: column.timestamp().nullable(),
  last_nas_ip: column.varchar().nullable(),
  last_nas_port: column.varchar().nullable(),
  last_auth_result: column.varchar().nullable(),
  /** Written by profiling (the plugin service), never by the API. */
  device_type: column.varchar().nullable(),
  device_type_confidence: column.smallint().nullable(),
  device_type_reason: column.varchar().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export type EndpointGroupTableRow = RowOf<typeof EndpointGroupTable>
export type EndpointTableRow = RowOf<typeof EndpointTable>

export const nacTables = [EndpointGroupTable, EndpointTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    nac_endpoint_groups: TableType<typeof EndpointGroupTable>
    nac_endpoints: TableType<typeof EndpointTable>
  }
}
