import { Type } from '../../../sdk/index.js'

const IdentityReference = Type.Object(
  {
    type: Type.String({ description: 'What refers, as a resource type: `aaa_policy_rule` (an AAA policy rule whose WHO names it), `nac_policy_rule`, `captive_portal` (a portal\'s sponsor group), `mfa_totp`, or another plugin\'s record.' }),
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
  },
  { title: 'IdentityReference', additionalProperties: false },
)

/** What refers to a user or a user group, as the referring plugins' guards answer (sdk/references.ts). */
export const IdentityReferenceReport = Type.Object(
  {
    blocking: Type.Array(IdentityReference, { description: 'References that make a delete fail (409 RECORD_IN_USE) while they exist. Ordered by type, then name.' }),
    auto_clearing: Type.Array(IdentityReference, { description: 'References a delete removes by itself (the referring record stays, without the reference, or goes with the user: their second factors). Ordered by type, then name.' }),
  },
  { title: 'IdentityReferenceReport', additionalProperties: false },
)
