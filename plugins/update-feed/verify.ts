/**
 * From the feed's answer to a manifest, or the reason it is refused. Nothing of a refused answer
 * is kept: the previous good manifest stays (spec, Versioning 8).
 */
import type { KeyObject } from 'node:crypto'
import { publicKeyFromBase64, strictBase64, verifySignature } from './keys.js'
import { isEnvelope, isManifest, type Manifest } from './manifest.js'

/** Why an answer was refused (stored as the status's reason, shown in the console). */
export type RejectReason =
  | 'too_large'
  | 'redirect_refused'
  | 'too_many_redirects'
  | 'malformed_json'
  | 'bad_envelope'
  | 'unknown_key'
  | 'bad_signature'
  | 'invalid_manifest'
  | 'wrong_edition'
  | 'replayed'
  | 'issued_in_future'

export type Verified = { ok: true; manifest: Manifest; keyId: string } | { ok: false; reason: RejectReason }

/** key id → public key. */
export type TrustedKeys = ReadonlyMap<string, KeyObject>

/** The key map from id → base64 text; a malformed entry throws, naming it (a bad build or file must not start). */
export function trustedKeys(...maps: Readonly<Record<string, string>>[]): TrustedKeys {
  const out = new Map<string, KeyObject>()
  for (const m of maps) {
    for (const [id, b64] of Object.entries(m)) {
      if (out.has(id)) throw new Error(`update-feed: key id "${id}" is listed twice`)
      const key = publicKeyFromBase64(b64)
      if (!key) throw new Error(`update-feed: key "${id}" is not the base64 of a raw 32-byte Ed25519 public key`)
      out.set(id, key)
    }
  }
  return out
}

const parseJson = (bytes: Buffer): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) }
  } catch {
    return { ok: false }
  }
}

/** The envelope's signature is checked over the payload's bytes first; only then is the manifest read. */
export function verifyAnswer(body: Buffer, keys: TrustedKeys, edition: 'community' | 'pro'): Verified {
  const parsed = parseJson(body)
  if (!parsed.ok) return { ok: false, reason: 'malformed_json' }
  const env = parsed.value
  if (!isEnvelope(env)) return { ok: false, reason: 'bad_envelope' }
  const payload = strictBase64(env.payload)
  const signature = strictBase64(env.signature)
  if (!payload || !signature || signature.length !== 64) return { ok: false, reason: 'bad_envelope' }
  const key = keys.get(env.key_id)
  if (!key) return { ok: false, reason: 'unknown_key' }
  if (!verifySignature(payload, signature, key)) return { ok: false, reason: 'bad_signature' }
  // Signed by a trusted key, and still read as hostile: the signer's mistake must not reach the console.
  const manifest = parseJson(payload)
  if (!manifest.ok || !isManifest(manifest.value)) return { ok: false, reason: 'invalid_manifest' }
  if (manifest.value.edition !== edition) return { ok: false, reason: 'wrong_edition' }
  return { ok: true, manifest: manifest.value, keyId: env.key_id }
}
