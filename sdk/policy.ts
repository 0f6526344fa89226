/**
 * The AAA policy as the daemon renderers see it. Both the tacacs and the radius
 * plugin render the ordered rules; the AAA policy plugin depends on them and
 * hands its rules over through their `registerPolicySource`, so neither
 * renderer depends on the policy plugin.
 */
import type { Knex } from 'knex'

/** One AAA policy rule, names resolved. */
export interface PolicyRuleView {
  id: string
  name: string
  position: number
  enabled: boolean
  is_default: boolean
  who: { type: 'user'; user_id: string; username: string } | { type: 'group'; group_id: string; group_name: string } | { type: 'any' }
  where: { type: 'device'; device_id: string; device_name: string } | { type: 'device_group'; device_group_id: string; device_group_name: string } | { type: 'any' }
  tacacs_profile_id: string | null
  radius_profile_id: string | null
}

/** Who supplies the ordered rules (the AAA policy plugin). */
export interface PolicySource {
  /** Every rule in evaluation order, the default rule last. */
  listRules(db: Knex | Knex.Transaction): Promise<PolicyRuleView[]>
}
