/**
 * X.509 pieces shared by the CA, the issuer, the CRL and the OCSP responder:
 * names, algorithm identifiers, key facts, and the fields of a certificate we
 * need to sign under it (its subject exactly as encoded, its key identifier).
 */
import { createHash, createPublicKey, sign, type KeyObject } from 'node:crypto'
import { bits, children, content, ctx, DerError, expectTag, ia5, nullValue, oid, printable, readNode, readOid, readRoot, readString, seq, set, utf8, whole, type Node } from './der.js'

export const OID = {
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecPublicKey: '1.2.840.10045.2.1',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  sha384WithRSA: '1.2.840.113549.1.1.12',
  sha512WithRSA: '1.2.840.113549.1.1.13',
  ecdsaSha256: '1.2.840.10045.4.3.2',
  ecdsaSha384: '1.2.840.10045.4.3.3',
  ecdsaSha512: '1.2.840.10045.4.3.4',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  crlNumber: '2.5.29.20',
  crlReason: '2.5.29.21',
  crlDistributionPoints: '2.5.29.31',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  ocsp: '1.3.6.1.5.5.7.48.1',
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  ocspNonce: '1.3.6.1.5.5.7.48.1.2',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
} as const

/** The signature algorithms a CSR may be signed with, and the hash each means. SHA-1 is not among them. */
export const CSR_SIGNATURES: Record<string, string> = {
  [OID.sha256WithRSA]: 'sha256',
  [OID.sha384WithRSA]: 'sha384',
  [OID.sha512WithRSA]: 'sha512',
  [OID.ecdsaSha256]: 'sha256',
  [OID.ecdsaSha384]: 'sha384',
  [OID.ecdsaSha512]: 'sha512',
}

export const EKU = { serverAuth: '1.3.6.1.5.5.7.3.1', clientAuth: '1.3.6.1.5.5.7.3.2' } as const
export type ExtendedKeyUsage = keyof typeof EKU
export const KEY_USAGE_BITS = ['digitalSignature', 'nonRepudiation', 'keyEncipherment', 'dataEncipherment', 'keyAgreement', 'keyCertSign', 'cRLSign'] as const
export type KeyUsage = (typeof KEY_USAGE_BITS)[number]

/** Subject attributes a CA or a template may name, in the order a Name is written. */
export const NAME_ATTRIBUTES = { C: '2.5.4.6', ST: '2.5.4.8', L: '2.5.4.7', O: '2.5.4.10', OU: '2.5.4.11', CN: '2.5.4.3', emailAddress: '1.2.840.113549.1.9.1', serialNumber: '2.5.4.5' } as const
export type NameAttribute = keyof typeof NAME_ATTRIBUTES
const ATTRIBUTE_BY_OID = new Map<string, NameAttribute>(Object.entries(NAME_ATTRIBUTES).map(([k, v]) => [v, k as NameAttribute]))

export interface NamePart {
  type: string
  value: string
}

/** A Name from the API's subject fields (one attribute per RDN, in the usual C … CN order). */
export function encodeName(subject: Partial<Record<NameAttribute, string>>): Buffer {
  const rdns: Buffer[] = []
  for (const [k, id] of Object.entries(NAME_ATTRIBUTES)) {
    const v = subject[k as NameAttribute]
    if (v === undefined) continue
    const value = k === 'C' || k === 'serialNumber' ? printable(v) : k === 'emailAddress' ? ia5(v) : utf8(v)
    rdns.push(set(seq(oid(id), value)))
  }
  return seq(...rdns)
}

/** The attributes of an encoded Name, in encoded order; an attribute we do not know keeps its OID as type. */
export function decodeName(name: Node): NamePart[] {
  expectTag(name, 0x30, 'name')
  const parts: NamePart[] = []
  for (const rdn of children(name)) {
    expectTag(rdn, 0x31, 'relative distinguished name')
    for (const atv of children(rdn)) {
      const [type, value] = children(expectTag(atv, 0x30, 'attribute'))
      if (!type || !value) throw new DerError('attribute without a value')
      const id = readOid(type)
      parts.push({ type: ATTRIBUTE_BY_OID.get(id) ?? id, value: readString(value) })
    }
  }
  return parts
}

