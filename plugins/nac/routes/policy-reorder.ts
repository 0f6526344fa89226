/** PUT /nac/policy/rules/reorder: the whole evaluation order at once, atomically (the AAA policy's contract). */
import { defineRoute } from '../../../sdk/index.js'
import { NAC_POLICY_WRITE } from '../permissions.js'
import { NacPolicyReorderRequest, NacPolicyRuleList } from '../schemas/policy.js'
import { order, orderFaults, RULES } from '../services/policy-order.js'
import { loadRules } from '../services/policy-rules.js'
import type { NacRouteDeps } from './deps.js'

export function policyReorderRoutes(d: NacRouteDeps) {
  return [
    defineRoute({
      method: 'PUT',
      path: '/nac/policy/rules/reorder',
      permission: NAC_POLICY_WRITE,
      summary: 'Reorder the NAC policy rules',
      description:
        '`rule_ids` is the complete new order: every rule exactly once, the default rule last. Answers the rules in their new order. A duplicate (422 RULE_ORDER_DUPLICATE at `rule_ids[i]`), an unknown id (422 REFERENCE_NOT_FOUND at `rule_ids[i]`), a rule left out (422 RULE_ORDER_INCOMPLETE at `rule_ids`: the rules changed since you read them) or the default rule elsewhere than last (422 DEFAULT_RULE_NOT_LAST at `rule_ids[i]`) changes nothing. Atomic: concurrent changes to the rules wait for it or it for them.',
      tags: ['nac'],
      schema: { body: NacPolicyReorderRequest, response: { 200: NacPolicyRuleList } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          // Under the order's lock: an order computed from a stale list is refused whole.
          const o = await order.reorder(trx, req.body.rule_ids, orderFaults)
          // An unchanged order writes nothing and leaves no audit entry.
          if (o.changed) {
            // The names beside the ids: the trail reads "rule X moved" even after X is renamed or deleted.
            const names = new Map((await trx(RULES).select<{ id: string; name: string }[]>('id', 'name')).map((r) => [r.id, r.name]))
            const named = (ids: string[]) => ({ rule_ids: ids, rule_names: ids.map((id) => names.get(id) ?? id) })
            await req.audit({ action: 'nac_policy_rule.reorder', resourceType: 'nac_policy_rule', before: named(o.before), after: named(o.after) }, trx)
          }
          return loadRules(trx, d.targets)
        }),
    }),
  ]
}
