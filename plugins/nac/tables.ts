/**
 * The plugin's tables as its code reads them (sdk/tables.ts), from
 * migrations/0001_nac_endpoints.ts: knex types every query on them, and the
 * kernel checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'
import type { EvidenceAttribute } from './services/evidence.js'

export const EndpointGroupTable = defineTable('nac_endpoint_groups', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
  /** Migration 0003: the device types whose profiled endpoints the group takes (services/placement.ts). */
  placement_device_types: column.jsonb<string[]>().defaulted(),
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
  /** Migration 0003: the device type was set by an admin; profiling leaves it alone. */
  device_type_manual: column.boolean().defaulted(),
  /** Migration 0003: the group was placed by profiling (a group's placement rules), not set by an admin or an import. */
  endpoint_group_placed: column.boolean().defaulted(),
})

/** A profiling condition (schemas/profiling-rules.ts checks it). */
export interface ProfilingConditionRow {
  attribute: EvidenceAttribute
  operator: 'equals' | 'contains' | 'starts_with'
  value: string
}

export const ProfilingRuleTable = defineTable('nac_profiling_rules', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  conditions: column.jsonb<ProfilingConditionRow[]>(),
  device_type: column.varchar(),
  certainty: column.smallint(),
  enabled: column.boolean().defaulted(),
  position: column.integer(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

/** What the network told of an endpoint, merged record after record (services/evidence.ts). */
export const EndpointEvidenceTable = defineTable('nac_endpoint_evidence', {
  endpoint_id: column.uuid(),
  evidence: column.jsonb<Record<string, string>>(),
  updated_at: column.timestamp().defaulted(),
})

export const SessionTable = defineTable('nac_sessions', {
  id: column.uuid().defaulted(),
  nas_ip: column.varchar(),
  acct_session_id: column.varchar(),
  mac: column.varchar().nullable(),
  username: column.varchar().nullable(),
  nas_port: column.varchar().nullable(),
  nas_port_type: column.varchar().nullable(),
  framed_ip: column.varchar().nullable(),
  vlan: column.varchar().nullable(),
  acl: column.varchar().nullable(),
  interim_interval: column.integer().nullable(),
  started_at: column.timestamp(),
  last_update_at: column.timestamp(),
  stopped_at: column.timestamp().nullable(),
  input_octets: column.bigint().nullable(),
  output_octets: column.bigint().nullable(),
  session_time: column.integer().nullable(),
})

/** The latest Access-Accept per MAC and NAS: what a session that follows was given. */
export const AuthGrantTable = defineTable('nac_auth_grants', {
  mac: column.varchar(),
  nas_ip: column.varchar(),
  at: column.timestamp(),
  vlan: column.varchar().nullable(),
  acl: column.varchar().nullable(),
  interim_interval: column.integer().nullable(),
})

export type EndpointGroupTableRow = RowOf<typeof EndpointGroupTable>
export type EndpointTableRow = RowOf<typeof EndpointTable>

export type ProfilingRuleTableRow = RowOf<typeof ProfilingRuleTable>
export type SessionTableRow = RowOf<typeof SessionTable>

export const nacTables = [EndpointGroupTable, EndpointTable, ProfilingRuleTable, EndpointEvidenceTable, SessionTable, AuthGrantTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    nac_endpoint_groups: TableType<typeof EndpointGroupTable>
    nac_endpoints: TableType<typeof EndpointTable>
    nac_profiling_rules: TableType<typeof ProfilingRuleTable>
    nac_endpoint_evidence: TableType<typeof EndpointEvidenceTable>
    nac_sessions: TableType<typeof SessionTable>
    nac_auth_grants: TableType<typeof AuthGrantTable>
  }
}
