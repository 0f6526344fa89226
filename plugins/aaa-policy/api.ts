/** The AAA policy's contract: the ordered rules, for other plugins. */
import type { Knex } from 'knex'
import { createServiceRef, type PolicyRuleView } from '../../sdk/index.js'

export type { PolicyRuleView }

export interface AaaPolicyService {
  /** Every rule in evaluation order, the default rule last. */
  listRules(db?: Knex | Knex.Transaction): Promise<PolicyRuleView[]>
}

export const aaaPolicyServiceRef = createServiceRef<AaaPolicyService>({ id: 'aaa-policy.service' })
