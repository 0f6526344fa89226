/**
 * The plugin's tables as its code reads them (sdk/tables.ts), from
 * migrations/0001_nac_endpoints.ts (0002 the authorization profiles and the NAC policy, 0004 Change of Authorization): knex types every query on them, and the
 * kernel checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'
import type { CoaAction, CoaReason, CoaResult } from './api.js'
import type { StoredCondition } from './services/conditions.js'
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

export const AuthorizationProfileTable = defineTable('nac_authorization_profiles', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  deny: column.boolean().defaulted(),
  /** A VLAN id (`100`) or name, as Tunnel-Private-Group-Id carries it. */
  vlan: column.varchar().nullable(),
  /** Filter-Id. */
  acl: column.varchar().nullable(),
  /** Cisco-AVPair `ip:inacl#N=…`, one entry a line of the ACL. */
  cisco_acl: column.array<string>().defaulted(),
  cisco_url_redirect: column.varchar().nullable(),
  cisco_url_redirect_acl: column.varchar().nullable(),
  /** Migration 0007: FreeRADIUS appends the session's signed parameters to the url-redirect (services/portal-redirect.ts). */
  portal_redirect: column.boolean().defaulted(),
  aruba_user_role: column.varchar().nullable(),
  session_timeout: column.integer().nullable(),
  /** Termination-Action = RADIUS-Request when the session times out. */
  reauthenticate: column.boolean().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export const NacPolicyRuleTable = defineTable('nac_policy_rules', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  enabled: column.boolean().defaulted(),
  /** Evaluation order, dense 0..n-1, the default rule last (services/policy-order.ts). */
  position: column.integer(),
  is_default: column.boolean().defaulted(),
  /** As the API took them, ids rather than names (services/conditions.ts). */
  conditions: column.jsonb<StoredCondition[]>().defaulted(),
  // The ids `conditions` names in other plugins' records (and this plugin's endpoint groups), for the reference guards.
  user_group_ids: column.array<string>().defaulted(),
  endpoint_group_ids: column.array<string>().defaulted(),
  device_group_ids: column.array<string>().defaulted(),
  authorization_profile_id: column.uuid(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

/** One row (id 1): bumped by every change the cached compiled policy must see (services/policy-cache.ts). */
export const NacPolicyVersionTable = defineTable('nac_policy_version', {
  id: column.integer(),
  version: column.bigint(),
})

export type EndpointGroupTableRow = RowOf<typeof EndpointGroupTable>
export type EndpointTableRow = RowOf<typeof EndpointTable>

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

/** Automatic CoAs waiting for the next FreeRADIUS deploy, one an endpoint (migrations/0005_nac_coa_waiting.ts). */
export const CoaWaitingTable = defineTable('nac_coa_waiting', {
  endpoint_id: column.uuid(),
  reason: column.varchar<Exclude<CoaReason, 'admin' | 'user_access_ended'>>(),
  created_at: column.timestamp().defaulted(),
})

/** Disconnect-Requests for the sessions of a user whose access ended, waiting for the next FreeRADIUS deploy (migrations/0006). */
export const CoaWaitingSessionTable = defineTable('nac_coa_waiting_sessions', {
  nas_ip: column.varchar(),
  acct_session_id: column.varchar(),
  username: column.varchar(),
  reason: column.varchar<'user_access_ended'>(),
  created_at: column.timestamp().defaulted(),
})

export type AuthorizationProfileRow = RowOf<typeof AuthorizationProfileTable>
export type NacPolicyRuleRow = RowOf<typeof NacPolicyRuleTable>

export const nacTables = [EndpointGroupTable, EndpointTable, AuthorizationProfileTable, NacPolicyRuleTable, NacPolicyVersionTable, ProfilingRuleTable, EndpointEvidenceTable, SessionTable, AuthGrantTable, CoaRequestTable, CoaNasTable, CoaWaitingTable, CoaWaitingSessionTable]
export type ProfilingRuleTableRow = RowOf<typeof ProfilingRuleTable>
export type SessionTableRow = RowOf<typeof SessionTable>


declare module 'knex/types/tables.js' {
  interface Tables {
    nac_endpoint_groups: TableType<typeof EndpointGroupTable>
    nac_endpoints: TableType<typeof EndpointTable>
    nac_authorization_profiles: TableType<typeof AuthorizationProfileTable>
    nac_policy_rules: TableType<typeof NacPolicyRuleTable>
    nac_policy_version: TableType<typeof NacPolicyVersionTable>
    nac_coa_requests: TableType<typeof CoaRequestTable>
    nac_coa_nas: TableType<typeof CoaNasTable>
    nac_coa_waiting: TableType<typeof CoaWaitingTable>
    nac_coa_waiting_sessions: TableType<typeof CoaWaitingSessionTable>
    nac_profiling_rules: TableType<typeof ProfilingRuleTable>
    nac_endpoint_evidence: TableType<typeof EndpointEvidenceTable>
    nac_sessions: TableType<typeof SessionTable>
    nac_auth_grants: TableType<typeof AuthGrantTable>
  }
}
