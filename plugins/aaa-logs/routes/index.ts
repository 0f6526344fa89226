/** Every route of the AAA logs plugin (filled by the API side). */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { LogsRouteDeps } from './deps.js'

export function logRoutes(_d: LogsRouteDeps): RouteDefinition[] {
  return []
}
