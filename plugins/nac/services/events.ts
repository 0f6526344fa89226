/** The "endpoint authorization changed" listeners (api.ts): called after commit, failures logged. */
import type { Logger } from '../../../sdk/index.js'
import type { EndpointAuthorizationChange, EndpointAuthorizationListener } from '../api.js'

export class AuthorizationEvents {
  private readonly listeners = new Set<EndpointAuthorizationListener>()

  constructor(private readonly logger: Logger) {}

  on(listener: EndpointAuthorizationListener): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /** Hands the changes of one commit to every listener; never throws. */
  async emit(changes: readonly EndpointAuthorizationChange[]): Promise<void> {
    if (!changes.length) return
    for (const l of [...this.listeners]) {
      try {
        await l(changes)
      } catch (e) {
        this.logger.error({ err: e, changes: changes.length, first: changes[0].endpoint_id }, 'nac: an endpoint authorization listener failed')
      }
    }
  }
}

/** Whether what decides the endpoint's authorization changed. */
export const authorizationChanged = (a: EndpointAuthorizationChange['before'], b: EndpointAuthorizationChange['after']) =>
  (a.device_type ?? '').toLowerCase() !== (b.device_type ?? '').toLowerCase() || a.endpoint_group_id !== b.endpoint_group_id
