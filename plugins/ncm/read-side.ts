/**
 * The read side (helper hd): versions, configuration text, diff, search and "who changed it".
 * Registers its new-version hook on `c.hooks` and answers its routes.
 */
import type { RouteDefinition } from '../../sdk/index.js'
import type { NcmContext } from './services/context.js'

export function readSide(c: NcmContext): { routes: RouteDefinition[] } {
  void c
  return { routes: [] }
}
