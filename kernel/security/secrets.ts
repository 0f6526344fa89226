/**
 * Secrets at rest: AES-256-GCM with a key derived per purpose by HKDF-SHA256
 * from the master key. The purpose is also the additional authenticated data,
 * so a RADIUS secret cannot be decrypted as, or swapped for, a TOTP seed.
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { PortcullisError, type SecretsService } from '../../sdk/index.js'

export const masterKeyUnavailable = () => new PortcullisError(503, 'MASTER_KEY_UNAVAILABLE', 'core:errors.master_key_unavailable')

export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `portcullis:${purpose}`, 32))
}

/** A value stored in the database to tell whether this node holds the cluster's key. */
export const keyCheckValue = (master: Buffer): string => createHmac('sha256', deriveKey(master, 'key-check')).update('portcullis').digest('hex')

export function createSecrets(master: Buffer | null): SecretsService {
  const keys = new Map<string, Buffer>()
  const keyFor = (purpose: string) => {
    if (!master) throw masterKeyUnavailable()
    let k = keys.get(purpose)
    if (!k) keys.set(purpose, (k = deriveKey(master, `secret:${purpose}`)))
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
      return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.')
    },
    decrypt(purpose, sealed) {
      const [v, iv, tag, ct] = sealed.split('.')
      if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('sealed secret has an unknown format')
      const d = createDecipheriv('aes-256-gcm', keyFor(purpose), Buffer.from(iv, 'base64url'))
      d.setAAD(Buffer.from(purpose))
      d.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8')
    },
  }
}
