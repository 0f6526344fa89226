/**
 * Verifiers the daemons accept for network logins, derived when a password is
 * set (the daemons cannot check argon2id): SHA-512 crypt for PAP and TACACS+
 * ASCII login, the NT hash for MS-CHAPv2, and, only for users with
 * `chap_enabled`, the cleartext password for CHAP (which has no verifier-based
 * form). Sealed with the master key; they leave the platform only inside
 * daemon files of mode 0600.
 */
import type { NetworkVerifiers, SecretsService } from '../../sdk/index.js'
import { ntHash } from '../../sdk/md4.js'
import { parseSetting, sha512Crypt, sha512CryptMatches } from './sha512-crypt.js'

export type { NetworkVerifiers } from '../../sdk/index.js'

export const PURPOSE = 'identity.network_verifiers'

/** `chap`: also keep the cleartext (the user has `chap_enabled`). */
export function deriveVerifiers(password: string, chap = false): NetworkVerifiers {
  const v: NetworkVerifiers = { sha512_crypt: sha512Crypt(password), nt_hash: ntHash(password).toString('hex').toUpperCase() }
  if (chap) v.cleartext = password
  return v
}

/**
 * Verifiers sealed before the SHA-512-crypt fix hold a wrong `sha512_crypt` exactly when the
 * password is a multiple of 64 bytes long in UTF-8 (the npm package used then skipped a block):
 * no other length was affected, and the NT hash never was.
 */
export const mayHaveBrokenCrypt = (password: string) => Buffer.byteLength(password, 'utf8') % 64 === 0

/**
 * With the password at hand (typed at a sign-in, or kept for CHAP): the verifiers with a correct
 * `sha512_crypt`, or null when they are right already. Cheap for every other password: only
 * 64·n-byte ones cost a SHA-512-crypt computation.
 */
export function repairedVerifiers(v: NetworkVerifiers, password: string): NetworkVerifiers | null {
  if (!mayHaveBrokenCrypt(password) || sha512CryptMatches(password, v.sha512_crypt)) return null
  return { ...v, sha512_crypt: sha512Crypt(password, parseSetting(v.sha512_crypt) ?? undefined) }
}

/** The sealed verifiers without the cleartext (CHAP turned off); null stays null. */
export function withoutCleartext(secrets: SecretsService, sealed: string | null): string | null {
  if (sealed === null) return null
  const v = openVerifiers(secrets, sealed)
  if (v.cleartext === undefined) return sealed
  delete v.cleartext
  return sealVerifiers(secrets, v)
}

export const sealVerifiers = (secrets: SecretsService, v: NetworkVerifiers) => secrets.encrypt(PURPOSE, JSON.stringify(v))

/**
 * Opened for the renderers and the identity service. A CHAP user's sealed set keeps the password,
 * so a `sha512_crypt` the old code got wrong is recomputed here from it (same salt, so a render
 * stays byte-identical); users without CHAP get theirs right at their next sign-in or password
 * change (kernel/identity/service.ts, passwords-set.ts).
 */
export function openVerifiers(secrets: SecretsService, sealed: string): NetworkVerifiers {
  return parseOpened(secrets.decrypt(PURPOSE, sealed))
}

/** Many at once (`secrets.decryptMany`: a large batch on two cores), in order. */
export async function openManyVerifiers(secrets: SecretsService, sealed: readonly string[]): Promise<NetworkVerifiers[]> {
  return (await secrets.decryptMany(PURPOSE, sealed)).map(parseOpened)
}

function parseOpened(json: string): NetworkVerifiers {
  const v = JSON.parse(json) as NetworkVerifiers
  return v.cleartext !== undefined ? (repairedVerifiers(v, v.cleartext) ?? v) : v
}
