/**
 * Verifiers the daemons accept for network logins, derived when a password is
 * set (the daemons cannot check argon2id): SHA-512 crypt for PAP and TACACS+
 * ASCII login, the NT hash for MS-CHAPv2. Sealed with the master key; they
 * leave the platform only inside daemon files of mode 0600.
 */
import { encrypt as crypt } from 'unixcrypt'
import type { SecretsService } from '../../sdk/index.js'
import { md4 } from './md4.js'

export interface NetworkVerifiers {
  sha512_crypt: string
  nt_hash: string
}

export const PURPOSE = 'identity.network_verifiers'

export function deriveVerifiers(password: string): NetworkVerifiers {
  return { sha512_crypt: crypt(password), nt_hash: md4(Buffer.from(password, 'utf16le')).toString('hex').toUpperCase() }
}

export const sealVerifiers = (secrets: SecretsService, v: NetworkVerifiers) => secrets.encrypt(PURPOSE, JSON.stringify(v))
export const openVerifiers = (secrets: SecretsService, sealed: string) => JSON.parse(secrets.decrypt(PURPOSE, sealed)) as NetworkVerifiers
