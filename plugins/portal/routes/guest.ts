/** The guest's side: the portal pages, the guest JSON API, the sponsor callback, the console's preview (part C of issue 29). */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { PortalContext } from '../services/context.js'
import { guestApiRoutes } from './guest-api.js'
import { pageRoutes } from './pages.js'
import { portalChoiceRoutes } from './portal-choice.js'
import { previewRoutes } from './preview.js'
import { sponsorCallbackRoutes } from './sponsor-callback.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route keeps its own inferred schema types
export function guestRoutes(c: PortalContext): RouteDefinition<any>[] {
  // The console's preview (part B's admin side) renders these pages, so it lives with them.
  return [...portalChoiceRoutes(c), ...pageRoutes(c), ...guestApiRoutes(c), ...sponsorCallbackRoutes(c), ...previewRoutes(c)]
}
