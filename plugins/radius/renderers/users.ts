/**
 * Who may sign in, before the policy runs: the network users' verifiers
 * (`portcullis/verifiers`), and a rejection with a reason for everyone else
 * (`portcullis/refused`), so that a log row never names a rule an unknown or
 * disabled user did not match.
 */
import type { FreeradiusConfigInput } from './input.js'
import type { RadiusRejectReason } from '../../../sdk/logs/freeradius.js'
import { byteOrder, CLEARTEXT, FreeradiusRenderError, HEADER, name, NT_HASH, qcleartext, refusal, SHA512_CRYPT, T, USERNAME } from './syntax.js'
import { quoteValue } from '../services/values.js'
import { authorizeChecks, CLEARED, enabledLockout, epochSeconds } from './lockout.js'

const fail = (code: RadiusRejectReason, reason: string) => refusal(code, reason, T + T)

export function verifiers(input: FreeradiusConfigInput): string {
  const users = [...input.users].sort((a, b) => byteOrder(a.username, b.username) || byteOrder(a.id, b.id))
  const out = [HEADER, '# The network users\' verifiers: SHA-512 crypt for PAP, the NT hash for MS-CHAP,', '# and the cleartext password for CHAP, kept only for users with chap_enabled.', 'switch &User-Name {']
  const seen = new Set<string>()
  const lockout = enabledLockout(input)
  for (const u of users) {
    name(u.username, 'username', USERNAME)
    if (seen.has(u.username)) continue
    seen.add(u.username)
    out.push(`${T}case ${quoteValue(u.username)} {`)
    // Expiry and the lockout clear, as seconds since 1970 (renderers/lockout.ts checks them after the switch).
    const when = [
      ...(u.expires_at ? [`${T}${T}${T}&Expiration := ${epochSeconds(u.expires_at)}`] : []),
      ...(lockout && u.lockout_cleared_at ? [`${T}${T}${T}&${CLEARED} := ${epochSeconds(u.lockout_cleared_at)}`] : []),
    ]
    if (when.length) out.push(`${T}${T}update control {`, ...when, `${T}${T}}`)
    if (u.verifiers) {
      if (!SHA512_CRYPT.test(u.verifiers.sha512_crypt)) throw new FreeradiusRenderError(`user ${u.username}: the stored verifier is not a SHA-512 crypt string`)
      if (!NT_HASH.test(u.verifiers.nt_hash)) throw new FreeradiusRenderError(`user ${u.username}: the stored NT hash is not 32 hex digits`)
      // Single quotes: a literal, never expanded at run time.
      const control = [`${T}${T}update control {`, `${T}${T}${T}&Crypt-Password := '${u.verifiers.sha512_crypt}'`, `${T}${T}${T}&NT-Password := 0x${u.verifiers.nt_hash.toUpperCase()}`]
      // After Crypt-Password: pap takes the first password it knows, so PAP stays on the crypt verifier.
      // A password with a control character cannot be written (the policy allows one): CHAP stays rejected for that user alone.
      const chap = u.verifiers.cleartext
      if (chap !== undefined && CLEARTEXT.test(chap)) control.push(`${T}${T}${T}&Cleartext-Password := ${qcleartext(chap)}`)
      out.push(...control, `${T}${T}}`)
      if (chap !== undefined && !CLEARTEXT.test(chap)) out.push(`${T}${T}# chap_enabled, but the password holds a control character: CHAP is rejected`)
    } else {
      out.push(`${T}${T}# no network password set since network login was turned on`, ...fail('no_network_password', 'no network password is set for this user'), `${T}${T}reject`)
    }
    out.push(`${T}}`)
  }
  // FreeRADIUS refuses an empty switch ("'switch' statements cannot be empty"): a fresh
  // install with devices but no network user yet must still pass `freeradius -C`.
  out.push(`${T}case {`, `${T}${T}noop`, `${T}}`, '}', ...authorizeChecks(input), '')
  return out.join('\n')
}

const REASON = { disabled: 'the user is disabled', network_login_off: 'network login is off for this user' } as const

/**
 * Included by the site for a User-Name with no verifiers: the users the platform knows but does
 * not let in over the network, each with why, and everyone else as unknown. Only such requests
 * walk this switch (FreeRADIUS tests its cases in turn), so it costs the network users nothing.
 */
export function refused(input: FreeradiusConfigInput): string {
  const network = new Set(input.users.map((u) => u.username))
  const rows = [...input.refusedUsers].filter((u) => !network.has(u.username)).sort((a, b) => byteOrder(a.username, b.username))
  const out = [HEADER, '# Not a network user: rejected before the AAA policy, with the reason in Module-Failure-Message.', 'switch &User-Name {']
  const seen = new Set<string>()
  for (const u of rows) {
    name(u.username, 'username', USERNAME)
    if (seen.has(u.username)) continue
    seen.add(u.username)
    out.push(`${T}case ${quoteValue(u.username)} {`, ...fail(u.reason, REASON[u.reason]), `${T}}`)
  }
  // User names are compared exactly, as the verifiers are: "Alice" is not "alice".
  out.push(`${T}case {`, ...fail('unknown_user', 'unknown user'), `${T}}`, '}', 'reject', '')
  return out.join('\n')
}
