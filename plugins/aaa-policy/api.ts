/** The AAA policy's contract: the ordered rules, for other plugins (the RADIUS renderer in issue 6). */
import type { Knex } from 'knex'
import { createServiceRef } from '../../sdk/index.js'
import type { PolicyRuleView } from '../tacacs/api.js'

export type { PolicyRuleView }

export interface AaaPolicyService {
  /** Every rule in evaluation order, the default rule last. */
  listRules(db?: Knex | Knex.Transaction): Promise<PolicyRuleView[]>
}

export const aaaPolicyServiceRef = createServiceRef<AaaPolicyService>({ id: 'aaa-policy.service' })
