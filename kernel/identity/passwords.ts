/**
 * Password hashing and policy. API logins use argon2id with RFC 9106's second
 * recommended parameters (64 MiB, 3 passes, 4 lanes), stronger than OWASP's
 * minimum (19 MiB, 2 passes, 1 lane). The policy: 12 to 256 characters, not
 * the username, and not on the common-password list shipped with
 * @zxcvbn-ts/language-common (49,233 passwords from breach corpora in 4.1.3).
 */
import argon2 from 'argon2'
import { commonWords } from '../security/common-words.js'
import { PortcullisError } from '../../sdk/index.js'

export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 } as const

export const MIN_PASSWORD = 12
export const MAX_PASSWORD = 256

let commonSet: Set<string> | null = null
const isCommon = (pw: string) => (commonSet ??= new Set(commonWords('passwords-common').map((p) => p.toLowerCase()))).has(pw.toLowerCase())

export const hashPassword = (pw: string) => argon2.hash(pw, ARGON2_OPTIONS)

export async function verifyPassword(hash: string | null, pw: string): Promise<boolean> {
  if (!hash) {
    // Same cost for an unknown user or a directory account, so timing does not tell them apart.
    await argon2.verify(DUMMY_HASH, pw).catch(() => false)
    return false
  }
  return argon2.verify(hash, pw).catch(() => false)
}

// A real argon2id hash with the same parameters (of a random string), so the dummy check costs what a real one does.
const DUMMY_HASH = '$argon2id$v=19$m=65536,p=4,t=3$c29tZXNhbHRzb21lc2FsdA$oAGadQgJoCUnkcUbXOa9shs5al/hdEHy7XtcQku7QUI'

/** Throws a 422 naming `field` when the password breaks the policy. */
export function checkPolicy(pw: string, username: string, field: string): void {
  const fail = (key: string, vars: Record<string, unknown> = {}) => new PortcullisError(422, 'PASSWORD_POLICY', `core:password.${key}`, { field, vars })
  if (pw.length < MIN_PASSWORD) throw fail('too_short', { min: MIN_PASSWORD })
  if (pw.length > MAX_PASSWORD) throw fail('too_long', { max: MAX_PASSWORD })
  if (pw.toLowerCase() === username.toLowerCase() || pw.toLowerCase().includes(username.toLowerCase()) && username.length >= 4) throw fail('contains_username')
  if (isCommon(pw)) throw fail('common')
}
