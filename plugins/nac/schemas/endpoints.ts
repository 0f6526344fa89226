import { EXPORT_FORMATS, listQuery, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { MAC_NOTATIONS, MAC_REFUSALS } from './common.js'

const mac = (extra = '') => Type.String({ minLength: 1, maxLength: 64, description: `The endpoint's MAC address. ${MAC_NOTATIONS} ${MAC_REFUSALS}${extra}` })

const fields = {
  mac: mac(' Unique: another endpoint with the same address, in any notation, answers 409 ENDPOINT_MAC_TAKEN.'),
  description: OptionalText({ maxLength: 500 }),
  owner_user_id: Type.Optional(
    Nullable(Uuid({ description: 'The user the endpoint belongs to; `null` for none. Unknown: 422 REFERENCE_NOT_FOUND. When the user is deleted, the endpoint stays and its owner becomes `null` (audited as `endpoint.owner_cleared`).' })),
  ),
  endpoint_group_id: Type.Optional(
    Nullable(Uuid({ description: 'The one group the endpoint is in (static membership); `null` for none. Unknown: 422 REFERENCE_NOT_FOUND.' })),
  ),
}

export const EndpointCreate = Type.Object(fields, { title: 'EndpointCreate', additionalProperties: false })

export const EndpointUpdate = Type.Object(
  { ...fields, mac: Type.Optional(fields.mac) },
  {
    title: 'EndpointUpdate',
    additionalProperties: false,
    description: 'Partial: only the fields given change. What the network saw (`first_seen_at` … `last_auth_result`) and what profiling concluded (`device_type` …) are read-only here.',
  },
)

// Set by the network (an ingester), profiling or the registry: read-only through the API.
const readOnly = (description: string) => ({ description })

export const EndpointResponse = Type.Object(
  {
    id: Uuid(),
    mac: Type.String({ description: 'Canonical: `aa:bb:cc:dd:ee:ff`.' }),
    locally_administered: Type.Boolean(readOnly('The address has the U/L bit set: randomized ("private" Wi-Fi address) or virtual. No vendor applies.')),
    vendor: Nullable(Type.String(readOnly("From the IEEE registry by the MAC's OUI (MA-L, MA-M or MA-S block), set when the MAC is written. `null`: unassigned, registered privately, or locally administered."))),
    description: Nullable(Type.String()),
    owner_user_id: Nullable(Uuid()),
    owner_username: Nullable(Type.String(readOnly("The owner's username, as it is now."))),
    endpoint_group_id: Nullable(Uuid()),
    endpoint_group_name: Nullable(Type.String(readOnly("The group's name, as it is now."))),
    first_seen_at: Nullable(Timestamp(readOnly('First authentication or accounting record seen from the MAC.'))),
    last_seen_at: Nullable(Timestamp(readOnly('Latest record seen from the MAC.'))),
    last_nas_ip: Nullable(Type.String(readOnly('The NAS (switch, controller) that sent the latest record.'))),
    last_nas_port: Nullable(Type.String(readOnly('Its port (NAS-Port-Id), as the NAS wrote it.'))),
    last_auth_result: Nullable(StringEnum(['accept', 'reject'] as const, readOnly('The latest authorization decision.'))),
    device_type: Nullable(Type.String(readOnly('What profiling concluded the endpoint is.'))),
    device_type_confidence: Nullable(Type.Integer({ minimum: 0, maximum: 100, ...readOnly('How sure profiling is, 0–100.') })),
    device_type_reason: Nullable(Type.String(readOnly('Why profiling concluded it.'))),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'EndpointResponse', additionalProperties: false },
)

export const EndpointListResponse = Paginated(EndpointResponse, 'EndpointListResponse')

export const EndpointParams = Type.Object({ endpoint_id: Uuid() }, { additionalProperties: false })

export const ENDPOINT_SORTS = ['mac', 'vendor', 'device_type', 'first_seen_at', 'last_seen_at', 'created_at', 'updated_at'] as const

export const endpointFilters = {
  endpoint_group_id: Type.Optional(Uuid({ description: 'Endpoints in this group.' })),
  grouped: Type.Optional(Type.Boolean({ description: '`false`: endpoints in no group; `true`: endpoints in some group.' })),
  owner_user_id: Type.Optional(Uuid({ description: 'Endpoints this user owns.' })),
  vendor: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Endpoints whose vendor starts with this text, case-insensitively (`cisco` finds "Cisco Systems, Inc" and "Cisco Meraki").' })),
  device_type: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Exact device type, case-insensitively.' })),
  mac: Type.Optional(mac(' The endpoint with exactly this address (any notation).')),
}

const SEARCH_DOC = ' `search` matches MAC, description, vendor and device type (case-insensitive substring); a MAC fragment with separators (`00-1B-63`, `001b.63`) also matches in any notation.'

export const EndpointListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ENDPOINT_SORTS, filters: endpointFilters })

export const EndpointExportQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 200, description: SEARCH_DOC.trim() })),
    sort_by: Type.Optional(StringEnum(ENDPOINT_SORTS)),
    sort_order: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: 'asc' })),
    format: Type.Optional(StringEnum(EXPORT_FORMATS, { default: 'xlsx', description: '`xlsx` (default) or `csv`.' })),
    ...endpointFilters,
  },
  { additionalProperties: false },
)

export { SEARCH_DOC }
export type EndpointCreate = Static<typeof EndpointCreate>
export type EndpointUpdate = Static<typeof EndpointUpdate>
export type EndpointListQuery = Static<typeof EndpointListQuery>
export type EndpointExportQuery = Static<typeof EndpointExportQuery>
