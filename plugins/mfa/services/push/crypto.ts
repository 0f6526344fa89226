/**
 * The phone's signatures (docs/push-mfa.md, "Mobile contract"): what is signed, byte for byte, and
 * the check with node:crypto. P-256 signatures are IEEE-P1363 (r‖s, 64 bytes: what WebCrypto and the
 * phones' keystores give), Ed25519 the raw 64 bytes. A key or signature that does not parse is a
 * signature that does not verify.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto'
import type { PushAlgorithm } from '../../tables.js'

/** Phones drift; the app corrects from the Date header when told PUSH_CLOCK_SKEW. */
export const DEVICE_CLOCK_WINDOW_SECONDS = 300

export const enrollProofText = (token: string, publicKey: string) => `portcullis-push-enroll\n${token}\n${publicKey}`

export const requestText = (method: string, appPath: string, timestamp: string, body: Buffer | string) =>
  `portcullis-push-request\n${method.toUpperCase()}\n${appPath}\n${timestamp}\n${body.length ? createHash('sha256').update(body).digest('hex') : ''}`

export const answerText = (challengeId: string, nonce: string, decision: string, number: string | null) =>
  `portcullis-push-answer\n${challengeId}\n${nonce}\n${decision}\n${number ?? ''}`

/** The public key of the stated algorithm, or null (wrong curve, wrong type, not SPKI DER). */
export function parsePublicKey(algorithm: PushAlgorithm, spkiBase64url: string): KeyObject | null {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(spkiBase64url)) return null
    const key = createPublicKey({ key: Buffer.from(spkiBase64url, 'base64url'), format: 'der', type: 'spki' })
    if (algorithm === 'ed25519') return key.asymmetricKeyType === 'ed25519' ? key : null
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? key : null
  } catch {
    return null
  }
}

export function verifyDeviceSignature(algorithm: PushAlgorithm, key: KeyObject, text: string, signatureBase64url: string): boolean {
  if (typeof signatureBase64url !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(signatureBase64url)) return false
  const sig = Buffer.from(signatureBase64url, 'base64url')
  if (sig.length !== 64) return false
  try {
    const data = Buffer.from(text, 'utf8')
    return algorithm === 'ed25519' ? verify(null, data, key, sig) : verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig)
  } catch {
    return false
  }
}
