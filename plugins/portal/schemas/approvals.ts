/** Sponsor requests: a guest asking an employee for access, decided once (the mailed link or the API). */
import { listQuery, Nullable, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'

export const REQUEST_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const

export const ApprovalResponse = Type.Object(
  {
    id: Uuid(),
    portal_id: Uuid(),
    portal_name: Type.String(),
    session_id: Uuid(),
    guest_id: Uuid(),
    guest_name: Nullable(Type.String({ description: 'As the guest typed it: shown as text, never as markup.' })),
    guest_email: Nullable(Type.String()),
    guest_fields: Type.Record(Type.String(), Type.String()),
    mac: Type.String(),
    sponsor_email: Type.String(),
    sponsor_user_id: Nullable(Uuid()),
    status: StringEnum(REQUEST_STATUSES),
    expires_at: Timestamp({ description: 'The sponsor\'s link, and any decision, is refused from then (410).' }),
    decided_via: Nullable(StringEnum(['link', 'api'] as const)),
    decided_by: Nullable(Uuid()),
    decided_at: Nullable(Timestamp()),
    created_at: Timestamp(),
  },
  { title: 'SponsorRequestResponse', additionalProperties: false },
)

export const ApprovalListResponse = Paginated(ApprovalResponse, 'SponsorRequestListResponse')
export const ApprovalParams = Type.Object({ request_id: Uuid() }, { additionalProperties: false })
export const ApprovalListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['created_at', 'expires_at'] as const,
  filters: {
    status: Type.Optional(StringEnum(REQUEST_STATUSES, { description: 'Default `pending`: the requests waiting for a decision.' })),
    portal_id: Type.Optional(Uuid()),
  },
})
export const Decision = Type.Object({ decision: StringEnum(['approve', 'deny'] as const) }, { title: 'SponsorDecision', additionalProperties: false })

export type ApprovalResponse = Static<typeof ApprovalResponse>
