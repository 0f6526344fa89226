/**
 * Verifiers the daemons accept for network logins, derived when a password is
 * set (the daemons cannot check argon2id): SHA-512 crypt for PAP and TACACS+
 * ASCII login, the NT hash for MS-CHAPv2, and, only for users with
 * `chap_enabled`, the cleartext password for CHAP (which has no verifier-based
 * form). Sealed with the master key; they leave the platform only inside
 * daemon files of mode 0600.
 */
import { encrypt as crypt } from 'unixcrypt'
import type { NetworkVerifiers, SecretsService } from '../../sdk/index.js'
import { md4 } from '../../sdk/md4.js'

export type { NetworkVerifiers } from '../../sdk/index.js'

export const PURPOSE = 'identity.network_verifiers'

/** `chap`: also keep the cleartext (the user has `chap_enabled`). */
export function deriveVerifiers(password: string, chap = false): NetworkVerifiers {
  const v: NetworkVerifiers = { sha512_crypt: crypt(password), nt_hash: md4(Buffer.from(password, 'utf16le')).toString('hex').toUpperCase() }
  if (chap) v.cleartext = password
  return v
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
export const openVerifiers = (secrets: SecretsService, sealed: string) => JSON.parse(secrets.decrypt(PURPOSE, sealed)) as NetworkVerifiers
