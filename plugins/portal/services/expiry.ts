/** Guests and portal sessions whose time ran out (part B of issue 29). Returns the stop function. */
import type { PortalContext } from './context.js'

export function startExpiry(_c: PortalContext): () => Promise<void> {
  return async () => undefined
}
