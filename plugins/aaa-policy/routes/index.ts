import type { RouteDefinition } from '../../../sdk/index.js'
import type { AaaLogsService } from '../../aaa-logs/api.js'
import type { PolicyRouteDeps } from './deps.js'
import { policyImpactRoutes } from './impact.js'
import { previewRoutes } from './preview.js'
import { reorderRoutes } from './reorder.js'
import { ruleRoutes } from './rules.js'
import { policyTestRoutes } from './test.js'
import { policyStatusRoutes } from './status.js'

export function policyRoutes(d: PolicyRouteDeps, logs?: AaaLogsService): RouteDefinition[] {
  // The reorder route first: `/rules/reorder` must not be read as `/rules/{rule_id}`.
  // The TACACS+ preview only where the edition renders TACACS+; the change impact only where the logs are kept.
  return [...reorderRoutes(d), ...ruleRoutes(d), ...(d.tacacs ? previewRoutes(d, d.tacacs) : []), ...policyTestRoutes(d), ...policyStatusRoutes(d), ...(logs ? policyImpactRoutes(d, logs) : [])] as RouteDefinition[]
}
