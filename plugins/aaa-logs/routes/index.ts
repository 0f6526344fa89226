/** Every route of the AAA logs plugin. */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { LogsRouteDeps } from './deps.js'
import { exclusionRoutes } from './exclusions.js'
import { logKindRoutes } from './logs.js'
import { statsRoutes } from './stats.js'

export function logRoutes(d: LogsRouteDeps): RouteDefinition[] {
  return [...exclusionRoutes(d.database.knex, d.identity), ...logKindRoutes(d), ...statsRoutes(d)]
}
