import { referenceReportSchema } from '../../../sdk/index.js'

/** What refers to a user or a user group, as the referring plugins' guards answer (sdk/references.ts). */
export const IdentityReferenceReport = referenceReportSchema({
  title: 'IdentityReferenceReport',
  referenceTitle: 'IdentityReference',
  types: "`aaa_policy_rule` (an AAA policy rule whose WHO names it), `nac_policy_rule`, `captive_portal` (a portal's sponsor group), `mfa_totp`, or another plugin's record.",
  clears: 'the referring record stays, without the reference, or goes with the user: their second factors',
})
