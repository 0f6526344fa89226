/**
 * Secrets at rest: AES-256-GCM with a key derived per purpose by HKDF-SHA256
 * from the master key. The purpose is also the additional authenticated data,
 * so a RADIUS secret cannot be decrypted as, or swapped for, a TOTP seed.
 * Sealed form: `v2.<iv>.<tag>.<ciphertext>` (base64url), under the master key
 * as unlocked (a passphrase stretched by scrypt). `v1` is the same cipher under
 * the key material as given, the raw bytes of a passphrase included: written
 * before passphrases were stretched, it is still read, never written.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { PortcullisError, type SecretsService } from '../../sdk/index.js'

export const masterKeyUnavailable = () => new PortcullisError(503, 'MASTER_KEY_UNAVAILABLE', 'core:errors.master_key_unavailable')

export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `portcullis:${purpose}`, 32))
}

/** A value stored in the database to tell whether this node holds the cluster's key. */
export const keyCheckValue = (master: Buffer): string => createHmac('sha256', deriveKey(master, 'key-check')).update('portcullis').digest('hex')

/** `legacy` opens `v1` envelopes: the passphrase's own bytes (defaults to `master`, which is the same for a 32-byte key). */
export function createSecrets(master: Buffer | null, legacy: Buffer | null = master): SecretsService {
  const roots = { v2: master, v1: legacy }
  const keys = new Map<string, Buffer>()
  const keyFor = (purpose: string, version: 'v1' | 'v2' = 'v2') => {
    const root = roots[version]
    if (!root) throw masterKeyUnavailable()
    let k = keys.get(`${version}:${purpose}`)
    if (!k) keys.set(`${version}:${purpose}`, (k = deriveKey(root, `secret:${purpose}`)))
    return k
  }
  return {
    get loaded() {
      return master !== null
    },
    encrypt(purpose, plaintext) {
      const iv = randomBytes(12)
      const c = createCipheriv('aes-256-gcm', keyFor(purpose), iv)
      c.setAAD(Buffer.from(purpose))
      const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()])
      return ['v2', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.')
    },
    decrypt(purpose, sealed) {
      const [v, iv, tag, ct] = sealed.split('.')
      if ((v !== 'v1' && v !== 'v2') || !iv || !tag || ct === undefined) throw new Error('sealed secret has an unknown format')
      const d = createDecipheriv('aes-256-gcm', keyFor(purpose, v), Buffer.from(iv, 'base64url'))
      d.setAAD(Buffer.from(purpose))
      d.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8')
    },
  }
}
