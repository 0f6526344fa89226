/**
 * Who may sign in, before the policy runs. The users are found by a hashed lookup, never by walking
 * a list: `portcullis/verifiers` is an rlm_files users file read by the `portcullis_users` instance
 * (mods-enabled/portcullis_lookup), keyed on "u.<User-Name>". rlm_files hashes the entry names and
 * compares them exactly ("Alice" is not "alice", as tac_plus-ng and the policy test compare); the
 * "u." keeps a user named DEFAULT from being read as the users file's DEFAULT entry, which would
 * match everyone. Each entry sets the control items the site reads: the verifiers, the expiry and
 * lockout clear, the user's principals (control:Tmp-String-3, the policy's keys), or, for a user
 * who may not sign in, why (control:Tmp-String-4), which `portcullis/login` and
 * `portcullis/refused` turn into a rejection with the reason.
 */
import type { FreeradiusConfigInput } from './input.js'
import type { RadiusRejectReason } from '../../../sdk/logs/freeradius.js'
import { byteOrder, CLEARTEXT, FreeradiusRenderError, HEADER, name, NT_HASH, qcleartext, refusal, SHA512_CRYPT, T, USERNAME } from './syntax.js'
import { quoteValue } from '../services/values.js'
import { authorizeChecks, CLEARED, enabledLockout, epochSeconds } from './lockout.js'

/** Control attributes of the lookups (renderers/policy.ts uses them too). */
export const PRINCIPALS = 'Tmp-String-3'
export const REFUSED = 'Tmp-String-4'
/** "directory" for a user the directory checks (renderers/directory.ts). */
export const DIRECTORY = 'Tmp-String-7'

const fail = (code: RadiusRejectReason, reason: string, indent: string) => refusal(code, reason, indent)

/** The secrets `verifiers` writes (RenderedFile.secrets): each user's SHA-512 crypt, NT hash and kept CHAP password. */
export const verifierSecrets = (input: FreeradiusConfigInput): string[] =>
  // Sorted: the same data in any order renders the same files.
  [...new Set(input.users.flatMap((u) => (u.verifiers ? [u.verifiers.sha512_crypt, u.verifiers.nt_hash, ...(u.verifiers.cleartext !== undefined ? [u.verifiers.cleartext] : [])] : [])))].sort()

/** The users file: one line a user (rlm_files reads the check items of an entry on its first line only). */
export function verifiers(input: FreeradiusConfigInput, principals: ReadonlyMap<string, readonly string[]>): string {
  const users = [...input.users].sort((a, b) => byteOrder(a.username, b.username) || byteOrder(a.id, b.id))
  const out = [
    HEADER,
    "# The users, for rlm_files (portcullis_users, keyed on \"u.<User-Name>\"): SHA-512 crypt for PAP, the NT hash for",
    '# MS-CHAP, the cleartext password for CHAP (only with chap_enabled), the expiry, the lockout clear, the',
    '# principals the AAA policy knows them by (Tmp-String-3), or why they may not sign in (Tmp-String-4).',
    '# Single-quoted values are literals: `\\` and `\'` are the only escapes, nothing is expanded.',
  ]
  const seen = new Set<string>()
  const lockout = enabledLockout(input)
  for (const u of users) {
    name(u.username, 'username', USERNAME)
    if (seen.has(u.username)) continue
    seen.add(u.username)
    const items: string[] = []
    if (u.verifiers) {
      if (!SHA512_CRYPT.test(u.verifiers.sha512_crypt)) throw new FreeradiusRenderError(`user ${u.username}: the stored verifier is not a SHA-512 crypt string`)
      if (!NT_HASH.test(u.verifiers.nt_hash)) throw new FreeradiusRenderError(`user ${u.username}: the stored NT hash is not 32 hex digits`)
      items.push(`Crypt-Password := '${u.verifiers.sha512_crypt}'`, `NT-Password := 0x${u.verifiers.nt_hash.toUpperCase()}`)
    } else if (u.source === 'directory') items.push(`${DIRECTORY} := "directory"`)
    else items.push(`${REFUSED} := "no_network_password"`)
    // Expiry and the lockout clear, as seconds since 1970 (renderers/lockout.ts checks them after the lookup).
    if (u.expires_at) items.push(`Expiration := ${epochSeconds(u.expires_at)}`)
    if (lockout && u.lockout_cleared_at) items.push(`${CLEARED} := ${epochSeconds(u.lockout_cleared_at)}`)
    if (u.verifiers || u.source === 'directory') for (const p of principals.get(u.username) ?? []) items.push(`${PRINCIPALS} += "${p}"`)
    // Last on the line (freeradiusCleartextIn reads it there). After Crypt-Password: pap takes the first
    // password it knows, so PAP stays on the crypt verifier. A password with a control character cannot be
    // written (the policy allows one): CHAP stays rejected for that user alone.
    const chap = u.verifiers?.cleartext
    if (chap !== undefined && CLEARTEXT.test(chap)) items.push(`Cleartext-Password := ${qcleartext(chap)}`)
    if (chap !== undefined && !CLEARTEXT.test(chap)) out.push(`# ${u.username}: chap_enabled, but the password holds a control character: CHAP is rejected`)
    out.push(`u.${u.username}${T}${items.join(', ')}`)
  }
  // Not network users: rejected by name with the reason, before any rule is tried.
  const network = new Set(input.users.map((u) => u.username))
  const rows = [...input.refusedUsers].filter((u) => !network.has(u.username)).sort((a, b) => byteOrder(a.username, b.username))
  for (const u of rows) {
    name(u.username, 'username', USERNAME)
    if (seen.has(u.username)) continue
    seen.add(u.username)
    out.push(`u.${u.username}${T}${REFUSED} := ${quoteValue(u.reason)}`)
  }
  out.push('')
  return out.join('\n')
}

/** `portcullis/login` (authorize): the lookup, then who is refused before the policy: no password, expired, locked out. */
export function login(input: FreeradiusConfigInput): string {
  return [
    HEADER,
    '# The user, by a hashed lookup on "u.<User-Name>" (portcullis/verifiers).',
    'portcullis_users',
    `if (&control:${REFUSED} && &control:${REFUSED} == "no_network_password") {`,
    `${T}# no network password set since network login was turned on`,
    ...fail('no_network_password', 'no network password is set for this user', T),
    `${T}reject`,
    '}',
    ...authorizeChecks(input),
    '',
  ].join('\n')
}

const REASON = { disabled: 'the user is disabled', network_login_off: 'network login is off for this user' } as const

/** Included by the site for a User-Name with no verifiers: the users the platform knows but does not let in over the network, each with why, and everyone else as unknown. */
export function refused(): string {
  return [
    HEADER,
    '# Not a network user: rejected before the AAA policy, with the reason in Module-Failure-Message.',
    `if (&control:${REFUSED} && &control:${REFUSED} == "disabled") {`,
    ...fail('disabled', REASON.disabled, T),
    '}',
    `elsif (&control:${REFUSED} && &control:${REFUSED} == "network_login_off") {`,
    ...fail('network_login_off', REASON.network_login_off, T),
    '}',
    '# User names are compared exactly, as the verifiers are: "Alice" is not "alice".',
    'else {',
    ...fail('unknown_user', 'unknown user', T),
    '}',
    'reject',
    '',
  ].join('\n')
}
