import { Nullable, StringEnum, Type } from '../../../sdk/index.js'

export const RadiusDictionaryEntry = Type.Object(
  {
    name: Type.String({ description: 'The FreeRADIUS dictionary name.' }),
    vendor: Nullable(Type.String({ description: 'The FreeRADIUS VENDOR name (Cisco, Juniper …); null for a standard attribute.' })),
    type: StringEnum(['integer', 'string', 'ipaddr', 'ipv6addr', 'enum', 'octets'] as const, {
      description: '`enum`: an integer attribute written by one of `values`; `octets`: text, or hex as 0x….',
    }),
    values: Nullable(Type.Array(Type.String(), { description: 'The accepted names of an `enum`; null otherwise.' })),
    min: Nullable(Type.Integer({ description: 'Lowest accepted `integer`; null otherwise.' })),
    max: Nullable(Type.Integer({ description: 'Highest accepted `integer`; null otherwise.' })),
    max_length: Nullable(Type.Integer({ description: 'Longest accepted value in bytes (UTF-8) for `string` and `octets`; null otherwise.' })),
    repeatable: Type.Boolean({ description: 'True when a profile may list the attribute more than once.' }),
    format: Nullable(StringEnum(['avpair'] as const, { description: '`avpair`: attribute=value or attribute*value.' })),
    description: Type.String(),
  },
  { title: 'RadiusDictionaryEntry', additionalProperties: false },
)

export const RadiusDictionaryResponse = Type.Object(
  { attributes: Type.Array(RadiusDictionaryEntry, { description: 'Standard attributes first, then vendors A to Z.' }) },
  { title: 'RadiusDictionaryResponse', additionalProperties: false },
)
