/** PUT /nac/policy/rules/reorder: the whole evaluation order at once, atomically (the AAA policy's contract). */
import { defineRoute } from '../../../sdk/index.js'
import { nacReferenceNotFound, NacErrors as E } from '../errors.js'
import { NAC_POLICY_WRITE } from '../permissions.js'
import { NacPolicyReorderRequest, NacPolicyRuleList } from '../schemas/policy.js'
import { lockOrder, RULES, writeOrder } from '../services/policy-order.js'
import { loadRules } from '../services/policy-rules.js'
import type { NacRouteDeps } from './deps.js'

/**
 * The request must be a permutation of the rules with the default last; the first fault answers
 * 422 and nothing changes. Checked under the order lock, so "every rule" means the rules as they
 * are when this request's turn comes: an order computed from a stale list is refused.
 */
function checkOrder(requested: string[], current: string[], defaultId: string): void {
  const known = new Set(current)
  const seen = new Set<string>()
  requested.forEach((id, i) => {
    if (seen.has(id)) throw E.orderDuplicate({ field: `rule_ids[${i}]`, vars: { id } })
    if (!known.has(id)) throw nacReferenceNotFound('rule', `rule_ids[${i}]`, id)
    seen.add(id)
  })
  const missing = current.find((id) => !seen.has(id))
  if (missing) throw E.orderIncomplete({ field: 'rule_ids', vars: { id: missing } })
  const at = requested.indexOf(defaultId)
  if (at !== requested.length - 1) throw E.defaultNotLast({ field: `rule_ids[${at}]` })
}

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
          const { defaultId } = await lockOrder(trx)
          const current = await trx(RULES).orderBy('position').pluck('id')
          const requested = req.body.rule_ids.map((id) => id.toLowerCase())
          checkOrder(requested, current, defaultId)
          // An unchanged order writes nothing and leaves no audit entry.
          if (requested.some((id, i) => id !== current[i])) {
            await writeOrder(trx, requested)
            await req.audit({ action: 'nac_policy_rule.reorder', resourceType: 'nac_policy_rule', before: { rule_ids: current }, after: { rule_ids: requested } }, trx)
          }
          return loadRules(trx, d.targets)
        }),
    }),
  ]
}
