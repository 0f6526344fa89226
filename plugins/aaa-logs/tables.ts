/**
 * The AAA logs' tables as the code reads them (sdk/tables.ts), from
 * migrations 0001 (the five log kinds, checkpoints, quarantine, exclusion
 * rules and their drop counts), 0003 (row counts), 0004 (the rollup), 0005
 * (what a RADIUS NAS claims beside the verified client, the reject reason) and
 * 0006 (tac_plus-ng's result code), 0008 (what an 802.1X or MAB request was):
 * knex types every query on them, and the kernel checks these declarations
 * against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'
import type { RadiusRejectReason } from '../../sdk/logs/freeradius.js'
import type { RadiusReplyAttribute } from '../../sdk/logs/freeradius-parse.js'
import type { LogTable } from './api.js'

/** What an exclusion rule may name: the protocol it drops lines of, and how it matches them. */
export const PROTOCOLS = ['all', 'tacacs', 'radius'] as const
export const MATCH_TYPES = ['username', 'username_pattern', 'user_group'] as const
export type ExclusionProtocol = (typeof PROTOCOLS)[number]
export type MatchType = (typeof MATCH_TYPES)[number]

/** The columns every log kind has, before and after its own. */
const common = {
  id: column.uuid().defaulted(),
  timestamp: column.timestamp(),
  username: column.varchar(),
  nas_ip: column.inet().nullable(),
  /** The cluster node that ingested the row. */
  node_id: column.uuid(),
  device_name: column.varchar().nullable(),
  client_address: column.varchar().nullable(),
  session_id: column.varchar().nullable(),
  /** The raw line reference. */
  source_file: column.varchar(),
  source_offset: column.bigint(),
  ingested_at: column.timestamp().defaulted(),
}

export const TacacsAuthnTable = defineTable('aaa_log_tacacs_authn', {
  ...common,
  status: column.varchar<'success' | 'failure'>(),
  rule_name: column.varchar().nullable(),
  profile: column.varchar().nullable(),
  authen_type: column.varchar().nullable(),
  port: column.varchar().nullable(),
  message: column.text().nullable(),
  /** tac_plus-ng's msgid (migration 0006). */
  result_code: column.varchar().nullable(),
})

export const TacacsAuthzTable = defineTable('aaa_log_tacacs_authz', {
  ...common,
  action: column.varchar<'permit' | 'deny'>(),
  rule_name: column.varchar().nullable(),
  profile: column.varchar().nullable(),
  service: column.varchar().nullable(),
  priv_lvl: column.smallint().nullable(),
  command: column.text().nullable(),
  arguments: column.array<string>().defaulted(),
  reply_arguments: column.array<string>().defaulted(),
  result_code: column.varchar().nullable(),
})

export const TacacsAcctTable = defineTable('aaa_log_tacacs_acct', {
  ...common,
  /** start | stop | watchdog, or what the daemon wrote (cut to 16). */
  action: column.varchar(),
  service: column.varchar().nullable(),
  command: column.text().nullable(),
  arguments: column.array<string>().defaulted(),
  port: column.varchar().nullable(),
})

export const RadiusAuthTable = defineTable('aaa_log_radius_auth', {
  ...common,
  status: column.varchar<'accept' | 'reject'>(),
  auth_type: column.varchar().nullable(),
  rule_name: column.varchar().nullable(),
  rule_label: column.varchar().nullable(),
  calling_station_id: column.varchar().nullable(),
  called_station_id: column.varchar().nullable(),
  nas_port: column.varchar().nullable(),
  nas_identifier: column.varchar().nullable(),
  reply_attributes: column.jsonb<RadiusReplyAttribute[]>().defaulted(),
  reason: column.text().nullable(),
  /** NAS-IP-Address as the NAS claims it (nas_ip: the address the packet came from). */
  nas_ip_address: column.inet().nullable(),
  reject_reason: column.varchar<RadiusRejectReason>().nullable(),
  /** reply_attributes holds only the attributes before FreeRADIUS cut the list (2,047 bytes per expansion). */
  reply_attributes_truncated: column.boolean().defaulted(),
  /** 802.1X and MAB (migration 0008): peap | eap-tls | mab; the authenticated user; User-Name as sent when it differs; NAS-Port-Type. */
  nac_method: column.varchar<'peap' | 'eap-tls' | 'mab'>().nullable(),
  nac_user: column.varchar().nullable(),
  outer_identity: column.varchar().nullable(),
  nas_port_type: column.varchar().nullable(),
})