/** RFC 4514 text (most specific first: `CN=radius.example.net,O=Example`). */
export function nameText(parts: readonly NamePart[]): string {
  const esc = (v: string) => v.replace(/([,+"\\<>;=])/g, '\\$1').replace(/^([ #])/, '\\$1').replace(/ $/, '\\ ')
  return [...parts].reverse().map((p) => `${p.type}=${esc(p.value)}`).join(',')
}

export type KeyAlgorithm = 'RSA-2048' | 'RSA-3072' | 'RSA-4096' | 'ECDSA-P256' | 'ECDSA-P384' | 'ECDSA-P521'

export interface KeyFacts {
  type: 'rsa' | 'ec'
  /** Modulus bits, or the curve's size. */
  bits: number
  algorithm: string
}

const CURVE_BITS: Record<string, number> = { prime256v1: 256, secp384r1: 384, secp521r1: 521 }
const CURVE_NAME: Record<number, string> = { 256: 'P256', 384: 'P384', 521: 'P521' }

/** What kind of key, how strong; null for a key of another kind (DSA, Ed25519, an unknown curve). */
export function keyFacts(key: KeyObject): KeyFacts | null {
  const d = key.asymmetricKeyDetails
  if (key.asymmetricKeyType === 'rsa' && d?.modulusLength) return { type: 'rsa', bits: d.modulusLength, algorithm: `RSA-${d.modulusLength}` }
  if (key.asymmetricKeyType === 'ec' && d?.namedCurve && CURVE_BITS[d.namedCurve]) {
    const b = CURVE_BITS[d.namedCurve]
    return { type: 'ec', bits: b, algorithm: `ECDSA-${CURVE_NAME[b]}` }
  }
  return null
}

/** How a CA with this key signs: the hash and the AlgorithmIdentifier written before the signature. */
export function signatureAlgorithm(key: KeyObject): { hash: string; identifier: Buffer } {
  const f = keyFacts(key)
  if (f?.type === 'rsa') return { hash: 'sha256', identifier: seq(oid(OID.sha256WithRSA), nullValue()) }
  if (f?.type === 'ec' && f.bits === 256) return { hash: 'sha256', identifier: seq(oid(OID.ecdsaSha256)) }
  if (f?.type === 'ec') return { hash: 'sha384', identifier: seq(oid(OID.ecdsaSha384)) }
  throw new Error('a CA key is RSA or ECDSA')
}

/** `SEQUENCE { tbs, algorithm, BIT STRING signature }`: a certificate, a CRL, a basic OCSP response. */
export function signed(tbs: Buffer, key: KeyObject, alg = signatureAlgorithm(key)): Buffer {
  // ECDSA signatures come out DER-encoded (Ecdsa-Sig-Value), as X.509 wants them.
  return seq(tbs, alg.identifier, bits(sign(alg.hash, tbs, key)))
}

/** The subjectPublicKey bits of an SPKI (what key identifiers and OCSP key hashes are taken over). */
export function publicKeyBits(spki: Buffer): Buffer {
  const [, key] = children(readRoot(spki))
  const b = content(expectTag(key, 0x03, 'subject public key'))
  return b.subarray(1)
}

/** RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
export const keyIdentifier = (spki: Buffer): Buffer => createHash('sha1').update(publicKeyBits(spki)).digest()

export const spkiOf = (key: KeyObject): Buffer => createPublicKey(key).export({ type: 'spki', format: 'der' })

/** The fields of a CA certificate the CA signs with: its subject as encoded, its key identifier, its validity. */
export interface CertificateFacts {
  subjectDer: Buffer
  subject: string
  serialHex: string
  spki: Buffer
  /** Its own subjectKeyIdentifier when it states one (an imported CA may use another method), else method 1. */
  keyId: Buffer
  notBefore: Date
  notAfter: Date
}

export function certificateFacts(der: Buffer): CertificateFacts {
  const [tbs] = children(expectTag(readRoot(der), 0x30, 'certificate'))
  const f = children(expectTag(tbs, 0x30, 'tbsCertificate'))
  const at = f[0].tag === 0xa0 ? 1 : 0
  const [serial, , , validity, subject, spki] = f.slice(at)
  const extensions = f.slice(at + 6).find((n) => n.tag === 0xa3)
  let keyId: Buffer | null = null
  if (extensions) {
    for (const ext of children(children(extensions)[0])) {
      const parts = children(ext)
      if (readOid(parts[0]) !== OID.subjectKeyIdentifier) continue
      keyId = content(readRoot(content(parts[parts.length - 1])))
    }
  }
  const [nb, na] = children(validity)
  return {
    subjectDer: Buffer.from(whole(subject)),
    subject: nameText(decodeName(subject)),
    serialHex: content(serial).toString('hex').replace(/^(00)+(?=.)/, '').toUpperCase(),
    spki: Buffer.from(whole(spki)),
    keyId: keyId ?? keyIdentifier(whole(spki)),
    notBefore: readTime(nb),
    notAfter: readTime(na),
  }
}

export function readTime(n: Node): Date {
  const s = content(n).toString('latin1')
  const m = n.tag === 0x17 ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s) : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s)
  if (!m) throw new DerError('time not in DER form')
  let y = Number(m[1])
  if (n.tag === 0x17) y += y < 50 ? 2000 : 1900
  return new Date(Date.UTC(y, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])))
}

/** A public key from SPKI DER, or null when it is not one Node can read. */
export function publicKeyFrom(spki: Buffer): KeyObject | null {
  try {
    return createPublicKey({ key: spki, format: 'der', type: 'spki' })
  } catch {
    return null
  }
}

/** KeyUsage as a DER named BIT STRING: trailing zero bits dropped (X.690 11.2.2). */
export function keyUsageValue(usages: readonly KeyUsage[]): Buffer {
  const idx = usages.map((u) => KEY_USAGE_BITS.indexOf(u))
  const last = Math.max(...idx)
  const bytes = Buffer.alloc(Math.floor(last / 8) + 1)
  for (const i of idx) bytes[i >> 3] |= 0x80 >> (i & 7)
  return bits(bytes, 7 - (last % 8))
}

export { ctx, readNode }

/**
 * The serial of a certificate as FreeRADIUS 3.2 writes TLS-Cert-Serial: the bytes of the DER
 * INTEGER (a leading 00 kept), lower-case hex.
 */
export function freeradiusSerial(pem: string): string {
  const der = Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64')
  const tbs = children(expectTag(readRoot(der), 0x30, 'certificate'))[0]
  const f = children(tbs)
  return content(f[f[0].tag === 0xa0 ? 1 : 0]).toString('hex')
}
