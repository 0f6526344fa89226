import { Type, type Static, referenceReportSchema } from '../../../sdk/index.js'

/** Names land unquoted-safe in tac_plus-ng configuration and in its logs. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$'

export const ObjectName = (description: string) =>
  Type.String({ minLength: 1, maxLength: 64, pattern: NAME_PATTERN, description: `${description} Letters, digits and \`. _ -\`, starting with a letter or digit; unique, case-insensitively.` })

export const ReferenceReport = referenceReportSchema({
  title: 'ReferenceReport',
  referenceTitle: 'ResourceReference',
  types: '`tacacs_profile`, `aaa_policy_rule`.',
})

export const RefCount = Type.Object(
  {
    blocking: Type.Integer({ minimum: 0 }),
    auto_clearing: Type.Integer({ minimum: 0 }),
  },
  { title: 'RefCount', additionalProperties: false },
)

export const RefCountsRequest = Type.Object(
  {
    command_set_ids: Type.Array(Type.String({ format: 'uuid' }), {
      minItems: 1,
      maxItems: 500,
      uniqueItems: true,
      description: 'Command sets to count references of; an id that names no command set counts 0 and 0.',
    }),
  },
  { title: 'RefCountsRequest', additionalProperties: false },
)

// An object of free keys as `additionalProperties` (not Type.Record's `patternProperties`, which the OpenAPI
// tooling, the console's generated types among it, reads as an object with no properties at all).
export const RefCountsResponse = Type.Unsafe<Record<string, Static<typeof RefCount>>>({
  type: 'object',
  additionalProperties: RefCount,
  title: 'RefCountsResponse',
  description: 'Each requested command set id (as sent) mapped to its reference counts.',
})
