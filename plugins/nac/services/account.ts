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
import type { NacMethod, NacReplyAttribute, Say } from '../../../sdk/index.js'
import { ENGLISH } from './evaluate.js'

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

/** Why the daemon refuses the request before the policy, or null when the policy decides; `detail` in `say`'s language. */
export function accountRefusal(method: NacMethod, username: string | null, account: NacAccount | null, at: Date, say: Say = ENGLISH): NacRefusal | null {
  const refuse = (reason: NacAccountReason, key: string = reason, vars: Record<string, unknown> = { username: account?.username, at: account?.expires_at }): NacRefusal => ({
    reason,
    detail: say(`nac:refused.${key}`, vars),
  })
  if (method === 'mab') return null
  if (method === 'eap-tls') {
    if (!account) return null
    if (!account.enabled) return refuse('disabled', 'cert_disabled')
    if (!account.network_login) return refuse('network_login_off', 'cert_network_login_off')
    if (expired(account, at)) return refuse('expired', 'cert_expired')
    return null
  }
  if (!account) return username === null ? refuse('unknown_user', 'no_identity') : refuse('unknown_user', 'unknown_user', { username: JSON.stringify(username) })
  if (!account.enabled) return refuse('disabled')
  if (!account.network_login) return refuse('network_login_off')
  if (account.source === 'directory') return refuse('directory_pap_only')
  if (!account.network_password) return refuse('no_network_password')
  if (expired(account, at)) return refuse('expired')
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
