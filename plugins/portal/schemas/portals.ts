/** Captive portals as the admin API takes and shows them. The logo's bytes never appear here (`has_logo`, `logo_url`). */
import { listQuery, Name, NAME_PATTERN, Nullable, OptionalText, Paginated, StringEnum, TEXT_PATTERN, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { PORTAL_METHODS } from '../tables.js'

export const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,39}$'
/** A DNS name of two labels or more; compared and stored in lower case. */
const DOMAIN_PATTERN = '^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$'
const COLOUR = (description: string) => Type.String({ pattern: '^#[0-9a-f]{6}$', description: `${description} \`#rrggbb\`, lower-case hex.` })

const Texts = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN, description: 'The page\'s heading.' })),
    welcome: Type.Optional(Type.String({ maxLength: 2000, pattern: TEXT_PATTERN, description: 'The paragraph under the heading.' })),
    terms: Type.Optional(Type.String({ maxLength: 20000, pattern: TEXT_PATTERN, description: 'The terms of use a guest accepts.' })),
  },
  { title: 'PortalTexts', additionalProperties: false, description: 'Shown to guests as given (plain text: the pages escape it, no markup is interpreted).' },
)

export const Branding = Type.Object(
  {
    primary_colour: Type.Optional(COLOUR('Buttons and the heading bar:')),
    background_colour: Type.Optional(COLOUR('The page background:')),
    texts: Type.Optional(Type.Object({ en: Type.Optional(Texts), ru: Type.Optional(Texts) }, { additionalProperties: false })),
  },
  { title: 'PortalBranding', additionalProperties: false },
)

export const RegistrationField = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z][a-z0-9_]{0,31}$', description: 'The key the value is stored under. Not `name` or `email` (always asked), each once.' }),
    label: Type.Object(
      { en: Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN }), ru: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN })) },
      { additionalProperties: false },
    ),
    required: Type.Boolean(),
  },
  { title: 'PortalRegistrationField', additionalProperties: false },
)

const fields = {
  name: Name({ maxLength: 100, description: 'Unique, case-insensitively.' }),
  slug: Type.String({ pattern: SLUG_PATTERN, description: 'The page\'s path: `/portal/{slug}`. Lower-case letters, digits and `-`, up to 40. Unique.' }),
  description: OptionalText({ maxLength: 500 }),
  enabled: Type.Optional(Type.Boolean({ description: 'A disabled portal answers guests 404. Default true.' })),
  methods: Type.Array(StringEnum(PORTAL_METHODS), { minItems: 1, maxItems: 4, uniqueItems: true, description: 'The ways in this portal offers, in the order shown.' }),
  nas_ips: Type.Optional(Type.Array(Type.String({ maxLength: 45 }), { maxItems: 100, uniqueItems: true, description: 'NAS addresses (IPv4 or IPv6) whose redirects this portal serves when the redirect names no portal. Default `[]`.' })),
  ssids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 32, pattern: NAME_PATTERN }), { maxItems: 100, uniqueItems: true, description: 'SSIDs this portal serves. Default `[]`.' })),
  accept_unsigned_redirect: Type.Optional(Type.Boolean({ description: 'Accept redirect parameters the platform did not sign (Aruba\'s own). Default false.' })),
  guest_endpoint_group_id: Type.Optional(Nullable(Uuid({ description: 'The NAC endpoint group registered guests join (hotspot, self-registration, sponsored). Needed by those methods.' }))),
  byod_endpoint_group_id: Type.Optional(Nullable(Uuid({ description: 'The NAC endpoint group employees\' own devices join. Needed by `byod`.' }))),
  guest_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 525600, description: 'A guest\'s access, in minutes (5 minutes to 365 days). Default 480.' })),
  byod_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3650, description: 'A registered own device\'s validity in days; null: until removed.' }))),
  byod_device_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Devices one employee may register. Default 3.' })),
  byod_onboarding: Type.Optional(StringEnum(['none', 'certificate'] as const, { description: '`certificate`: an EAP-TLS certificate after registration (needs the PKI). Default `none`.' })),
  self_registration_fields: Type.Optional(Type.Array(RegistrationField, { maxItems: 10, description: 'Fields asked besides name and e-mail. Default `[]`.' })),
  sponsor_domains: Type.Optional(
    Type.Array(Type.String({ maxLength: 253, pattern: DOMAIN_PATTERN }), { maxItems: 50, uniqueItems: true, description: 'A sponsor\'s e-mail must be in one of these domains (or the sponsor a member of the sponsor group). Stored in lower case.' }),
  ),
  sponsor_group_id: Type.Optional(
    Nullable(Uuid({ description: 'A user group whose members may sponsor: membership grants `portal.sponsor`, so only an administrator or a holder of it sets this (403 GROUP_EXCEEDS_OWN_PERMISSIONS).' })),
  ),
  sponsor_link_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 10080, description: 'How long a sponsor\'s link stays valid (5 minutes to 7 days). Default 60.' })),
  branding: Type.Optional(Branding),
}

export const PortalCreate = Type.Object(fields, { title: 'PortalCreate', additionalProperties: false })
export const PortalUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name), slug: Type.Optional(fields.slug), methods: Type.Optional(fields.methods) },
  { title: 'PortalUpdate', additionalProperties: false, description: 'Partial: only the fields given change; `branding` is replaced as a whole.' },
)

export const PortalResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    slug: Type.String(),
    url_path: Type.String({ description: '`/portal/{slug}`: the address the NAC redirect profile points at (after the platform\'s public URL).' }),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    methods: Type.Array(StringEnum(PORTAL_METHODS)),
    nas_ips: Type.Array(Type.String()),
    ssids: Type.Array(Type.String()),
    accept_unsigned_redirect: Type.Boolean(),
    guest_endpoint_group_id: Nullable(Uuid()),
    byod_endpoint_group_id: Nullable(Uuid()),
    guest_minutes: Type.Integer(),
    byod_days: Nullable(Type.Integer()),
    byod_device_limit: Type.Integer(),
    byod_onboarding: StringEnum(['none', 'certificate'] as const),
    self_registration_fields: Type.Array(RegistrationField),
    sponsor_domains: Type.Array(Type.String()),
    sponsor_group_id: Nullable(Uuid()),
    sponsor_link_minutes: Type.Integer(),
    branding: Branding,
    has_logo: Type.Boolean(),
    logo_url: Nullable(Type.String({ description: '`/portal/{slug}/logo` when a logo is uploaded.' })),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'PortalResponse', additionalProperties: false },
)

export const PortalListResponse = Paginated(PortalResponse, 'PortalListResponse')
export const PortalParams = Type.Object({ portal_id: Uuid() }, { additionalProperties: false })
export const PortalListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['name', 'slug', 'created_at', 'updated_at'] as const,
  filters: { enabled: Type.Optional(Type.Boolean()), method: Type.Optional(StringEnum(PORTAL_METHODS)) },
})

export type PortalCreate = Static<typeof PortalCreate>
export type PortalUpdate = Static<typeof PortalUpdate>
export type PortalResponse = Static<typeof PortalResponse>
