/**
 * The AAA policy's evaluation order: the SDK's ordered rule list (sdk/rule-order.ts) over
 * `aaa_policy_rules`, whose delete trigger takes the same lock for deletes in bare SQL. A profile
 * delete clearing rules takes the locks in the SDK's order too.
 */
import { ruleOrder } from '../../../sdk/index.js'
import { PolicyErrors, referenceNotFound } from '../errors.js'
import { RULES } from './rules.js'

export const order = ruleOrder(RULES)
export const { lock: lockOrder, openGap, move: moveRule } = order

/** The reorder's faults, in the AAA policy's codes. */
export const orderFaults = {
  duplicate: (i: number, id: string) => PolicyErrors.orderDuplicate({ field: `rule_ids[${i}]`, vars: { id } }),
  unknown: (i: number, id: string) => referenceNotFound('rule', `rule_ids[${i}]`, id),
  incomplete: (id: string) => PolicyErrors.orderIncomplete({ field: 'rule_ids', vars: { id } }),
  defaultNotLast: (i: number) => PolicyErrors.defaultNotLast({ field: `rule_ids[${i}]` }),
}
