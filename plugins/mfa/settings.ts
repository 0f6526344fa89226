/** The plugin's settings (`PUT /api/v1/settings/{key}`). */
import { defineServerOption, defineSetting, Nullable, Type } from '../../sdk/index.js'

export const mfaIssuer = defineSetting(
  'mfa.issuer',
  // `:` separates issuer and account in the otpauth label, so it cannot appear in the issuer.
  Type.String({ minLength: 1, maxLength: 64, pattern: '^[^:]+$' }),
  'Portcullis',
  'Issuer name shown by authenticator apps next to the account (otpauth `issuer`).',
)

export const mfaInternalKey = defineSetting(
  'mfa.internal_key',
  Nullable(Type.String({ minLength: 32, maxLength: 256 })),
  null,
  'Shared secret the RADIUS/NAC daemons send in X-Internal-Key to POST /api/v1/mfa/internal/verify. Null disables that surface (it answers 404). Write-only, sealed at rest.',
  { secret: true },
)

export const mfaSettings = [mfaIssuer, mfaInternalKey]

/**
 * Where the daemons reach the internal surface: a server option (the address the platform's key is
 * sent to is the server's configuration, not an API setting). Rendered into the daemons' private
 * configuration with the key, so device logins of enrolled users ask for a code.
 */
export const mfaInternalUrl = defineServerOption(
  'mfa.internal_url',
  Nullable(Type.String({ minLength: 10, maxLength: 200, pattern: '^https?://[A-Za-z0-9.\\-]+(?::[0-9]{1,5})?$|^https?://\\[[0-9A-Fa-f:.]+\\](?::[0-9]{1,5})?$' })),
  null,
  'Base URL (scheme, host, port; no path) at which FreeRADIUS and tac_plus-ng reach this platform\'s `/api/v1/mfa/internal/` surface during a device login, e.g. `http://127.0.0.1:8080`. Needed once setting `mfa.internal_key` is set and a daemon asks for codes (settings `radius.mfa_mode`, `tacacs.mfa_mode`): the deploy refuses to render otherwise. See docs/mfa.md, "On the devices".',
  { env: 'MFA_INTERNAL_URL' },
)

export const mfaServerOptions = [mfaInternalUrl]
