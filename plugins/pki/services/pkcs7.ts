/**
 * PKCS#7 / CMS "certs-only" (RFC 5652 SignedData with no signers), the
 * answer of EST's cacerts and simpleenroll (RFC 7030 4.1.3, 4.2.3), and the
 * base64 transfer encoding EST puts around every body (RFC 2045 lines).
 */
import { ctx, int, oid, seq, set } from './der.js'

const SIGNED_DATA = '1.2.840.113549.1.7.2'
const DATA = '1.2.840.113549.1.7.1'

export function certsOnly(certs: readonly Buffer[]): Buffer {
  const signedData = seq(int(1), set(), seq(oid(DATA)), ctx(0, Buffer.concat(certs)), set())
  return seq(oid(SIGNED_DATA), ctx(0, signedData))
}

/** Base64 in lines of 64 characters, CRLF-terminated (RFC 2045 allows up to 76). */
export const base64Lines = (der: Buffer): string => `${der.toString('base64').replace(/.{64}/g, '$&\r\n').replace(/(\r\n)?$/, '\r\n')}`

/** A base64 body as EST clients send it (line breaks allowed); null when it is not base64. */
export function fromBase64Body(body: Buffer): Buffer | null {
  const text = body.toString('latin1').replace(/\s+/g, '')
  if (text.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null
  return Buffer.from(text, 'base64')
}
