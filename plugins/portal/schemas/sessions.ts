/** Portal sessions: a device passing through a portal, from the redirect to its end. Never the guest's token or its hash. */
import { listQuery, Nullable, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { SESSION_STATES } from '../tables.js'

export const SESSION_METHODS = ['hotspot', 'self_registration', 'sponsored', 'account', 'byod'] as const
export const END_REASONS = ['admin', 'expired', 'revoked', 'replaced', 'user_access_ended'] as const

export const SessionResponse = Type.Object(
  {
    id: Uuid(),
    portal_id: Uuid(),
    portal_name: Type.String(),
    guest_id: Nullable(Uuid()),
    guest_name: Nullable(Type.String()),
    guest_username: Nullable(Type.String()),
    user_id: Nullable(Uuid({ description: 'An employee\'s own device (byod): the user it is registered to.' })),
    method: Nullable(StringEnum(SESSION_METHODS)),
    mac: Type.String(),
    endpoint_id: Nullable(Uuid()),
    endpoint_group_id: Nullable(Uuid({ description: 'The endpoint group the registration put the device in (what its end takes it out of).' })),
    nas_ip: Nullable(Type.String()),
    ssid: Nullable(Type.String()),
    redirect_signed: Type.Boolean({ description: 'The redirect\'s parameters carried the platform\'s signature.' }),
    client_ip: Nullable(Type.String()),
    language: Nullable(Type.String()),
    state: StringEnum(SESSION_STATES),
    registered_at: Nullable(Timestamp()),
    expires_at: Nullable(Timestamp()),
    ended_at: Nullable(Timestamp()),
    end_reason: Nullable(StringEnum(END_REASONS)),
    coa_request_id: Nullable(Uuid({ description: 'The Disconnect-Request an administrator\'s end sent (GET /nac/coa/{coa_request_id}).' })),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'PortalSessionResponse', additionalProperties: false },
)

export const SessionListResponse = Paginated(SessionResponse, 'PortalSessionListResponse')
export const SessionParams = Type.Object({ session_id: Uuid() }, { additionalProperties: false })
export const SessionListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['created_at', 'registered_at', 'expires_at', 'mac', 'state'] as const,
  defaultSortOrder: 'desc',
  filters: {
    state: Type.Optional(StringEnum(SESSION_STATES)),
    method: Type.Optional(StringEnum(SESSION_METHODS)),
    portal_id: Type.Optional(Uuid()),
    guest_id: Type.Optional(Uuid()),
    mac: Type.Optional(Type.String({ maxLength: 40, description: 'A MAC in any notation the NAC accepts (422 MAC_INVALID otherwise).' })),
  },
})

export type SessionResponse = Static<typeof SessionResponse>
