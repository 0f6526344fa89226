import type { RouteDefinition } from '../../../sdk/index.js'
import type { MfaRouteDeps } from './deps.js'
import { enrollmentLinkRoutes } from './enrollment-link.js'
import { enrollmentRoutes } from './enrollment.js'
import { internalRoutes } from './internal.js'
import { pushAppRoutes } from './push-app.js'
import { pushPeopleRoutes } from './push-people.js'
import { recoveryRoutes } from './recovery.js'
import { userMfaRoutes } from './user-mfa.js'
import { verifyRoutes } from './verify.js'

export function mfaRoutes(d: MfaRouteDeps): RouteDefinition[] {
  return [...verifyRoutes(d), ...enrollmentLinkRoutes(d), ...enrollmentRoutes(d), ...userMfaRoutes(d), ...internalRoutes(d), ...pushAppRoutes(d), ...pushPeopleRoutes(d), ...recoveryRoutes(d)] as RouteDefinition[]
}
