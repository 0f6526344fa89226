/** The "endpoint authorization changed" listeners (api.ts): called after commit, failures logged. */
import { AfterCommitListeners, type Logger } from '../../../sdk/index.js'
import type { EndpointAuthorizationChange, EndpointAuthorizationListener } from '../api.js'

export class AuthorizationEvents {
  private readonly listeners: AfterCommitListeners<readonly EndpointAuthorizationChange[]>

  constructor(logger: Logger) {
    this.listeners = new AfterCommitListeners(logger, 'nac: an endpoint authorization listener failed', (changes) => ({ changes: changes.length, first: changes[0].endpoint_id }))
  }

  on(listener: EndpointAuthorizationListener): () => void {
    return this.listeners.on(listener)
  }

  /** Hands the changes of one commit to every listener; never throws. */
  async emit(changes: readonly EndpointAuthorizationChange[]): Promise<void> {
    if (changes.length) await this.listeners.emit(changes)
  }
}

/** Whether what decides the endpoint's authorization changed. */
export const authorizationChanged = (a: EndpointAuthorizationChange['before'], b: EndpointAuthorizationChange['after']) =>
  (a.device_type ?? '').toLowerCase() !== (b.device_type ?? '').toLowerCase() || a.endpoint_group_id !== b.endpoint_group_id
