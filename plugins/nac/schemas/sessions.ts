import { EXPORT_FORMATS, listQuery, Nullable, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { MAC_NOTATIONS } from './common.js'

export const SESSION_STATES = ['live', 'stale', 'ended'] as const

const str = (description: string) => Nullable(Type.String({ description }))

export const SessionResponse = Type.Object(
  {
    id: Uuid(),
    mac: str('The endpoint (Calling-Station-Id), canonical `aa:bb:cc:dd:ee:ff`; null when the NAS sent none or not a MAC.'),
    username: str('User-Name as accounting reported it (the 802.1X identity, or the MAC for MAB).'),
    nas_ip: Type.String({ description: 'The NAS (switch, controller) the accounting came from: the RADIUS client FreeRADIUS verified.' }),
    nas_port: str('NAS-Port-Id (or NAS-Port) as the NAS wrote it.'),
    nas_port_type: str('NAS-Port-Type (`Ethernet`, `Wireless-802.11`).'),
    acct_session_id: Type.String({ description: 'Acct-Session-Id: with `nas_ip`, what identifies the session.' }),
    framed_ip: str('Framed-IP-Address, the latest reported.'),
    vlan: str('The VLAN the session was given (Tunnel-Private-Group-Id of the Access-Accept for this MAC on this NAS just before the session started).'),
    acl: str('The ACL or role given by that accept (Filter-Id, a Cisco ACL AVPair, Aruba-User-Role).'),
    state: StringEnum(SESSION_STATES, {
      description:
        '`live`: started or updated, not stopped; `stale`: live but without an update for more than twice the interim interval (Acct-Interim-Interval of the accept, else the gap seen between updates), or 24 hours; `ended`: stopped (Stop, or Accounting-On/Off from its NAS).',
    }),
    started_at: Timestamp(),
    last_update_at: Timestamp({ description: 'The latest accounting record of the session.' }),
    stopped_at: Nullable(Timestamp()),
    interim_interval: Nullable(Type.Integer({ description: 'Seconds between interim updates, as known.' })),
    session_time: Nullable(Type.Integer({ description: 'Acct-Session-Time, the latest reported (s).' })),
    input_octets: Nullable(Type.Integer({ description: 'Octets from the endpoint (Acct-Input-Octets + Gigawords × 2^32), the latest reported.' })),
    output_octets: Nullable(Type.Integer({ description: 'Octets to the endpoint, the latest reported.' })),
  },
  { title: 'SessionResponse', additionalProperties: false },
)

export const SessionListResponse = Paginated(SessionResponse, 'SessionListResponse')
export const SessionParams = Type.Object({ session_id: Uuid() }, { additionalProperties: false })

export const SESSION_SORTS = ['started_at', 'last_update_at', 'stopped_at', 'mac', 'username', 'nas_ip'] as const

export const sessionFilters = {
  mac: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: `Sessions of this endpoint. ${MAC_NOTATIONS} A malformed one: 422 MAC_INVALID.` })),
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Sessions of this user name, case-insensitively.' })),
  nas_ip: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Sessions on this NAS.' })),
  state: Type.Optional(StringEnum(SESSION_STATES)),
  active_from: Type.Optional(Timestamp({ description: 'Sessions still going at or after this instant (not stopped before it).' })),
  active_to: Type.Optional(Timestamp({ description: 'Sessions started at or before this instant.' })),
}

export const SESSION_SEARCH_DOC = ' `search` matches MAC, user name, NAS, port, Acct-Session-Id, framed IP, VLAN and ACL (case-insensitive substring).'

export const SessionListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: SESSION_SORTS, defaultSortOrder: 'desc', filters: sessionFilters })

export const SessionExportQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 200, description: SESSION_SEARCH_DOC.trim() })),
    sort_by: Type.Optional(StringEnum(SESSION_SORTS)),
    sort_order: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: 'desc' })),
    format: Type.Optional(StringEnum(EXPORT_FORMATS, { default: 'xlsx', description: '`xlsx` (default) or `csv`.' })),
    ...sessionFilters,
  },
  { additionalProperties: false },
)

export type SessionListQuery = Static<typeof SessionListQuery>
export type SessionExportQuery = Static<typeof SessionExportQuery>
