/**
 * The NAC policy's evaluation order: the SDK's ordered rule list (sdk/rule-order.ts) over
 * `nac_policy_rules`, as the AAA policy keeps its own (positions dense, the default rule last, the
 * default rule's row the order's lock; its delete trigger takes the same lock).
 */
import { ruleOrder } from '../../../sdk/index.js'
import { nacReferenceNotFound, NacErrors as E } from '../errors.js'

export const RULES = 'nac_policy_rules'

export const order = ruleOrder(RULES)
export const { lock: lockOrder, openGap, move: moveRule } = order

/** The reorder's faults, in the AAA policy's codes (the same contract). */
export const orderFaults = {
  duplicate: (i: number, id: string) => E.orderDuplicate({ field: `rule_ids[${i}]`, vars: { id } }),
  unknown: (i: number, id: string) => nacReferenceNotFound('rule', `rule_ids[${i}]`, id),
  incomplete: (id: string) => E.orderIncomplete({ field: 'rule_ids', vars: { id } }),
  defaultNotLast: (i: number) => E.defaultNotLast({ field: `rule_ids[${i}]` }),
}
