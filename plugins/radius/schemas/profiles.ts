import { listQuery, Nullable, OptionalText, Paginated, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { MAX_VALUE_OCTETS } from '../services/dictionary.js'

/** More than any device-administration reply needs, and a bounded body. */
export const MAX_PROFILE_ATTRIBUTES = 50

export const RadiusAttribute = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, description: 'A FreeRADIUS dictionary name from GET /api/v1/radius/dictionary (exact spelling).' }),
    value: Type.String({
      minLength: 1,
      maxLength: MAX_VALUE_OCTETS,
      description:
        'As FreeRADIUS writes it: an enum value name, a decimal integer, an address, or text. At most 253 bytes (UTF-8), 247 for a vendor-specific attribute (the dictionary\'s `max_length`); no control characters, no "%".',
    }),
  },
  { title: 'RadiusAttribute', additionalProperties: false },
)

const attributes = () =>
  Type.Array(RadiusAttribute, {
    maxItems: MAX_PROFILE_ATTRIBUTES,
    description:
      'Reply attributes in the order they are sent. Each is checked against the dictionary (422 at `attributes[i].name` or `attributes[i].value`), and together they must fit in one RADIUS packet beside what every reply carries: 3752 bytes, each attribute with its header of 2 bytes (8 for a vendor-specific one); else 422 RADIUS_REPLY_TOO_LARGE at `attributes`.',
  })

const fields = {
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'Unique, case-insensitively. Letters, digits, ".", "_", "-"; starts with a letter or digit.' }),
  description: OptionalText({ maxLength: 500 }),
  attributes: Type.Optional(attributes()),
  allow_mschapv1: Type.Optional(
    Type.Boolean({
      description:
        'Accept MS-CHAPv1 (RFC 2433) for the rules that grant this profile. Off by default: MS-CHAPv1 is weaker than MS-CHAPv2 (no mutual authentication, an LM-era design) and is refused, logged as MS-CHAPv1 with the reason. Default false on create.',
    }),
  ),
}

export const RadiusProfileCreate = Type.Object(fields, { title: 'RadiusProfileCreate', additionalProperties: false })

export const RadiusProfileUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { title: 'RadiusProfileUpdate', additionalProperties: false, description: 'Partial: only the fields given change. `attributes` replaces the whole list.' },
)

export const RadiusProfileResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    attributes: Type.Array(RadiusAttribute, { description: 'In the order they are sent.' }),
    allow_mschapv1: Type.Boolean({ description: 'MS-CHAPv1 is accepted for the rules that grant this profile.' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'RadiusProfileResponse', additionalProperties: false },
)

export const RadiusProfileListResponse = Paginated(RadiusProfileResponse, 'RadiusProfileListResponse')

export const RadiusProfileParams = Type.Object({ profile_id: Uuid() }, { additionalProperties: false })

export const RadiusProfileListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ['name', 'created_at', 'updated_at'] as const })

export type RadiusProfileCreate = Static<typeof RadiusProfileCreate>
export type RadiusProfileUpdate = Static<typeof RadiusProfileUpdate>
