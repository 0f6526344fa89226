/**
 * The TBSCertificate and its extensions (RFC 5280 4.1), signed by a CA key.
 * The subject is written exactly as the request encoded it and the issuer
 * exactly as the CA certificate encodes its subject, so name chaining is a
 * byte comparison for every verifier.
 */
import { randomBytes, type KeyObject } from 'node:crypto'
import { ctx, extension, ia5, int, oid, seq, time } from './der.js'
import { EKU, keyUsageValue, OID, signatureAlgorithm, signed, type ExtendedKeyUsage, type KeyUsage } from './x509.js'
import type { SanEntry } from './csr.js'

/** The CA side of a signature: its key, its subject as encoded, its key identifier. */
export interface Issuer {
  key: KeyObject
  subjectDer: Buffer
  keyId: Buffer
}

/** 16 random bytes, positive and with a non-zero first byte: always 32 hex digits, as openssl prints them. */
export function newSerial(): Buffer {
  const b = randomBytes(16)
  b[0] = (b[0] & 0x7f) | 0x40
  return b
}

export const serialHex = (b: Buffer) => b.toString('hex').toUpperCase()

export function basicConstraints(ca: boolean, pathLen?: number): Buffer {
  return extension(OID.basicConstraints, ca ? seq(Buffer.from([0x01, 0x01, 0xff]), ...(pathLen === undefined ? [] : [int(pathLen)])) : seq(), true)
}

export const keyUsage = (usages: readonly KeyUsage[]) => extension(OID.keyUsage, keyUsageValue(usages), true)
export const extKeyUsage = (usages: readonly ExtendedKeyUsage[]) => extension(OID.extKeyUsage, seq(...usages.map((u) => oid(EKU[u]))))
export const subjectKeyId = (id: Buffer) => extension(OID.subjectKeyIdentifier, Buffer.concat([Buffer.from([0x04, id.length]), id]))
export const authorityKeyId = (id: Buffer) => extension(OID.authorityKeyIdentifier, seq(ctx(0, id, false)))

function generalName(s: SanEntry): Buffer {
  switch (s.type) {
    case 'dns':
      return ia5(s.value, 0x82)
    case 'email':
      return ia5(s.value, 0x81)
    case 'uri':
      return ia5(s.value, 0x86)
    case 'ip':
      return ctx(7, ipBytes(s.value), false)
  }
}

function ipBytes(v: string): Buffer {
  if (v.includes('.')) return Buffer.from(v.split('.').map(Number))
  const [head, tail = ''] = v.split('::')
  const h = head ? head.split(':') : []
  const t = tail ? tail.split(':') : []
  const groups = v.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h
  return Buffer.from(groups.map((g) => g.padStart(4, '0')).join(''), 'hex')
}

export const subjectAltName = (list: readonly SanEntry[]) => extension(OID.subjectAltName, seq(...list.map(generalName)))

/** Where relying parties find the CRL (and, below, the OCSP responder): only when the public URL is set. */
export const crlDistributionPoint = (url: string) => extension(OID.crlDistributionPoints, seq(seq(ctx(0, ctx(0, ia5(url, 0x86))))))
export const ocspAccess = (url: string) => extension(OID.authorityInfoAccess, seq(seq(oid(OID.ocsp), ia5(url, 0x86))))

export interface CertificateSpec {
  serial: Buffer
  issuer: Issuer
  subjectDer: Buffer
  spki: Buffer
  notBefore: Date
  notAfter: Date
  extensions: Buffer[]
}

/** The signed certificate, DER. */
export function buildCertificate(spec: CertificateSpec): Buffer {
  const tbs = seq(
    ctx(0, int(2)),
    int(spec.serial),
    // The same AlgorithmIdentifier as the outer one (RFC 5280 4.1.2.3): `signed` recomputes it from the key.
    signatureAlgorithm(spec.issuer.key).identifier,
    spec.issuer.subjectDer,
    seq(time(spec.notBefore), time(spec.notAfter)),
    spec.subjectDer,
    spec.spki,
    ctx(3, seq(...spec.extensions)),
  )
  return signed(tbs, spec.issuer.key)
}