export const RadiusAcctTable = defineTable('aaa_log_radius_acct', {
  ...common,
  acct_status_type: column.varchar(),
  acct_session_id: column.varchar().nullable(),
  calling_station_id: column.varchar().nullable(),
  framed_ip: column.inet().nullable(),
  session_time: column.bigint().nullable(),
  input_octets: column.bigint().nullable(),
  output_octets: column.bigint().nullable(),
  nas_port: column.varchar().nullable(),
  nas_ip_address: column.inet().nullable(),
  nas_identifier: column.varchar().nullable(),
})

/** Where each tailed file has been read to (written in the same transaction as its rows). */
export const CheckpointTable = defineTable('aaa_log_checkpoints', {
  node_id: column.uuid(),
  /** tacacs_authentication … radius_accounting, or a replay's name. */
  source: column.varchar(),
  file: column.varchar(),
  inode: column.bigint(),
  offset_bytes: column.bigint(),
  updated_at: column.timestamp().defaulted(),
})

/** Lines that could not be parsed, with the reason. */
export const QuarantineTable = defineTable('aaa_log_quarantine', {
  id: column.uuid().defaulted(),
  node_id: column.uuid(),
  source: column.varchar(),
  source_file: column.varchar(),
  source_offset: column.bigint(),
  line: column.bytea(),
  reason: column.text(),
  received_at: column.timestamp().defaulted(),
})

export const ExclusionTable = defineTable('aaa_log_exclusions', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  protocol: column.varchar<ExclusionProtocol>(),
  match_type: column.varchar<MatchType>(),
  match_value: column.varchar(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type ExclusionRecord = RowOf<typeof ExclusionTable>

/** Events the exclusion rules dropped, per node, rule and day. */
export const ExclusionDropTable = defineTable('aaa_log_exclusion_drops', {
  node_id: column.uuid(),
  exclusion_id: column.uuid(),
  day: column.date(),
  dropped: column.bigint().defaulted(),
})

/** Exact row counts of the five log tables (migration 0003's triggers). */
export const RowCountTable = defineTable('aaa_log_row_counts', {
  table_name: column.varchar<LogTable>(),
  n: column.bigint(),
})

/** Counts by (table, filter dimension, value, time bucket, enum values) (migration 0004's triggers). */
export const RollupTable = defineTable('aaa_log_rollup', {
  table_name: column.varchar<LogTable>(),
  dim: column.varchar(),
  bucket: column.timestamp(),
  val: column.text(),
  e1: column.varchar(),
  e2: column.varchar(),
  n: column.bigint(),
})

export const aaaLogsTables = [TacacsAuthnTable, TacacsAuthzTable, TacacsAcctTable, RadiusAuthTable, RadiusAcctTable, CheckpointTable, QuarantineTable, ExclusionTable, ExclusionDropTable, RowCountTable, RollupTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    aaa_log_tacacs_authn: TableType<typeof TacacsAuthnTable>
    aaa_log_tacacs_authz: TableType<typeof TacacsAuthzTable>
    aaa_log_tacacs_acct: TableType<typeof TacacsAcctTable>
    aaa_log_radius_auth: TableType<typeof RadiusAuthTable>
    aaa_log_radius_acct: TableType<typeof RadiusAcctTable>
    aaa_log_checkpoints: TableType<typeof CheckpointTable>
    aaa_log_quarantine: TableType<typeof QuarantineTable>
    aaa_log_exclusions: TableType<typeof ExclusionTable>
    aaa_log_exclusion_drops: TableType<typeof ExclusionDropTable>
    aaa_log_row_counts: TableType<typeof RowCountTable>
    aaa_log_rollup: TableType<typeof RollupTable>
  }
}
