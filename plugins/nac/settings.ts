/** The plugin's settings (`PUT /api/v1/settings/{key}`). */
import { defineSetting, Nullable, StringEnum, Type } from '../../sdk/index.js'

// ---- Change of Authorization (services/coa/) ----
export const coaOnChange = defineSetting(
  'nac.coa_on_change',
  StringEnum(['off', 'reauthenticate'] as const),
  'reauthenticate',
  "What the NAC sends to the NAS when an endpoint's authorization may have changed (its group, its device type, its profile): `reauthenticate` (a CoA, so the new policy applies now) or `off` (the change applies at the next authentication). While not `off`, a user disabled, deleted or taken off the network also has each live session ended by a Disconnect-Request.",
  // `off` lets a quarantined endpoint keep its access until it next authenticates, hours on a wired port.
  { security: true },
)
// A wrong port makes every CoA and Disconnect time out: revoked access stays until the session ends.
export const coaPort = defineSetting('nac.coa_port', Type.Integer({ minimum: 1, maximum: 65535 }), 3799, 'The UDP port CoA and Disconnect requests go to (RFC 5176: 3799); a device may override it (PUT /api/v1/nac/coa-nas/{device_id}).', { security: true })
export const coaTimeoutMs = defineSetting('nac.coa_timeout_ms', Type.Integer({ minimum: 100, maximum: 30000 }), 3000, 'How long to wait for the NAS to answer one transmission of a CoA or Disconnect request, in milliseconds.')
export const coaRetries = defineSetting('nac.coa_retries', Type.Integer({ minimum: 0, maximum: 5 }), 2, 'How many times an unanswered CoA or Disconnect request is sent again (same identifier and authenticator) before it is recorded as a timeout.')

// ---- Captive portal redirection (services/portal-redirect.ts) ----
export const portalRedirectKey = defineSetting(
  'nac.portal_redirect_key',
  Nullable(Type.String({ minLength: 32, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' })),
  null,
  'The key FreeRADIUS signs the session parameters of a captive portal redirection with (authorization profiles with `portal_redirect`), and the portal checks them with. Made at random when the first such profile is saved; write a new one (32 to 128 letters, digits, `-` or `_`) to change it, then deploy: redirections signed with the old key are refused from then on. Write-only, sealed at rest.',
  { secret: true },
)

export const nacSettings = [coaOnChange, coaPort, coaTimeoutMs, coaRetries, portalRedirectKey]
