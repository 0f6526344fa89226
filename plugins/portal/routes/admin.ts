/** The administrators' side: portals, guests, portal sessions, sponsor approvals (part B of issue 29). */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { PortalContext } from '../services/context.js'
import { approvalRoutes } from './approvals.js'
import { guestBulkRoutes } from './guest-bulk.js'
import { guestAdminRoutes } from './guests.js'
import { portalLogoRoutes } from './portal-logo.js'
import { portalRoutes } from './portals.js'
import { sessionRoutes } from './sessions.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route keeps its own inferred schema types
export function adminRoutes(c: PortalContext): RouteDefinition<any>[] {
  // The bulk route before /guests/{guest_id}/…: a literal segment, listed first for the reader (the router matches either way).
  return [...portalRoutes(c), ...portalLogoRoutes(c), ...guestBulkRoutes(c), ...guestAdminRoutes(c), ...sessionRoutes(c), ...approvalRoutes(c)]
}
