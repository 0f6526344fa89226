/** English for what a delete confirmation says refers to the object (components/DeleteAsk.ts): en.ts's `refs`. */
const refs = {
  /** The yellow box: references the server refuses the delete for (409) while they exist. */
  blocking: 'In use: the server refuses the delete while these refer to it',
  /** A reference the delete removes by itself (the referring record stays). */
  clearing: (what: string) => `${what}: loses the reference`,
  none: 'Nothing refers to it.',
  unread: 'What refers to it could not be read.',
  /** Resource types of the referring records, as the API names them. */
  types: {
    aaa_policy_rule: 'AAA policy rule',
    nac_policy_rule: 'NAC policy rule',
    tacacs_profile: 'TACACS+ profile',
    captive_portal: 'Captive portal',
    mfa_totp: 'Authenticator app',
    mfa_push_device: 'Push device',
    nac_coa_nas: 'CoA settings of the NAS',
    nac_endpoint: 'Endpoint (owner)',
    ncm_device: 'NCM device',
    ncm_rule: 'Compliance rule',
    ncm_schedule: 'Collection schedule',
    ncm_configuration_history: 'Saved configurations',
    report_definition: 'Report',
  } as Record<string, string>,
}

export type RefsMessages = typeof refs
export default refs
