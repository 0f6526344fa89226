import { listQuery, Nullable, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'

export const COA_ACTIONS = ['reauthenticate', 'disconnect', 'bounce-port'] as const
export const COA_REASONS = ['admin', 'group_change', 'device_type_change', 'profile_change', 'policy_change', 'user_access_ended'] as const
export const COA_RESULTS = ['pending', 'ack', 'nak', 'timeout', 'bad_response', 'error'] as const
export const COA_DIALECTS = ['auto', 'cisco', 'rfc5176'] as const

export const ACTIONS_DOC =
  '`reauthenticate`: a CoA-Request (43) that makes the NAS run authorization again, so the current policy applies (Cisco: `Cisco-AVPair = subscriber:command=reauthenticate`; RFC 5176 dialect: `Service-Type = Authorize-Only`). `disconnect`: a Disconnect-Request (40) that ends the session. `bounce-port`: a CoA-Request with `Cisco-AVPair = subscriber:command=bounce-host-port` (the port goes down and up, so that a device that keeps its address, a printer or a camera, asks DHCP again); the RFC 5176 dialect has no such command and sends a Disconnect-Request instead.'

export const CoaSend = Type.Object(
  { action: StringEnum(COA_ACTIONS, { description: ACTIONS_DOC }) },
  { title: 'CoaSendRequest', additionalProperties: false },
)

export const CoaRequestResponse = Type.Object(
  {
    id: Uuid(),
    endpoint_id: Nullable(Uuid({ description: 'Null once the endpoint was deleted.' })),
    mac: Type.String({ description: "The endpoint's MAC when the request was sent." }),
    action: StringEnum(COA_ACTIONS),
    reason: StringEnum(COA_REASONS, { description: '`admin`: asked through the API. `group_change`: the endpoint moved group (an edit or an import). `device_type_change`, `profile_change`, `policy_change`: profiling or the policy changed what applies to it. `user_access_ended`: a Disconnect-Request for a live session of a user who was disabled or deleted, or whose network login was turned off (or expiry set to a past moment).' }),
    device_id: Nullable(Uuid({ description: 'The inventory device the NAS address was answered as, when the request was sent.' })),
    device_name: Nullable(Type.String()),
    nas_ip: Nullable(Type.String({ description: "The address the request went to: the endpoint's last NAS." })),
    nas_port: Nullable(Type.Integer({ description: 'The UDP port it went to.' })),
    dialect: Nullable(StringEnum(['cisco', 'rfc5176'] as const)),
    packet_code: Nullable(Type.Integer({ description: '40 Disconnect-Request or 43 CoA-Request.' })),
    attributes: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false }), {
      description: 'The attributes sent, in order (the Message-Authenticator, which every request carries, left out).',
    }),
    requested_by: Nullable(Uuid({ description: 'The user who asked; null for an automatic request.' })),
    requested_by_username: Nullable(Type.String()),
    result: StringEnum(COA_RESULTS, {
      description:
        '`pending`: sent, not answered yet. `ack` / `nak`: the NAS answered (CoA-ACK/NAK or Disconnect-ACK/NAK). `timeout`: no answer after every retry. `bad_response`: only answers whose Response Authenticator failed (the NAS has another secret than the inventory, or a forgery), discarded. `error`: could not be sent (an automatic request whose NAS is not in the inventory or has no secret; `error_detail` says which).',
    }),
    error_cause: Nullable(Type.Integer({ description: 'The Error-Cause the NAS gave (RFC 5176 3.6): 503 Session-Context-Not-Found, 502 Proxy-Request-Not-Routable, 404 Invalid-Request, 401 Unsupported-Attribute…' })),
    error_cause_name: Nullable(Type.String({ description: 'Its RFC 5176 name, when it has one.' })),
    error_detail: Nullable(Type.String()),
    attempts: Type.Integer({ description: 'Transmissions made: 1, plus the retries used.' }),
    sent_at: Nullable(Timestamp()),
    answered_at: Nullable(Timestamp()),
    created_at: Timestamp(),
  },
  { title: 'CoaRequestResponse', additionalProperties: false },
)

export const CoaRequestListResponse = Paginated(CoaRequestResponse, 'CoaRequestListResponse')

const filters = {
  result: Type.Optional(StringEnum(COA_RESULTS)),
  action: Type.Optional(StringEnum(COA_ACTIONS)),
  reason: Type.Optional(StringEnum(COA_REASONS)),
}

export const CoaRequestListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ['created_at'] as const, defaultSortOrder: 'desc', filters })
export const CoaGlobalListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['created_at'] as const,
  defaultSortOrder: 'desc',
  filters: { ...filters, endpoint_id: Type.Optional(Uuid()), device_id: Type.Optional(Uuid()) },
})

export const CoaNasParams = Type.Object({ device_id: Uuid() }, { additionalProperties: false })

export const CoaNasUpdate = Type.Object(
  {
    port: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 65535, description: 'The UDP port the device listens for CoA on; `null`: the setting `nac.coa_port` (3799 by default).' }))),
    dialect: Type.Optional(
      StringEnum(COA_DIALECTS, {
        description: "`cisco`: Cisco-AVPair subscriber commands. `rfc5176`: Service-Type Authorize-Only, and a Disconnect-Request for a bounce. `auto` (default): `cisco` when the device's vendor names Cisco, else `rfc5176`.",
      }),
    ),
  },
  { title: 'CoaNasUpdate', additionalProperties: false, description: 'Partial: only the fields given change.' },
)

export const CoaNasResponse = Type.Object(
  {
    device_id: Uuid(),
    device_name: Type.String(),
    port: Nullable(Type.Integer({ description: 'The override; null: the setting.' })),
    effective_port: Type.Integer({ description: 'The port requests go to now.' }),
    dialect: StringEnum(COA_DIALECTS),
    effective_dialect: StringEnum(['cisco', 'rfc5176'] as const),
  },
  { title: 'CoaNasResponse', additionalProperties: false },
)

export type CoaSend = Static<typeof CoaSend>
