/** Users, user groups and roles: the administration routes of identity. */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { IdentityRouteDeps } from './deps.js'
import { roleRoutes } from './roles.js'
import { userGroupRoutes } from './user-groups.js'
import { userImportRoutes } from './user-import.js'
import { userRoutes } from './users.js'
import { userSessionRoutes } from './user-sessions.js'
import { userLockoutRoutes } from './user-lockout.js'
import { identityReferenceRoutes } from './references.js'

export function identityRoutes(d: IdentityRouteDeps): RouteDefinition[] {
  return [...userImportRoutes(d), ...userRoutes(d), ...userSessionRoutes(d), ...userLockoutRoutes(d), ...userGroupRoutes(d), ...roleRoutes(d), ...identityReferenceRoutes(d)] as RouteDefinition[]
}
