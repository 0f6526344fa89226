/** The guest's side: the portal pages, the guest JSON API, the sponsor callback (part C of issue 29). */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { PortalContext } from '../services/context.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route keeps its own inferred schema types
export function guestRoutes(_c: PortalContext): RouteDefinition<any>[] {
  return []
}
