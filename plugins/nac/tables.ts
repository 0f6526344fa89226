/**
 * The plugin's tables as its code reads them (sdk/tables.ts), from
 * migrations/0001_nac_endpoints.ts: knex types every query on them, and the
 * kernel checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'
import type { CoaAction, CoaReason, CoaResult } from './api.js'

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

// Change of Authorization, from migrations/0004_nac_coa.ts.
export const CoaRequestTable = defineTable('nac_coa_requests', {
  id: column.uuid().defaulted(),
  /** Null once the endpoint is deleted; `mac` keeps what it was. */
  endpoint_id: column.uuid().nullable(),
  mac: column.varchar(),
  action: column.varchar<CoaAction>(),
  reason: column.varchar<CoaReason>(),
  /** The inventory's device, as it was when sent (no foreign key: sdk/references.ts). */
  device_id: column.uuid().nullable(),
  device_name: column.varchar().nullable(),
  nas_ip: column.varchar().nullable(),
  nas_port: column.integer().nullable(),
  dialect: column.varchar<'cisco' | 'rfc5176'>().nullable(),
  packet_code: column.smallint().nullable(),
  /** The attributes sent, by name, in order (Message-Authenticator left out). */
  attributes: column.jsonb<[string, string][]>().defaulted(),
  requested_by: column.uuid().nullable(),
  requested_by_username: column.varchar().nullable(),
  result: column.varchar<CoaResult>(),
  error_cause: column.integer().nullable(),
  error_detail: column.varchar().nullable(),
  attempts: column.smallint().defaulted(),
  sent_at: column.timestamp().nullable(),
  answered_at: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
})

/** How to reach one inventory device with a CoA, where it differs from the settings. */
export const CoaNasTable = defineTable('nac_coa_nas', {
  device_id: column.uuid(),
  /** Null: the setting `nac.coa_port`. */
  port: column.integer().nullable(),
  dialect: column.varchar<'auto' | 'cisco' | 'rfc5176'>().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export type CoaRequestTableRow = RowOf<typeof CoaRequestTable>
export type CoaNasTableRow = RowOf<typeof CoaNasTable>

export type EndpointGroupTableRow = RowOf<typeof EndpointGroupTable>
export type EndpointTableRow = RowOf<typeof EndpointTable>

export const nacTables = [EndpointGroupTable, EndpointTable, CoaRequestTable, CoaNasTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    nac_endpoint_groups: TableType<typeof EndpointGroupTable>
    nac_endpoints: TableType<typeof EndpointTable>
    nac_coa_requests: TableType<typeof CoaRequestTable>
    nac_coa_nas: TableType<typeof CoaNasTable>
  }
}
