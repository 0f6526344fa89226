/**
 * Ed25519 keys of the update feed: the manifest's signer holds the private key offline (the
 * `update-feed-keygen` / `update-feed-sign` commands); the installation holds public keys only,
 * each under a key id, so a key can be rotated: a new id is shipped beside the old one before the
 * feed is signed with it (docs/update-feed.md, "Key rotation").
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto'

/** A key id: what the envelope names. */
export const KEY_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'
const keyIdRe = new RegExp(KEY_ID_PATTERN)
export const isKeyId = (s: unknown): s is string => typeof s === 'string' && keyIdRe.test(s)

/** Strict base64 (padded, no white space): what the envelope and the key map carry. */
const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
export function strictBase64(s: unknown): Buffer | null {
  if (typeof s !== 'string' || !B64.test(s)) return null
  return Buffer.from(s, 'base64')
}

/** A public key from its raw 32 bytes in base64; null when it is not one. */
export function publicKeyFromBase64(b64: string): KeyObject | null {
  const raw = strictBase64(b64)
  if (!raw || raw.length !== 32) return null
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' })
  } catch {
    return null
  }
}

/** The raw 32 bytes of an Ed25519 public key, base64: how the key map writes it. */
export function publicKeyBase64(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' })
  return Buffer.from(jwk.x!, 'base64url').toString('base64')
}

/** A key id derived from the public key, when the signer names none. */
export const defaultKeyId = (publicB64: string) => `ed25519-${createHash('sha256').update(Buffer.from(publicB64, 'base64')).digest('hex').slice(0, 16)}`

export function generateReleaseKey(): { privatePem: string; publicB64: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  return { privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicB64: publicKeyBase64(publicKey) }
}

/** An Ed25519 private key from PEM; throws when the text is not one. */
export function privateKeyFromPem(pem: string): KeyObject {
  const k = createPrivateKey(pem)
  if (k.asymmetricKeyType !== 'ed25519') throw new Error(`the key is ${k.asymmetricKeyType ?? 'unknown'}, not Ed25519`)
  return k
}

/** What the feed serves: the manifest's bytes as signed, the signature over exactly those bytes, and the key's id. */
export interface Envelope {
  key_id: string
  payload: string
  signature: string
}

/** Signs the manifest's JSON bytes as they are (no re-serialization: the signature covers these bytes). */
export function signManifest(manifestBytes: Buffer, privateKey: KeyObject, keyId: string): Envelope {
  if (!isKeyId(keyId)) throw new Error(`key id "${keyId}" must match ${KEY_ID_PATTERN}`)
  return { key_id: keyId, payload: manifestBytes.toString('base64'), signature: sign(null, manifestBytes, privateKey).toString('base64') }
}

export const verifySignature = (payload: Buffer, signature: Buffer, key: KeyObject): boolean => {
  try {
    return signature.length === 64 && verify(null, payload, key, signature)
  } catch {
    return false
  }
}
