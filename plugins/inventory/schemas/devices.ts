import { listQuery, Nullable, OptionalName, OptionalText, Paginated, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { ConfigName, SharedSecret } from './common.js'

/** The overlap rule, said once for every place that documents it. */
export const OVERLAP_RULE =
  'Prefixes may nest: a client address belongs to the enabled device with the most specific (longest) prefix containing it, as tac_plus-ng and FreeRADIUS choose a client, so a /32 device inside a /24 device wins for its own address. Two devices with the same prefix are refused (409 ADDRESS_TAKEN), enabled or not.'

const address = () =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    description: `IPv4 or IPv6 address or CIDR prefix. A bare address means a single host (/32 or /128). Stored and returned in canonical form (\`10.0.0.1/32\`, \`2001:db8::/64\`); an IPv4-mapped IPv6 prefix (\`::ffff:10.0.0.0/104\`) is stored as IPv4 (\`10.0.0.0/8\`). Malformed: 422 ADDRESS_INVALID. A prefix with host bits set (\`10.1.2.3/16\`) is refused with 422 ADDRESS_HOST_BITS, naming the network it probably meant. ${OVERLAP_RULE}`,
  })

const fields = {
  name: ConfigName('Unique, case-insensitively. Letters, digits and `. _ -`, starting with a letter or digit: it becomes the tac_plus-ng device name and the FreeRADIUS client short name.'),
  address: address(),
  // Labels shown in lists and exports: one line, no control or direction characters.
  vendor: OptionalName({ maxLength: 64, description: 'Cisco, Juniper, Arista…' }),
  model: OptionalName({ maxLength: 64 }),
  description: OptionalText({ maxLength: 500 }),
  device_group_id: Type.Optional(Nullable(Uuid({ description: 'The group the device is in; it also belongs to every ancestor of that group. Unknown ids answer 422 REFERENCE_NOT_FOUND.' }))),
  tacacs_key: Type.Optional(Nullable(SharedSecret('TACACS+ shared key.'))),
  radius_secret: Type.Optional(Nullable(SharedSecret('RADIUS shared secret.'))),
  enabled: Type.Optional(Type.Boolean({ default: true, description: 'A disabled device is left out of the daemon configuration; it keeps its prefix.' })),
}

export const DeviceCreate = Type.Object(fields, { title: 'DeviceCreate', additionalProperties: false })

export const DeviceUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name), address: Type.Optional(fields.address) },
  { title: 'DeviceUpdate', additionalProperties: false, description: 'Partial: only the fields given change. For the keys, `null` removes and absence keeps.' },
)

export const DeviceResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    address: Type.String({ description: 'Canonical CIDR form.' }),
    vendor: Nullable(Type.String()),
    model: Nullable(Type.String()),
    description: Nullable(Type.String()),
    device_group_id: Nullable(Uuid()),
    enabled: Type.Boolean(),
    has_tacacs_key: Type.Boolean({ description: 'Whether a TACACS+ key is set (the key itself is never returned).' }),
    has_radius_secret: Type.Boolean({ description: 'Whether a RADIUS secret is set (the secret itself is never returned).' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'DeviceResponse', additionalProperties: false },
)

export const DeviceListResponse = Paginated(DeviceResponse, 'DeviceListResponse')

export const DeviceParams = Type.Object({ device_id: Uuid() }, { additionalProperties: false })

export const DeviceListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['name', 'address', 'vendor', 'created_at', 'updated_at'] as const,
  filters: {
    device_group_id: Type.Optional(Uuid({ description: 'Devices directly in this group (with `include_subgroups`, in it or any group below it).' })),
    include_subgroups: Type.Optional(Type.Boolean({ default: false, description: 'Widen `device_group_id` to the whole subtree.' })),
    enabled: Type.Optional(Type.Boolean()),
    vendor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Exact vendor, case-insensitively.' })),
    address_contains: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'An IP address: devices whose prefix contains it, enabled or not. With `sort_by=address&sort_order=desc` the most specific comes first (the one the daemons pick, when enabled). Not one address: 422 ADDRESS_INVALID.',
      }),
    ),
  },
})

export const CoveringQuery = Type.Object(
  { address: Type.String({ minLength: 1, maxLength: 64, description: 'One IPv4 or IPv6 address (no prefix length).' }) },
  { additionalProperties: false },
)

export const CoveringResponse = Type.Object(
  {
    address: Type.String({ description: 'The address as looked up (canonical; an IPv4-mapped IPv6 address as IPv4).' }),
    items: Type.Array(
      Type.Object(
        {
          device: DeviceResponse,
          prefix_length: Type.Integer({ minimum: 0, maximum: 128 }),
          tacacs_client: Type.Boolean({ description: 'The device tac_plus-ng answers the address as: the most specific enabled one.' }),
          radius_client: Type.Boolean({ description: 'The client FreeRADIUS answers the address as: the most specific enabled one with a RADIUS secret.' }),
        },
        { title: 'CoveringDevice', additionalProperties: false },
      ),
      { description: 'The devices whose prefix contains the address, the most specific first.' },
    ),
  },
  { title: 'CoveringDevicesResponse', additionalProperties: false },
)

export type DeviceCreate = Static<typeof DeviceCreate>
export type DeviceUpdate = Static<typeof DeviceUpdate>
