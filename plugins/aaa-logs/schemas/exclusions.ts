import { listQuery, Name, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { MATCH_TYPES, PROTOCOLS } from '../services/exclusions.js'

const MATCH_VALUE_DOC =
  '`username`: the whole user name, case-sensitive, no control characters. `username_pattern`: a glob over the whole name, `*` any run of characters, `?` one character, case-sensitive. `user_group`: the name of an existing user group (422 USER_GROUP_UNKNOWN otherwise); members are matched when the ingester loads the rules.'

const fields = {
  name: Name({ maxLength: 64, description: 'Unique, case-insensitively (409 LOG_EXCLUSION_NAME_TAKEN).' }),
  description: OptionalText({ maxLength: 500 }),
  protocol: StringEnum(PROTOCOLS, { description: 'Events of which daemons the rule drops: `all`, `tacacs`, `radius`.' }),
  match_type: StringEnum(MATCH_TYPES),
  match_value: Type.String({ minLength: 1, maxLength: 253, description: MATCH_VALUE_DOC }),
}

export const LogExclusionCreate = Type.Object(
  { ...fields, protocol: Type.Optional(StringEnum(PROTOCOLS, { default: 'all', description: 'Default `all`.' })) },
  { title: 'LogExclusionCreate', additionalProperties: false },
)

export const LogExclusionUpdate = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: fields.description,
    protocol: Type.Optional(fields.protocol),
    match_type: Type.Optional(fields.match_type),
    match_value: Type.Optional(fields.match_value),
  },
  { title: 'LogExclusionUpdate', additionalProperties: false, description: 'Partial: only the fields given change; the resulting match_type + match_value pair is validated.' },
)

const response = {
  id: Uuid(),
  name: Type.String(),
  description: Nullable(Type.String()),
  protocol: StringEnum(PROTOCOLS),
  match_type: StringEnum(MATCH_TYPES),
  match_value: Type.String(),
  dropped_total: Type.Integer({ minimum: 0, description: 'Events this rule has dropped so far, summed over cluster nodes and days.' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
}

export const LogExclusionResponse = Type.Object(response, { title: 'LogExclusionResponse', additionalProperties: false })

/** The list item (same fields as the entry). */
export const LogExclusionListResponse = Type.Object(response, { title: 'LogExclusionListResponse', additionalProperties: false })

export const LogExclusionPage = Paginated(LogExclusionListResponse, 'LogExclusionPage')

export const LogExclusionParams = Type.Object({ exclusion_id: Uuid() }, { additionalProperties: false })

export const LogExclusionListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['name', 'protocol', 'match_type', 'created_at', 'updated_at'] as const,
  filters: {
    protocol: Type.Optional(StringEnum(PROTOCOLS)),
    match_type: Type.Optional(StringEnum(MATCH_TYPES)),
  },
})

export type LogExclusionCreate = Static<typeof LogExclusionCreate>
export type LogExclusionUpdate = Static<typeof LogExclusionUpdate>
