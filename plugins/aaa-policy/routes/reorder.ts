/** PUT /aaa/policy/rules/reorder: the whole evaluation order at once, atomically. */
import { defineRoute } from '../../../sdk/index.js'
import { POLICY_WRITE } from '../permissions.js'
import { AaaPolicyReorderRequest, AaaPolicyRuleList } from '../schemas/rules.js'
import { order, orderFaults } from '../services/order.js'
import { loadRows, toResponses } from '../services/rules.js'
import type { PolicyRouteDeps } from './deps.js'

export function reorderRoutes(d: PolicyRouteDeps) {
  return [
    defineRoute({
      method: 'PUT',
      path: '/aaa/policy/rules/reorder',
      permission: POLICY_WRITE,
      summary: 'Reorder the AAA policy rules',
      description:
        '`rule_ids` is the complete new order: every rule exactly once, the default rule last. Answers the rules in their new order. A duplicate (422 RULE_ORDER_DUPLICATE at `rule_ids[i]`), an unknown id (422 REFERENCE_NOT_FOUND at `rule_ids[i]`), a rule left out (422 RULE_ORDER_INCOMPLETE at `rule_ids`) or the default rule elsewhere than last (422 DEFAULT_RULE_NOT_LAST at `rule_ids[i]`) changes nothing. Atomic: concurrent changes to the rules wait for it or it for them.',
      tags: ['aaa-policy'],
      schema: { body: AaaPolicyReorderRequest, response: { 200: AaaPolicyRuleList } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          // Under the order's lock: "every rule" means the rules as they are when this request's turn comes.
          const o = await order.reorder(trx, req.body.rule_ids, orderFaults)
          // An unchanged order writes nothing and leaves no audit entry.
          if (o.changed) {
            // The names beside the ids: the trail reads "rule X moved" even after X is renamed or deleted.
            const names = new Map((await trx('aaa_policy_rules').select<{ id: string; name: string }[]>('id', 'name')).map((r) => [r.id, r.name]))
            const named = (ids: string[]) => ({ rule_ids: ids, rule_names: ids.map((id) => names.get(id) ?? id) })
            await req.audit({ action: 'aaa_policy_rule.reorder', resourceType: 'aaa_policy_rule', before: named(o.before), after: named(o.after) }, trx)
          }
          return toResponses(await loadRows(trx), d.targets, trx)
        }),
    }),
  ]
}
