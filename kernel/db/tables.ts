/**
 * The kernel's own tables as its code reads them (see sdk/tables.ts): the row
 * types knex's table typings use, checked against the database at every boot.
 * Each declaration follows the kernel migrations (migrations/0001 to 0014):
 * `t.string` is varchar, nullable unless the migration says notNullable,
 * defaulted where the migration gives a default.
 */
import { column, defineTable, type TableDefinition, type TableType } from '../../sdk/index.js'
import type { FileRecord } from '../deploy/files.js'

/** Key/value facts of the installation: identity_version, the passphrase's KDF parameters. */
export const KernelMetaTable = defineTable('kernel_meta', {
  key: column.varchar(),
  value: column.text(),
  updated_at: column.timestamp().defaulted(),
})

export const SettingsTable = defineTable('settings', {
  key: column.varchar(),
  /** The setting's value, or `{ sealed }` for a secret one (settings/store.ts). */
  value: column.jsonb(),
  updated_at: column.timestamp().defaulted(),
  updated_by: column.varchar().nullable(),
})

export const AuditLogTable = defineTable('audit_log', {
  id: column.uuid().defaulted(),
  at: column.timestamp().defaulted(),
  actor_id: column.varchar().nullable(),
  actor_name: column.varchar().nullable(),
  action: column.varchar(),
  resource_type: column.varchar(),
  resource_id: column.varchar().nullable(),
  /** The object's name at the event (migration 0013). */
  resource_name: column.varchar().nullable(),
  before: column.jsonb().nullable(),
  after: column.jsonb().nullable(),
  request_id: column.varchar().nullable(),
  outcome: column.varchar<'success' | 'failure'>().defaulted(),
  reason: column.varchar().nullable(),
  ip: column.varchar().nullable(),
  user_agent: column.varchar().nullable(),
})

export const RateLimitHitsTable = defineTable('rate_limit_hits', {
  bucket: column.varchar(),
  client: column.varchar(),
  /** Milliseconds since the epoch (bigint[]; read back as text). */
  hits: column.array<string>(),
  refused: column.integer().defaulted(),
  last_at: column.bigint(),
})

export const ClusterNodesTable = defineTable('cluster_nodes', {
  node_id: column.uuid(),
  hostname: column.varchar(),
  role: column.varchar<'primary' | 'replica'>(),
  version: column.varchar(),
  started_at: column.timestamp(),
  last_seen: column.timestamp(),
  address: column.varchar().nullable(),
})

/** One rendered file's text, once per sha256, sealed (deploy/store.ts). */
export const ReleaseBlobsTable = defineTable('release_blobs', {
  sha256: column.varchar(),
  content: column.text(),
  size: column.integer(),
  created_at: column.timestamp().defaulted(),
})

/** The files of an activated release: path, blob, declared mode. */
export const ReleaseFilesTable = defineTable('release_files', {
  deploy_id: column.uuid(),
  path: column.varchar(),
  sha256: column.varchar(),
  mode: column.varchar(),
})

/** What each node serves, per daemon (cluster/agent.ts). */
export const ClusterNodeDaemonsTable = defineTable('cluster_node_daemons', {
  node_id: column.uuid(),
  daemon: column.varchar(),
  deploy_id: column.uuid().nullable(),
  release: column.varchar().nullable(),
  switched_at: column.timestamp().nullable(),
  check_ok: column.boolean().nullable(),
  check_output: column.text().nullable(),
  checked_at: column.timestamp().nullable(),
  reload_status: column.varchar<'ok' | 'failed'>().nullable(),
  reload_output: column.text().nullable(),
  reloaded_at: column.timestamp().nullable(),
  error: column.text().nullable(),
  process: column.jsonb<unknown>().nullable(),
  updated_at: column.timestamp().defaulted(),
})

