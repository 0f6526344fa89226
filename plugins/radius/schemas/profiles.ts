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
      description: 'As FreeRADIUS writes it: an enum value name, a decimal integer, an address, or text. At most 253 bytes (UTF-8); no control characters, no "%".',
    }),
  },
  { title: 'RadiusAttribute', additionalProperties: false },
)

const attributes = () =>
  Type.Array(RadiusAttribute, {
    maxItems: MAX_PROFILE_ATTRIBUTES,
    description: 'Reply attributes in the order they are sent. Each is checked against the dictionary (422 at `attributes[i].name` or `attributes[i].value`).',
  })

const fields = {
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'Unique, case-insensitively. Letters, digits, ".", "_", "-"; starts with a letter or digit.' }),
  description: OptionalText({ maxLength: 500 }),
  attributes: Type.Optional(attributes()),
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
