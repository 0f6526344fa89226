/**
 * Mutual TLS as it reaches the API: the front end that terminates the
 * client-certificate handshake (the bundled nginx, examples/nginx/) sets
 * X-SSL-Client-Verify, -S-DN and -Serial, and proves it is that front end
 * with X-Est-Proxy-Key. The headers count only when the key equals setting
 * nac.est_mtls_proxy_secret (compared in constant time); with no secret set,
 * mutual TLS is not deployed and they are ignored.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'

export interface PresentedCertificate {
  /** Upper-case hex without leading zeros, as the certificates table keeps serials. */
  serial: string
  subjectDn: string
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? undefined : v)
const digest = (s: string) => createHash('sha256').update(s).digest()

export function presentedCertificate(headers: IncomingHttpHeaders, secret: string | null): PresentedCertificate | null {
  if (!secret) return null
  const key = one(headers['x-est-proxy-key'])
  if (key === undefined || !timingSafeEqual(digest(secret), digest(key))) return null
  if (one(headers['x-ssl-client-verify']) !== 'SUCCESS') return null
  const serial = one(headers['x-ssl-client-serial'])?.replace(/:/g, '').toUpperCase().replace(/^(00)+(?=.)/, '')
  if (!serial || !/^[0-9A-F]{1,64}$/.test(serial)) return null
  return { serial, subjectDn: one(headers['x-ssl-client-s-dn']) ?? '' }
}
