/**
 * DER, the encoding every X.509 structure travels in: a writer for what the CA
 * signs (certificates, CRLs, OCSP responses) and a reader for what clients
 * send (PKCS#10 requests, OCSP requests, imported certificates).
 *
 * Our own small codec rather than a schema library: the CRL of 100,000
 * revoked certificates is a loop of `seq(int, time, ext)` here (a few hundred
 * milliseconds), the reader refuses anything that is not DER (indefinite
 * lengths, lengths past the end, trailing bytes) so a hostile CSR cannot
 * make it guess, and signing stays with Node's crypto (OpenSSL). Every
 * structure it writes is checked by the real openssl in the plugin's tests.
 */
import { createHash } from 'node:crypto'

/** The header bytes of a TLV: tag, then the definite length (short or long form). */
function header(tag: number, length: number): Buffer {
  if (length < 0x80) return Buffer.from([tag, length])
  const bytes: number[] = []
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff)
  return Buffer.from([tag, 0x80 | bytes.length, ...bytes])
}

export const tlv = (tag: number, content: Buffer): Buffer => Buffer.concat([header(tag, content.length), content])
export const seq = (...parts: Buffer[]): Buffer => tlv(0x30, Buffer.concat(parts))
export const set = (...parts: Buffer[]): Buffer => tlv(0x31, Buffer.concat(parts))
export const octets = (b: Buffer): Buffer => tlv(0x04, b)
export const nullValue = (): Buffer => Buffer.from([0x05, 0x00])
export const bool = (v: boolean): Buffer => Buffer.from([0x01, 0x01, v ? 0xff : 0x00])
export const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'))
export const printable = (s: string): Buffer => tlv(0x13, Buffer.from(s, 'latin1'))
export const ia5 = (s: string, tag = 0x16): Buffer => tlv(tag, Buffer.from(s, 'latin1'))
/** Context-specific tag `n`: constructed (EXPLICIT, or an IMPLICIT SEQUENCE) or primitive. */
export const ctx = (n: number, content: Buffer, constructed = true): Buffer => tlv((constructed ? 0xa0 : 0x80) | n, content)
/** A BIT STRING of whole bytes (signatures, public keys). */
export const bits = (b: Buffer, unused = 0): Buffer => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]))
export const enumerated = (n: number): Buffer => Buffer.from([0x0a, 0x01, n])

/** A non-negative INTEGER from its big-endian magnitude (a serial) or a small number. */
export function int(v: Buffer | number | bigint): Buffer {
  let b: Buffer
  if (Buffer.isBuffer(v)) b = v
  else {
    let hex = BigInt(v).toString(16)
    if (hex.length % 2) hex = '0' + hex
    b = Buffer.from(hex, 'hex')
  }
  let i = 0
  while (i < b.length - 1 && b[i] === 0 && b[i + 1] < 0x80) i++
  b = b.subarray(i)
  if (b.length === 0) b = Buffer.from([0])
  // The high bit would make it negative: a leading zero keeps it positive.
  if (b[0] & 0x80) b = Buffer.concat([Buffer.from([0]), b])
  return tlv(0x02, b)
}

const oidCache = new Map<string, Buffer>()
export function oid(dotted: string): Buffer {
  const hit = oidCache.get(dotted)
  if (hit) return hit
  const arcs = dotted.split('.').map((a) => BigInt(a))
  const out: number[] = []
  const push = (n: bigint) => {
    const chunk: number[] = [Number(n & 0x7fn)]
    for (n >>= 7n; n > 0n; n >>= 7n) chunk.unshift(Number(n & 0x7fn) | 0x80)
    out.push(...chunk)
  }
  push(arcs[0] * 40n + arcs[1])
  for (const a of arcs.slice(2)) push(a)
  const enc = tlv(0x06, Buffer.from(out))
  oidCache.set(dotted, enc)
  return enc
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')
const stamp = (d: Date) => `${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`
export const generalizedTime = (d: Date): Buffer => tlv(0x18, Buffer.from(`${pad(d.getUTCFullYear(), 4)}${stamp(d)}`, 'latin1'))
/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050. */
export function time(d: Date): Buffer {
  const y = d.getUTCFullYear()
  return y < 2050 ? tlv(0x17, Buffer.from(`${pad(y % 100)}${stamp(d)}`, 'latin1')) : generalizedTime(d)
}

/** One extension: `SEQUENCE { extnID, critical DEFAULT FALSE, extnValue OCTET STRING }`. */
export const extension = (id: string, value: Buffer, critical = false): Buffer => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value))

