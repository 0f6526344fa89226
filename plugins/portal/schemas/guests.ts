/** Guests (who registered on a portal, or accounts made for an event) as the admin API shows them. Never a password or its hash. */
import { listQuery, Name, Nullable, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { GUEST_KINDS, GUEST_STATUSES } from '../tables.js'

export const GuestResponse = Type.Object(
  {
    id: Uuid(),
    portal_id: Uuid(),
    portal_name: Type.String(),
    kind: StringEnum(GUEST_KINDS, { description: 'How the guest came: a portal method, or `account` (made by an administrator for an event).' }),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    fields: Type.Record(Type.String(), Type.String(), { description: 'The portal\'s extra self-registration fields, as the guest typed them.' }),
    username: Nullable(Type.String({ description: 'An event account\'s sign-in name.' })),
    event: Nullable(Type.String()),
    sponsor_email: Nullable(Type.String()),
    sponsor_user_id: Nullable(Uuid()),
    status: StringEnum(GUEST_STATUSES),
    valid_from: Nullable(Timestamp()),
    valid_until: Nullable(Timestamp()),
    created_by: Nullable(Uuid()),
    ended_at: Nullable(Timestamp()),
    active_sessions: Type.Integer({ minimum: 0, description: 'The guest\'s devices with access now.' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'GuestResponse', additionalProperties: false },
)

export const GuestListResponse = Paginated(GuestResponse, 'GuestListResponse')
export const GuestParams = Type.Object({ guest_id: Uuid() }, { additionalProperties: false })
export const GuestListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['created_at', 'name', 'email', 'username', 'valid_until', 'status'] as const,
  defaultSortOrder: 'desc',
  filters: {
    status: Type.Optional(StringEnum(GUEST_STATUSES)),
    kind: Type.Optional(StringEnum(GUEST_KINDS)),
    portal_id: Type.Optional(Uuid()),
    event: Type.Optional(Type.String({ maxLength: 100 })),
  },
})

export const BULK_MAX = 200

export const GuestBulkCreate = Type.Object(
  {
    portal_id: Uuid({ description: 'The portal the accounts sign in on.' }),
    event: Name({ maxLength: 100, description: 'What the accounts are for (a conference, a training); shown in lists and on the printed sheet.' }),
    count: Type.Integer({ minimum: 1, maximum: BULK_MAX, description: `Accounts to make, 1 to ${BULK_MAX}.` }),
    prefix: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,19}$', description: 'Usernames are `<prefix>-<n>`, n counting on from the highest already taken with this prefix.' }),
    valid_from: Type.Optional(Timestamp({ description: 'Default: now.' })),
    valid_until: Timestamp({ description: 'Later than `valid_from` and than now; at most 366 days after `valid_from`.' }),
  },
  { title: 'GuestBulkCreate', additionalProperties: false },
)

export const GuestBulkResponse = Type.Object(
  {
    portal_id: Uuid(),
    event: Type.String(),
    valid_from: Timestamp(),
    valid_until: Timestamp(),
    accounts: Type.Array(
      Type.Object(
        { id: Uuid(), username: Type.String(), password: Type.String({ description: 'Shown here once; only its hash is kept.' }) },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'GuestBulkResponse', additionalProperties: false },
)

export const GuestExtend = Type.Object({ valid_until: Timestamp({ description: 'Later than now (and than `valid_from`), at most 366 days from now.' }) }, { title: 'GuestExtend', additionalProperties: false })

export type GuestResponse = Static<typeof GuestResponse>
export type GuestBulkResponse = Static<typeof GuestBulkResponse>
