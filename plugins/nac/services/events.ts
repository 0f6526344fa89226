/** The "endpoint authorization changed" listeners (api.ts): called after commit, failures logged. */
import { AfterCommitListeners, type Logger } from '../../../sdk/index.js'
import type { Endpoint, EndpointAuthorizationChange, EndpointAuthorizationListener } from '../api.js'

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

/**
 * The change an administrator's write made to an endpoint (the API's update, the captive portal's
 * registration), or none when its group and device type are what they were.
 */
export function adminChange(before: Endpoint, after: Endpoint): EndpointAuthorizationChange[] {
  const state = (e: Endpoint) => ({ device_type: e.device_type, endpoint_group_id: e.endpoint_group_id })
  if (!authorizationChanged(state(before), state(after))) return []
  return [{ endpoint_id: after.id, mac: after.mac, cause: 'admin', before: state(before), after: state(after), last_nas_ip: after.last_nas_ip, last_nas_port: after.last_nas_port }]
}
