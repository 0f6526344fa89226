/**
 * What a password must be to work on the network devices, on top of the password policy
 * (passwords.ts), for users with network login: the daemons get it from a NAS as bytes, so
 * every limit here counts UTF-8 bytes, never JavaScript string units. A user without network
 * login keeps the policy alone: nothing of theirs reaches a daemon.
 */
import { defineError, PortcullisError } from '../../sdk/index.js'

/**
 * The most a network password may be, in UTF-8 bytes. RADIUS carries at most 128 octets of
 * User-Password (RFC 2865 5.2; FreeRADIUS 3.2 checked), TACACS+ PAP at most 255 (one length
 * octet; tac_plus-ng checked). Every network user is rendered into both daemons, so the
 * smaller one is the rule.
 */
export const RADIUS_PAP_MAX_BYTES = 128
export const TACACS_MAX_BYTES = 255
export const NETWORK_PASSWORD_MAX_BYTES = Math.min(RADIUS_PAP_MAX_BYTES, TACACS_MAX_BYTES)

const refuse = (field: string, key: string, vars: Record<string, unknown> = {}) => new PortcullisError(422, 'PASSWORD_POLICY', `core:password.${key}`, { field, vars })

/**
 * Throws 422 PASSWORD_POLICY naming `field` when a network-login user's password cannot work on
 * a device: a NUL byte (a NAS and the daemons end the string there, so the verifier could never
 * match), an unpaired surrogate (no UTF-8 form: what was stored would be U+FFFD, which no
 * keyboard sends), or more bytes than RADIUS PAP carries.
 */
export function checkNetworkPassword(pw: string, field: string): void {
  if (pw.includes('\0')) throw refuse(field, 'network_nul')
  // With the u flag, a paired surrogate is one code point: \p{Cs} matches only a lone half.
  if (/\p{Cs}/u.test(pw)) throw refuse(field, 'network_unpaired_surrogate')
  const bytes = Buffer.byteLength(pw, 'utf8')
  if (bytes > NETWORK_PASSWORD_MAX_BYTES) {
    throw refuse(field, 'network_too_long', { max: RADIUS_PAP_MAX_BYTES, tacacs: TACACS_MAX_BYTES, bytes, over: bytes - NETWORK_PASSWORD_MAX_BYTES })
  }
}

export const NetworkErrors = {
  /** Network login or CHAP turned on for a user with a password, without the password in the same request. */
  passwordRequired: defineError(422, 'NETWORK_PASSWORD_REQUIRED', 'core:identity.network_password_required'),
  /** CHAP for a directory user: CHAP needs the cleartext password on the server, and the directory keeps it. */
  directoryNetworkLogin: defineError(422, 'NETWORK_LOGIN_NOT_ALLOWED', 'core:identity.network_login_directory'),
}

interface UserState {
  source: 'local' | 'directory'
  network_login: boolean
  chap_enabled: boolean
  password_set: boolean
  network_verifiers_set: boolean
}

/**
 * The rules a create or change of a user must keep, given the user before (a new user: nothing
 * set) and the fields the request gives:
 * - a directory user may have network login (the daemons ask the directory, docs/directory.md) but not
 *   CHAP, which needs the cleartext password on the server (`chap_enabled`, 422 NETWORK_LOGIN_NOT_ALLOWED);
 * - turning network login on (`network_login: true`) for a user who has a password but no verifiers
 *   (`network_verifiers_set` false) needs that password in the same request: the verifiers come only
 *   from the cleartext, and the platform keeps none (a user without any password gets them when the
 *   first one is set, by an administrator, a reset link or a change);
 * - likewise turning CHAP on for a network-login user with a password, as CHAP needs the password
 *   itself, kept (sealed) only when it is set.
 * Checking these before anything is written keeps a refused request from changing anything.
 */
export function checkNetworkLoginChange(before: UserState, b: { source?: 'local' | 'directory'; network_login?: boolean; chap_enabled?: boolean; password?: string }): void {
  const source = b.source ?? before.source
  const networkLogin = b.network_login ?? before.network_login
  const chap = b.chap_enabled ?? before.chap_enabled
  if (source === 'directory' && chap && (b.chap_enabled === true || b.source === 'directory')) {
    throw NetworkErrors.directoryNetworkLogin({ field: b.chap_enabled === true ? 'chap_enabled' : 'source' })
  }
  if (b.password !== undefined || !before.password_set || !networkLogin) return
  if (b.network_login === true && !before.network_verifiers_set) throw NetworkErrors.passwordRequired({ field: 'password', vars: { switch: 'network_login' } })
  if (b.chap_enabled === true && !before.chap_enabled) throw NetworkErrors.passwordRequired({ field: 'password', vars: { switch: 'chap_enabled' } })
}
