/** Users, user groups and roles: the administration routes of identity. */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { IdentityRouteDeps } from './deps.js'

export function identityRoutes(_d: IdentityRouteDeps): RouteDefinition[] {
  return []
}
