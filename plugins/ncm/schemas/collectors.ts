import { listQuery, Name, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid } from '../../../sdk/index.js'

export const CollectorParams = Type.Object({ collector_id: Uuid() }, { additionalProperties: false })

export const Collector = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    state: StringEnum(['pending', 'active', 'revoked'] as const, { description: '`pending`: not enrolled yet. `active`: enrolled. `revoked`: refused (revoked, or removed).' }),
    max_concurrency: Type.Integer({ description: 'At most this many fetches at once on the collector.' }),
    enrolled_at: Nullable(Timestamp()),
    last_contact_at: Nullable(Timestamp({ description: 'The last verified request (updated at most every 10 s).' })),
    last_address: Nullable(Type.String()),
    release: Nullable(Type.String({ description: 'The release the collector says it runs (shown, never refused).' })),
    contract_state: StringEnum(['unknown', 'match', 'mismatch'] as const, { description: '`mismatch`: its last request spoke another protocol contract; nothing from it is stored until it matches again.' }),
    contract_seen: Nullable(Type.String({ description: 'The contract a mismatching collector sent.' })),
    last_refusal_code: Nullable(Type.String()),
    last_refusal_at: Nullable(Timestamp()),
    removed: Type.Boolean(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'NcmCollector', additionalProperties: false },
)

export const CollectorList = Paginated(Collector, 'NcmCollectorList')
export const CollectorListQuery = listQuery({ maxPerPage: 500, defaultPerPage: 50, sortBy: ['name', 'last_contact_at', 'created_at'] as const })

export const CollectorCreate = Type.Object(
  {
    name: Name({ maxLength: 64 }),
    description: OptionalText({ maxLength: 500 }),
    max_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 8 })),
  },
  { title: 'NcmCollectorCreate', additionalProperties: false },
)

export const CollectorUpdate = Type.Object(
  {
    name: Type.Optional(Name({ maxLength: 64 })),
    description: OptionalText({ maxLength: 500 }),
    max_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  },
  { title: 'NcmCollectorUpdate', additionalProperties: false, minProperties: 1 },
)

export const EnrollmentToken = Type.Object(
  {
    enrollment_token: Type.String({ description: 'Shown once: give it to `portcullis collector enroll --token`. Stored only as its hash.' }),
    expires_at: Timestamp(),
  },
  { title: 'NcmEnrollmentToken', additionalProperties: false },
)

export const CollectorCreated = Type.Object(
  { collector: Collector, enrollment_token: Type.String({ description: 'Shown once.' }), expires_at: Timestamp() },
  { title: 'NcmCollectorCreated', additionalProperties: false },
)
