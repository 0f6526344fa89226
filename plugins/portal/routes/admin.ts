/** The administrators' side: portals, guests, portal sessions, sponsor approvals (part B of issue 29). */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { PortalContext } from '../services/context.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route keeps its own inferred schema types
export function adminRoutes(_c: PortalContext): RouteDefinition<any>[] {
  return []
}