// ---------------------------------------------------------------- reading

/** One TLV read from a buffer: where its header starts, its content, and where it ends. */
export interface Node {
  tag: number
  start: number
  contentStart: number
  end: number
  buf: Buffer
}

export class DerError extends Error {}

export function readNode(buf: Buffer, at: number, limit = buf.length): Node {
  if (at + 2 > limit) throw new DerError('truncated')
  const tag = buf[at]
  // Only single-byte tags occur in the structures we read.
  if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte tag')
  let len = buf[at + 1]
  let p = at + 2
  if (len & 0x80) {
    const n = len & 0x7f
    if (n === 0) throw new DerError('indefinite length is not DER')
    if (n > 4 || p + n > limit) throw new DerError('length out of range')
    len = 0
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i]
    if (len < 0x80 || buf[p] === 0) throw new DerError('length not in its shortest form')
    p += n
  }
  if (p + len > limit) throw new DerError('length past the end')
  return { tag, start: at, contentStart: p, end: p + len, buf }
}

/** The whole buffer is exactly one TLV. */
export function readRoot(buf: Buffer): Node {
  const n = readNode(buf, 0)
  if (n.end !== buf.length) throw new DerError('trailing bytes')
  return n
}

export function children(n: Node): Node[] {
  const out: Node[] = []
  for (let p = n.contentStart; p < n.end; ) {
    const c = readNode(n.buf, p, n.end)
    out.push(c)
    p = c.end
  }
  return out
}

export const content = (n: Node): Buffer => n.buf.subarray(n.contentStart, n.end)
export const whole = (n: Node): Buffer => n.buf.subarray(n.start, n.end)

/** `n` when it is there with this tag; a missing field is a DerError too, never a TypeError. */
export function expectTag(n: Node | undefined, tag: number, what: string): Node {
  if (!n) throw new DerError(`${what}: missing`)
  if (n.tag !== tag) throw new DerError(`${what}: unexpected tag 0x${n.tag.toString(16)}`)
  return n
}

export function readOid(n: Node | undefined): string {
  const b = content(expectTag(n, 0x06, 'object identifier'))
  const arcs: bigint[] = []
  let v = 0n
  for (const byte of b) {
    v = (v << 7n) | BigInt(byte & 0x7f)
    if (!(byte & 0x80)) {
      arcs.push(v)
      v = 0n
    }
  }
  if (arcs.length === 0) throw new DerError('empty object identifier')
  const first = arcs[0] < 80n ? arcs[0] / 40n : 2n
  return [first, arcs[0] - first * 40n, ...arcs.slice(1)].join('.')
}

/** The text of a directory string (UTF8, Printable, IA5, Teletex as Latin-1, BMP). */
export function readString(n: Node): string {
  const b = content(n)
  switch (n.tag) {
    case 0x0c:
      return b.toString('utf8')
    case 0x13:
    case 0x16:
    case 0x14:
      return b.toString('latin1')
    case 0x1e: {
      const swapped = Buffer.from(b)
      swapped.swap16()
      return swapped.toString('utf16le')
    }
    default:
      throw new DerError(`unsupported string type 0x${n.tag.toString(16)}`)
  }
}

/** `-----BEGIN label-----` blocks of a PEM text, in order, as DER. */
export function pemBlocks(text: string, label: string): Buffer[] {
  const re = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+?)-----END ${label}-----`, 'g')
  return [...text.matchAll(re)].map((m) => Buffer.from(m[1].replace(/\s+/g, ''), 'base64'))
}

/** SHA-256 of the first certificate's DER, colon-separated upper-case hex, as `openssl x509 -fingerprint -sha256` prints it. */
export function fingerprint256(pem: string): string {
  const der = pemBlocks(pem, 'CERTIFICATE')[0]
  return der ? createHash('sha256').update(der).digest('hex').toUpperCase().replace(/(..)(?!$)/g, '$1:') : ''
}

export const toPem = (der: Buffer, label: string): string => `-----BEGIN ${label}-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END ${label}-----\n`
