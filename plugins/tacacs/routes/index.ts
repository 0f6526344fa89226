import type { RouteDefinition } from '../../../sdk/index.js'
import { commandSetReferenceRoutes } from './command-set-references.js'
import { commandSetRoutes } from './command-sets.js'
import type { TacacsRouteDeps } from './deps.js'
import { profileRoutes } from './profiles.js'

export function tacacsRoutes(d: TacacsRouteDeps): RouteDefinition[] {
  return [...commandSetRoutes(d), ...commandSetReferenceRoutes(d), ...profileRoutes(d)] as RouteDefinition[]
}
