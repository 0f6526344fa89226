/** PUT /aaa/policy/rules/reorder: the whole evaluation order at once, atomically. */
import { defineRoute } from '../../../sdk/index.js'
import { PolicyErrors, referenceNotFound } from '../errors.js'
import { POLICY_WRITE } from '../permissions.js'
import { AaaPolicyReorderRequest, AaaPolicyRuleList } from '../schemas/rules.js'
import { lockOrder, writeOrder } from '../services/order.js'
import { loadRows, RULES, toResponses } from '../services/rules.js'
import type { PolicyRouteDeps } from './deps.js'

/**
 * The request must be a permutation of the rules with the default last; the
 * first fault answers 422 and nothing changes. Checked under the order lock,
 * so "every rule" means the rules as they are when this request's turn comes.
 */
function checkOrder(requested: string[], current: string[], defaultId: string): void {
  const known = new Set(current)
  const seen = new Set<string>()
  requested.forEach((id, i) => {
    if (seen.has(id)) throw PolicyErrors.orderDuplicate({ field: `rule_ids[${i}]`, vars: { id } })
    if (!known.has(id)) throw referenceNotFound('rule', `rule_ids[${i}]`, id)
    seen.add(id)
  })
  const missing = current.find((id) => !seen.has(id))
  if (missing) throw PolicyErrors.orderIncomplete({ field: 'rule_ids', vars: { id: missing } })
  const at = requested.indexOf(defaultId)
  if (at !== requested.length - 1) throw PolicyErrors.defaultNotLast({ field: `rule_ids[${at}]` })
}

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
          const { defaultId } = await lockOrder(trx)
          const current = await trx(RULES).orderBy('position').pluck('id')
          // UUIDs compare as text here: `ABC…` and `abc…` name the same rule, as they do to PostgreSQL.
          const requested = req.body.rule_ids.map((id) => id.toLowerCase())
          checkOrder(requested, current, defaultId)
          // An unchanged order writes nothing and leaves no audit entry.
          if (requested.some((id, i) => id !== current[i])) {
            await writeOrder(trx, requested)
            await req.audit({ action: 'aaa_policy_rule.reorder', resourceType: 'aaa_policy_rule', before: { rule_ids: current }, after: { rule_ids: requested } }, trx)
          }
          return toResponses(await loadRows(trx), d.targets, trx)
        }),
    }),
  ]
}
