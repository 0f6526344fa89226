import { listQuery, Nullable, Paginated, StringEnum, Timestamp, Type, Uuid } from '../../../sdk/index.js'

export const DeviceParams = Type.Object({ device_id: Uuid() }, { additionalProperties: false })

export const NcmDevice = Type.Object(
  {
    device_id: Uuid(),
    name: Type.String(),
    address: Type.String({ description: 'The inventory address.' }),
    host: Nullable(Type.String({ description: 'Where the collector connects: the override, else the address when it is one host; null: no host (a network address without an override).' })),
    host_override: Nullable(Type.String()),
    port: Type.Integer(),
    schedule_id: Nullable(Uuid()),
    collector_id: Nullable(Uuid({ description: 'Null: not fetched (no enabled schedule covers it, or the device is disabled).' })),
    profile_id: Nullable(Uuid({ description: "Override of the schedule's profile." })),
    credential_id: Nullable(Uuid({ description: "Override of the schedule's credential." })),
    aaa_address: Nullable(Type.String({ description: 'Where its TACACS+ records come from, when not its host.' })),
    enabled: Type.Boolean(),
    host_key_sha256: Nullable(Type.String({ description: 'The pinned SSH host key (OpenSSH SHA256 fingerprint).' })),
    next_due_at: Nullable(Timestamp()),
    last_fetch_at: Nullable(Timestamp()),
    last_status: Nullable(Type.String({ description: 'ok, timeout, connect_failed, auth_failed, host_key_mismatch, too_large, protocol_error, or why nothing was handed out: no_host, profile_missing, credential_missing.' })),
    last_error: Nullable(Type.String()),
    consecutive_failures: Type.Integer(),
    latest_version_id: Nullable(Uuid()),
  },
  { title: 'NcmDevice', additionalProperties: false },
)

export const DeviceList = Paginated(NcmDevice, 'NcmDeviceList')
export const DeviceListQuery = listQuery({
  maxPerPage: 500,
  defaultPerPage: 50,
  sortBy: ['next_due_at', 'last_fetch_at'] as const,
  filters: { collector_id: Type.Optional(Uuid()), last_status: Type.Optional(Type.String({ maxLength: 32 })) },
})

export const DeviceUpdate = Type.Object(
  {
    host: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:_-]+$', description: 'A host name or address; null: the inventory address.' }))),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    profile_id: Type.Optional(Nullable(Uuid())),
    credential_id: Type.Optional(Nullable(Uuid())),
    aaa_address: Type.Optional(Nullable(Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })]))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { title: 'NcmDeviceUpdate', additionalProperties: false, minProperties: 1 },
)

export const Fetch = Type.Object(
  {
    id: Uuid({ description: 'The job id.' }),
    collector_id: Uuid(),
    leased_at: Timestamp(),
    started_at: Nullable(Timestamp()),
    finished_at: Nullable(Timestamp()),
    status: StringEnum(['leased', 'ok', 'timeout', 'connect_failed', 'auth_failed', 'host_key_mismatch', 'too_large', 'protocol_error', 'expired'] as const),
    detail: Nullable(Type.String()),
    outcome: Nullable(StringEnum(['new_version', 'unchanged', 'recorded'] as const)),
    version_id: Nullable(Uuid()),
  },
  { title: 'NcmFetch', additionalProperties: false },
)
export const FetchList = Paginated(Fetch, 'NcmFetchList')
export const FetchListQuery = listQuery({ maxPerPage: 500, defaultPerPage: 50, sortBy: ['leased_at'] as const, defaultSortOrder: 'desc' })

export const FetchNow = Type.Object({ next_due_at: Timestamp() }, { title: 'NcmFetchNow', additionalProperties: false })
export const HistoryDeleted = Type.Object({ versions: Type.Integer(), blobs: Type.Integer() }, { title: 'NcmHistoryDeleted', additionalProperties: false })
