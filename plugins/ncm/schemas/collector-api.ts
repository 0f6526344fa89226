/** The collector API's wire shapes (sdk/collector-protocol.ts), for validation and the OpenAPI document. */
import { Nullable, StringEnum, Timestamp, Type, Uuid } from '../../../sdk/index.js'

const RawKey = (d: string) => Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: d })

export const EnrollBody = Type.Object(
  {
    token: Type.String({ maxLength: 100, description: 'The one-time enrollment token (`pcc_…`).' }),
    name: Type.String({ minLength: 1, maxLength: 64, description: "The collector's own name for itself (informational)." }),
    ed25519_public_key: RawKey('The raw Ed25519 public key (32 bytes, base64url) that signs every later request; this request is signed with it (keyid "enroll").'),
    x25519_public_key: RawKey('The raw X25519 public key (32 bytes, base64url) device credentials are sealed to.'),
  },
  { title: 'NcmEnrollRequest', additionalProperties: false },
)

export const EnrollAnswer = Type.Object(
  { collector_id: Uuid(), name: Type.String(), core_version: Type.String() },
  { title: 'NcmEnrollAnswer', additionalProperties: false },
)

const Profile = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    mode: StringEnum(['shell', 'exec'] as const),
    prompt: Type.String(),
    login_prompt: Nullable(Type.String()),
    login_answer: Nullable(Type.String()),
    pre_commands: Type.Array(Type.String()),
    enable_command: Nullable(Type.String()),
    enable_prompt: Nullable(Type.String()),
    command: Type.String(),
    pager_pattern: Nullable(Type.String()),
    pager_answer: Type.String(),
    command_timeout_seconds: Type.Integer(),
    legacy_algorithms: Type.Boolean(),
  },
  { additionalProperties: false },
)

const Envelope = Type.Object(
  { v: Type.Literal(1), epk: Type.String(), iv: Type.String(), ct: Type.String(), tag: Type.String() },
  { additionalProperties: false, description: "The device credential sealed to this collector's X25519 key for this job (sdk/collector-protocol.ts)." },
)

export const JobsQuery = Type.Object(
  {
    wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 25, default: 0, description: 'Seconds to wait for a job when none is due (long poll).' })),
    slots: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 1, description: 'At most this many jobs.' })),
  },
  { additionalProperties: false },
)

export const JobsAnswer = Type.Object(
  {
    jobs: Type.Array(
      Type.Object(
        {
          job_id: Uuid(),
          device_id: Uuid(),
          device_name: Type.String(),
          host: Type.String(),
          port: Type.Integer(),
          profile: Profile,
          credential: Envelope,
          host_key_sha256: Nullable(Type.String()),
          connect_timeout_ms: Type.Integer(),
          deadline_ms: Type.Integer(),
          max_bytes: Type.Integer(),
          lease_expires_at: Timestamp(),
        },
        { additionalProperties: false },
      ),
    ),
    poll_seconds: Type.Integer({ description: 'When to poll again when no job came.' }),
    max_concurrency: Type.Integer(),
  },
  { title: 'NcmJobsAnswer', additionalProperties: false },
)

export const FETCH_STATUSES = ['ok', 'timeout', 'connect_failed', 'auth_failed', 'host_key_mismatch', 'too_large', 'protocol_error'] as const

export const FetchResultBody = Type.Object(
  {
    job_id: Uuid(),
    status: StringEnum(FETCH_STATUSES),
    started_at: Timestamp(),
    finished_at: Timestamp(),
    host_key_sha256: Nullable(Type.String({ maxLength: 100 })),
    output: Type.Optional(Type.String()),
    detail: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { title: 'NcmFetchResult', additionalProperties: false },
)

export const ResultAnswer = Type.Object(
  { outcome: StringEnum(['new_version', 'unchanged', 'recorded'] as const), version_id: Nullable(Uuid()) },
  { title: 'NcmResultAnswer', additionalProperties: false },
)

export const StatusAnswer = Type.Object(
  {
    collector_id: Uuid(),
    name: Type.String(),
    state: StringEnum(['pending', 'active', 'revoked'] as const),
    core_version: Type.String(),
    contract_state: StringEnum(['unknown', 'match', 'mismatch'] as const),
  },
  { title: 'NcmCollectorStatus', additionalProperties: false },
)
