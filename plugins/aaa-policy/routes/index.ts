import type { RouteDefinition } from '../../../sdk/index.js'
import type { PolicyRouteDeps } from './deps.js'
import { previewRoutes } from './preview.js'
import { reorderRoutes } from './reorder.js'
import { ruleRoutes } from './rules.js'
import { policyTestRoutes } from './test.js'
import { policyStatusRoutes } from './status.js'

export function policyRoutes(d: PolicyRouteDeps): RouteDefinition[] {
  // The reorder route first: `/rules/reorder` must not be read as `/rules/{rule_id}`.
  // The TACACS+ preview only where the edition renders TACACS+.
  return [...reorderRoutes(d), ...ruleRoutes(d), ...(d.tacacs ? previewRoutes(d, d.tacacs) : []), ...policyTestRoutes(d), ...policyStatusRoutes(d)] as RouteDefinition[]
}
