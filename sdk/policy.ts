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
  /** Optional condition (absent or null: any time): when, in the local time of the host the daemons run on. */
  time_window?: PolicyTimeWindow | null
  /** Optional condition (absent or empty: any source): the request's source (NAS) address is inside one of these canonical CIDR prefixes. */
  client_prefixes?: readonly string[]
}

/**
 * A rule's time window as the renderers and the policy test use it: where in the local week it
 * holds, worked out once by the policy plugin (a window crossing midnight is already split).
 */
export interface PolicyTimeWindow {
  /** As the operator reads it: `Mon-Fri 08:00-18:00`. */
  label: string
  /**
   * Minutes of the day, `from` inclusive, `to` exclusive (1440: midnight), on the weekdays `days`
   * (0 Sunday … 6 Saturday, as C's tm_wday). One span, or two when the window crosses midnight.
   */
  spans: readonly { days: readonly number[]; from: number; to: number }[]
}

/** Who supplies the ordered rules (the AAA policy plugin). */
export interface PolicySource {
  /** Every rule in evaluation order, the default rule last. */
  listRules(db: Knex | Knex.Transaction): Promise<PolicyRuleView[]>
}