export const UsersTable = defineTable('users', {
  id: column.uuid().defaulted(),
  username: column.varchar(),
  display_name: column.varchar().nullable(),
  email: column.varchar().nullable(),
  enabled: column.boolean().defaulted(),
  source: column.varchar<'local' | 'directory'>().defaulted(),
  password_hash: column.text().nullable(),
  /** Sealed with the master key (identity/verifiers.ts). */
  network_verifiers: column.text().nullable(),
  network_login: column.boolean().defaulted(),
  /** The sealed verifiers keep the cleartext password, for CHAP (migrations/0004_user_chap.ts). */
  chap_enabled: column.boolean().defaulted(),
  is_admin: column.boolean().defaulted(),
  password_changed_at: column.timestamp().nullable(),
  must_change_password: column.boolean().defaulted(),
  /** Past it the daemons and the web sign-in refuse the user; null never expires (migrations/0007_user_expiry_lockout.ts). */
  expires_at: column.timestamp().nullable(),
  /** When an administrator last cleared the user's lockout: FreeRADIUS forgets the failures counted before it. */
  lockout_cleared_at: column.timestamp().nullable(),
  /** Tokens issued before this instant are void. */
  sessions_valid_after: column.timestamp().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export const UserGroupsTable = defineTable('user_groups', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  /** The directory group mapped to this group, for directory users on the daemons (migrations/0008_user_group_directory_dn.ts). */
  directory_group_dn: column.varchar().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export const RolesTable = defineTable('roles', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  permissions: column.jsonb<string[]>().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export const UserGroupMembersTable = defineTable('user_group_members', {
  group_id: column.uuid(),
  user_id: column.uuid(),
})

export const UserRolesTable = defineTable('user_roles', {
  user_id: column.uuid(),
  role_id: column.uuid(),
})

export const GroupRolesTable = defineTable('group_roles', {
  group_id: column.uuid(),
  role_id: column.uuid(),
})

export const RevokedTokensTable = defineTable('revoked_tokens', {
  jti: column.uuid(),
  expires_at: column.timestamp(),
})

export const PasswordResetsTable = defineTable('password_resets', {
  token_hash: column.varchar(),
  user_id: column.uuid(),
  expires_at: column.timestamp(),
  used_at: column.timestamp().nullable(),
})

export const DeploysTable = defineTable('deploys', {
  id: column.uuid(),
  daemon: column.varchar(),
  /** The release folder's name under <DATA_DIR>/releases/<daemon>/. */
  release: column.varchar(),
  /** pending (being activated), active, failed, superseded, rolled_back. */
  status: column.varchar<'pending' | 'active' | 'failed' | 'superseded' | 'rolled_back'>(),
  /** The node whose DATA_DIR holds the release; null for rows recorded before node ids were. */
  node_id: column.uuid().nullable(),
  actor_id: column.varchar().nullable(),
  actor_name: column.varchar().nullable(),
  comment: column.varchar().nullable(),
  /** null: the check's binary is absent (or no check is configured). */
  checked: column.boolean().nullable(),
  check_output: column.text().nullable(),
  files: column.jsonb<FileRecord[]>(),
  /** The release this one re-activates (a rollback). */
  rollback_of: column.uuid().nullable(),
  reload_status: column.varchar<'ok' | 'failed'>().nullable(),
  reload_output: column.text().nullable(),
  created_at: column.timestamp().defaulted(),
  activated_at: column.timestamp().nullable(),
  /** The renderers that wrote the release and the snapshot it was rendered from (deploy/store.ts). */
  manifest: column.jsonb<unknown>().nullable(),
  /** Why a failed release was not activated (migrations/0012, deploy/failed.ts); null otherwise. */
  failure_reason: column.varchar<'check_failed' | 'check_skipped' | 'not_activated' | 'interrupted'>().nullable(),
  /** For `not_activated`: the daemons of the same deploy whose check stopped it, comma separated. */
  blocked_by: column.varchar().nullable(),
})

/** One row, `deploy`: free when `token` is null (deploy/lock.ts). */
export const DeployLockTable = defineTable('deploy_lock', {
  name: column.varchar(),
  token: column.uuid().nullable(),
  node_id: column.uuid().nullable(),
  pid: column.integer().nullable(),
  acquired_at: column.timestamp().nullable(),
  expires_at: column.timestamp().nullable(),
})

/** One row: the installation's random identifier (migrations/0011), shown and sent only by the Pro edition (docs/editions.md). */
export const InstallationTable = defineTable('installation', {
  singleton: column.boolean().defaulted(),
  id: column.uuid(),
  created_at: column.timestamp().defaulted(),
})

export const kernelTables: TableDefinition[] = [
  KernelMetaTable, SettingsTable, AuditLogTable, RateLimitHitsTable, ClusterNodesTable,
  UsersTable, UserGroupsTable, RolesTable, UserGroupMembersTable, UserRolesTable, GroupRolesTable, RevokedTokensTable, PasswordResetsTable,
  DeploysTable, DeployLockTable, ReleaseBlobsTable, ReleaseFilesTable, ClusterNodeDaemonsTable, InstallationTable,
]

declare module 'knex/types/tables.js' {
  interface Tables {
    kernel_meta: TableType<typeof KernelMetaTable>
    settings: TableType<typeof SettingsTable>
    audit_log: TableType<typeof AuditLogTable>
    rate_limit_hits: TableType<typeof RateLimitHitsTable>
    cluster_nodes: TableType<typeof ClusterNodesTable>
    users: TableType<typeof UsersTable>
    user_groups: TableType<typeof UserGroupsTable>
    roles: TableType<typeof RolesTable>
    user_group_members: TableType<typeof UserGroupMembersTable>
    user_roles: TableType<typeof UserRolesTable>
    group_roles: TableType<typeof GroupRolesTable>
    revoked_tokens: TableType<typeof RevokedTokensTable>
    password_resets: TableType<typeof PasswordResetsTable>
    deploys: TableType<typeof DeploysTable>
    deploy_lock: TableType<typeof DeployLockTable>
    release_blobs: TableType<typeof ReleaseBlobsTable>
    release_files: TableType<typeof ReleaseFilesTable>
    cluster_node_daemons: TableType<typeof ClusterNodeDaemonsTable>
    installation: TableType<typeof InstallationTable>
  }
}
