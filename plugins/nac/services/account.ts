/**
 * The account of the user an 802.1X request names, as the rendered FreeRADIUS tree checks it before
 * the NAC policy (plugins/radius/renderers/nac-eap.ts for PEAP's inner tunnel, nac-site.ts for
 * EAP-TLS), and the Session-Timeout an accept of a user with an expiry carries. Pure, so the policy
 * test and the NAC differential (the policy test against the real daemon) call the same code.
 *
 * - PEAP: the inner identity, compared exactly, must be a network user with a network password;
 *   refused with the daemon's log reasons, in its order: `unknown_user`, `disabled`,
 *   `network_login_off`, `no_network_password`, `directory_pap_only` (a directory user: the directory
 *   checks passwords by a bind, never an MS-CHAPv2 answer), `expired`.
 * - EAP-TLS: a certificate whose Common-Name names a user (without regard to case: usernames are unique
 *   so) is that user's login: `disabled`, `network_login_off`, `expired` refuse it (the certificate is
 *   the credential: no network password is needed). Any other certificate is a device's: the policy
 *   runs with no user.
 * - MAB: no user.
 */
import type { NacMethod, NacReplyAttribute } from '../../../sdk/index.js'

/** What the test reads of the user the request names; null: no user by that name. */
export interface NacAccount {
  username: string
  enabled: boolean
  network_login: boolean
  source: 'local' | 'directory'
  /** A network password is set (the daemon holds the NT hash PEAP-MSCHAPv2 checks). */
  network_password: boolean
  expires_at: string | null
}

export const NAC_ACCOUNT_REASONS = ['unknown_user', 'disabled', 'network_login_off', 'no_network_password', 'directory_pap_only', 'expired'] as const
export type NacAccountReason = (typeof NAC_ACCOUNT_REASONS)[number]

export interface NacRefusal {
  /** The log's `reject_reason` for the same request. */
  reason: NacAccountReason
  detail: string
}

/** Seconds since 1970 as FreeRADIUS keeps an expiry (renderers/lockout.ts epochSeconds). */
const seconds = (iso: string) => Math.max(1, Math.floor(new Date(iso).getTime() / 1000))

const expired = (a: NacAccount, at: Date) => a.expires_at !== null && seconds(a.expires_at) <= Math.floor(at.getTime() / 1000)

/** Why the daemon refuses the request before the policy, or null when the policy decides. */
export function accountRefusal(method: NacMethod, username: string | null, account: NacAccount | null, at: Date): NacRefusal | null {
  if (method === 'mab') return null
  if (method === 'eap-tls') {
    if (!account) return null
    if (!account.enabled) return { reason: 'disabled', detail: `the certificate names user ${account.username}, who is disabled` }
    if (!account.network_login) return { reason: 'network_login_off', detail: `the certificate names user ${account.username}, whose network login is off` }
    if (expired(account, at)) return { reason: 'expired', detail: `the certificate names user ${account.username}, who expired at ${account.expires_at}` }
    return null
  }
  if (!account) return { reason: 'unknown_user', detail: username === null ? 'no inner identity given: PEAP always has one, and only a user can pass it' : `no user is named ${JSON.stringify(username)} (compared exactly)` }
  if (!account.enabled) return { reason: 'disabled', detail: `user ${account.username} is disabled` }
  if (!account.network_login) return { reason: 'network_login_off', detail: `network login is off for user ${account.username}` }
  if (account.source === 'directory') return { reason: 'directory_pap_only', detail: `user ${account.username} is a directory user: the directory checks a password by an LDAP bind, which PEAP-MSCHAPv2 cannot give` }
  if (!account.network_password) return { reason: 'no_network_password', detail: `no network password is set for user ${account.username}` }
  if (expired(account, at)) return { reason: 'expired', detail: `user ${account.username} expired at ${account.expires_at}` }
  return null
}

/**
 * The reply of an accept for a user with an expiry, as rlm_expiration leaves it: the profile's
 * Session-Timeout lowered to the seconds left when it is longer, or the seconds left appended.
 */
export function withExpiry(reply: readonly NacReplyAttribute[], account: NacAccount | null, at: Date): NacReplyAttribute[] {
  if (!account?.expires_at) return [...reply]
  const left = seconds(account.expires_at) - Math.floor(at.getTime() / 1000)
  const i = reply.findIndex((a) => a.attribute === 'Session-Timeout')
  if (i < 0) return [...reply, { attribute: 'Session-Timeout', value: String(left) }]
  return reply.map((a, j) => (j === i && Number(a.value) > left ? { ...a, value: String(left) } : a))
}
