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

/** A push challenge's life, and the longest a caller (the sign-in, a daemon) waits on it. */
export const mfaPushTimeout = defineSetting(
  'mfa.push_timeout_seconds',
  Type.Integer({ minimum: 5, maximum: 120 }),
  30,
  'How long a push approval request lives on the phone, in seconds (5 to 120), and the longest a caller waits for the answer. Daemons wait this long plus a little (docs/push-mfa.md).',
)

/** The answer to MFA bombing for the accounts that matter most: the number on the sign-in screen must be typed on the phone. */
export const mfaPushAdminsNumberMatching = defineSetting(
  'mfa.push_admins_number_matching',
  Type.Boolean(),
  false,
  'When true, an administrator who has a push device must sign in to the API and console with push (a TOTP code answers 403 MFA_PUSH_REQUIRED), and every push to an administrator uses number matching where the caller can show the number (the sign-in screen, RADIUS challenge mode). TACACS+ has no screen: it still pushes without a number.',
)

export const mfaSettings = [mfaIssuer, mfaInternalKey, mfaPushTimeout, mfaPushAdminsNumberMatching]

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

const BASE_URL = '^https?://[A-Za-z0-9.\\-]+(?::[0-9]{1,5})?$|^https?://\\[[0-9A-Fa-f:.]+\\](?::[0-9]{1,5})?$'

/** Where the core reaches the push service (its /internal/v1/notify). */
export const mfaPushServiceUrl = defineServerOption(
  'mfa.push_service_url',
  Nullable(Type.String({ minLength: 10, maxLength: 200, pattern: BASE_URL })),
  null,
  'Base URL (scheme, host, port; no path) at which this platform reaches the push-MFA service to send notifications, e.g. `http://127.0.0.1:8090`. Null: no push can be sent (the push factor answers `unavailable`). See docs/push-mfa.md.',
  { env: 'MFA_PUSH_SERVICE_URL' },
)

/** What the QR code tells the app: the push service as phones reach it (often a public name). */
export const mfaPushPublicUrl = defineServerOption(
  'mfa.push_public_url',
  Nullable(Type.String({ minLength: 10, maxLength: 200, pattern: '^https?://[A-Za-z0-9.\\-]+(?::[0-9]{1,5})?(/[A-Za-z0-9._~/\\-]*)?$' })),
  null,
  'The push-MFA service\'s address as the phones reach it, written into the enrollment QR code. Null: the same as `mfa.push_service_url`.',
  { env: 'MFA_PUSH_PUBLIC_URL' },
)

/** The signed channel's key (sdk/signed-request.ts), shared with the push service's PUSH_SHARED_KEY. */
export const mfaPushServiceKey = defineServerOption(
  'mfa.push_service_key',
  Nullable(Type.String({ minLength: 32, maxLength: 256 })),
  null,
  'The key shared with the push-MFA service (its PUSH_SHARED_KEY): every request between them is signed with it. Null: push is off, and the routes the push service calls answer 404 MFA_PUSH_DISABLED.',
  { env: 'MFA_PUSH_SERVICE_KEY' },
)

export const mfaServerOptions = [mfaInternalUrl, mfaPushServiceUrl, mfaPushPublicUrl, mfaPushServiceKey]
