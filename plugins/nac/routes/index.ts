import type { RouteDefinition } from '../../../sdk/index.js'
import type { NacRouteDeps } from './deps.js'
import { coaNasRoutes } from './coa-nas.js'
import { coaRoutes } from './coa.js'
import { endpointDeviceTypeRoutes } from './endpoint-device-type.js'
import { endpointGroupRoutes } from './endpoint-groups.js'
import { endpointRoutes } from './endpoints.js'
import { exportRoutes } from './export.js'
import { importRoutes } from './import.js'
import { policyReorderRoutes } from './policy-reorder.js'
import { policyRuleRoutes } from './policy-rules.js'
import { policyImpactRoutes } from './policy-impact.js'
import { policyTestRoutes } from './policy-test.js'
import { profileRoutes } from './profiles.js'
import { profilingRuleRoutes } from './profiling-rules.js'
import { sessionRoutes } from './sessions.js'

export function nacRoutes(d: NacRouteDeps): RouteDefinition[] {
  // The export and the import before `/nac/endpoints/{endpoint_id}`, the reorder before `/nac/policy/rules/{rule_id}`: their paths are not ids.
  return [
    ...exportRoutes(d),
    ...importRoutes(d),
    ...endpointRoutes(d),
    ...endpointDeviceTypeRoutes(d),
    ...endpointGroupRoutes(d),
    ...profileRoutes(d),
    ...policyReorderRoutes(d),
    ...policyRuleRoutes(d),
    ...policyTestRoutes(d),
    ...policyImpactRoutes(d),
    ...coaRoutes(d),
    ...coaNasRoutes(d),
    ...profilingRuleRoutes(d),
    ...sessionRoutes(d),
  ] as RouteDefinition[]
}
