/**
 * The ncm plugin's tables as its code reads them (sdk/tables.ts), from migrations/0001_ncm.ts; the
 * read side (0002) and compliance (0003) declare theirs in tables-read-side.ts and
 * tables-compliance.ts, spread here.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'
import { complianceTables } from './tables-compliance.js'
import { readSideTables } from './tables-read-side.js'

export type CollectorState = 'pending' | 'active' | 'revoked'
export type ContractState = 'unknown' | 'match' | 'mismatch'
export type FetchLogStatus = 'leased' | 'ok' | 'timeout' | 'connect_failed' | 'auth_failed' | 'host_key_mismatch' | 'too_large' | 'protocol_error' | 'expired'
export type FetchOutcome = 'new_version' | 'unchanged' | 'recorded'

export const CollectorsTable = defineTable('ncm_collectors', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  state: column.varchar<CollectorState>().defaulted(),
  max_concurrency: column.integer().defaulted(),
  ed25519_public_key: column.varchar().nullable(),
  x25519_public_key: column.varchar().nullable(),
  enrolled_at: column.timestamp().nullable(),
  last_contact_at: column.timestamp().nullable(),
  last_address: column.varchar().nullable(),
  release: column.varchar().nullable(),
  contract_state: column.varchar<ContractState>().defaulted(),
  contract_seen: column.varchar().nullable(),
  last_refusal_code: column.varchar().nullable(),
  last_refusal_at: column.timestamp().nullable(),
  removed_at: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type CollectorRow = RowOf<typeof CollectorsTable>

export const EnrollmentTokensTable = defineTable('ncm_enrollment_tokens', {
  token_hash: column.varchar(),
  collector_id: column.uuid(),
  expires_at: column.timestamp(),
  used_at: column.timestamp().nullable(),
  created_by: column.uuid().nullable(),
  created_at: column.timestamp().defaulted(),
})

export const NoncesTable = defineTable('ncm_nonces', {
  collector_key: column.varchar(),
  nonce: column.varchar(),
  seen_at: column.timestamp().defaulted(),
})

export const CredentialsTable = defineTable('ncm_credentials', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  username: column.varchar(),
  auth: column.varchar<'password' | 'private_key'>(),
  password_sealed: column.text().nullable(),
  private_key_sealed: column.text().nullable(),
  passphrase_sealed: column.text().nullable(),
  enable_secret_sealed: column.text().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type CredentialRow = RowOf<typeof CredentialsTable>

export const ProfilesTable = defineTable('ncm_profiles', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  mode: column.varchar<'shell' | 'exec'>().defaulted(),
  prompt: column.varchar(),
  login_prompt: column.varchar().nullable(),
  login_answer: column.varchar().nullable(),
  pre_commands: column.jsonb<string[]>(),
  enable_command: column.varchar().nullable(),
  enable_prompt: column.varchar().nullable(),
  command: column.varchar(),
  pager_pattern: column.varchar().nullable(),
  pager_answer: column.varchar().defaulted(),
  strip_lines: column.jsonb<string[]>(),
  secret_lines: column.jsonb<string[]>(),
  command_timeout_seconds: column.integer().defaulted(),
  legacy_algorithms: column.boolean().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type ProfileRow = RowOf<typeof ProfilesTable>

export const SchedulesTable = defineTable('ncm_schedules', {
  id: column.uuid().defaulted(),
  device_group_id: column.uuid(),
  collector_id: column.uuid(),
  credential_id: column.uuid(),
  profile_id: column.uuid(),
  interval_minutes: column.integer().defaulted(),
  enabled: column.boolean().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type ScheduleRow = RowOf<typeof SchedulesTable>

export const DevicesTable = defineTable('ncm_devices', {
  device_id: column.uuid(),
  schedule_id: column.uuid().nullable(),
  collector_id: column.uuid().nullable(),
  host: column.varchar().nullable(),
  port: column.integer().defaulted(),
  profile_id: column.uuid().nullable(),
  credential_id: column.uuid().nullable(),
  aaa_address: column.inet().nullable(),
  enabled: column.boolean().defaulted(),
  host_key_sha256: column.varchar().nullable(),
  next_due_at: column.timestamp().nullable(),
  lease_job_id: column.uuid().nullable(),
  lease_collector_id: column.uuid().nullable(),
  lease_expires_at: column.timestamp().nullable(),
  last_fetch_at: column.timestamp().nullable(),
  last_status: column.varchar().nullable(),
  last_error: column.varchar().nullable(),
  consecutive_failures: column.integer().defaulted(),
  latest_version_id: column.uuid().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type NcmDeviceRow = RowOf<typeof DevicesTable>

export const BlobsTable = defineTable('ncm_blobs', {
  device_id: column.uuid(),
  raw_sha256: column.varchar(),
  masked: column.text(),
  masked_sha256: column.varchar(),
  sealed: column.text(),
  bytes: column.integer(),
  lines: column.integer(),
  created_at: column.timestamp().defaulted(),
})

export const VersionsTable = defineTable('ncm_versions', {
  id: column.uuid().defaulted(),
  device_id: column.uuid(),
  raw_sha256: column.varchar(),
  previous_id: column.uuid().nullable(),
  collector_id: column.uuid().nullable(),
  first_started_at: column.timestamp(),
  first_finished_at: column.timestamp(),
  fetch_ms: column.integer(),
  last_seen_started_at: column.timestamp(),
  last_seen_at: column.timestamp(),
  seen_count: column.integer().defaulted(),
  added: column.integer().defaulted(),
  removed: column.integer().defaulted(),
  secrets_only: column.boolean().defaulted(),
  created_at: column.timestamp().defaulted(),
})
export type VersionRow = RowOf<typeof VersionsTable>

export const FetchesTable = defineTable('ncm_fetches', {
  id: column.uuid(),
  device_id: column.uuid(),
  collector_id: column.uuid(),
  leased_at: column.timestamp().defaulted(),
  started_at: column.timestamp().nullable(),
  finished_at: column.timestamp().nullable(),
  received_at: column.timestamp().nullable(),
  status: column.varchar<FetchLogStatus>().defaulted(),
  error_code: column.varchar().nullable(),
  detail: column.varchar().nullable(),
  bytes: column.integer().nullable(),
  outcome: column.varchar<FetchOutcome>().nullable(),
  version_id: column.uuid().nullable(),
})
export type FetchRow = RowOf<typeof FetchesTable>

export const ncmTables = [
  CollectorsTable,
  EnrollmentTokensTable,
  NoncesTable,
  CredentialsTable,
  ProfilesTable,
  SchedulesTable,
  DevicesTable,
  BlobsTable,
  VersionsTable,
  FetchesTable,
  ...readSideTables,
  ...complianceTables,
]

declare module 'knex/types/tables.js' {
  interface Tables {
    ncm_collectors: TableType<typeof CollectorsTable>
    ncm_enrollment_tokens: TableType<typeof EnrollmentTokensTable>
    ncm_nonces: TableType<typeof NoncesTable>
    ncm_credentials: TableType<typeof CredentialsTable>
    ncm_profiles: TableType<typeof ProfilesTable>
    ncm_schedules: TableType<typeof SchedulesTable>
    ncm_devices: TableType<typeof DevicesTable>
    ncm_blobs: TableType<typeof BlobsTable>
    ncm_versions: TableType<typeof VersionsTable>
    ncm_fetches: TableType<typeof FetchesTable>
  }
}
