/** The plugin's settings (`PUT /api/v1/settings/{key}`). */
import { defineSetting, Nullable, Type } from '../../sdk/index.js'

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
