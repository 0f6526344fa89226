/** Every route of the plugin core (design31 §3 "B"); the read side and compliance add theirs in index.ts. */
import type { RouteDefinition } from '../../../sdk/index.js'
import type { NcmContext } from '../services/context.js'

export function ncmRoutes(c: NcmContext): RouteDefinition[] {
  void c
  return []
}
