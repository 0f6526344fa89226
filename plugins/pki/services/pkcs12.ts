/**
 * Certificate bundles for one-time downloads: PKCS#12 (RFC 7292) and PEM.
 *
 * The PKCS#12 file is what OpenSSL 3 writes by default: the key as a
 * pkcs8ShroudedKeyBag (PBES2, PBKDF2-HMAC-SHA256, AES-256-CBC: Node's
 * encrypted PKCS#8 export), the certificate and its chain as certBags, the
 * key and its certificate paired by localKeyId, and the whole authenticated
 * by an HMAC-SHA256 under a key from the PKCS#12 KDF (appendix B).
 */
import { createHash, createHmac, randomBytes, type KeyObject } from 'node:crypto'
import { ctx, int, octets, oid, seq, set, toPem } from './der.js'

const P12 = {
  data: '1.2.840.113549.1.7.1',
  keyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  localKeyId: '1.2.840.113549.1.9.21',
  sha256: '2.16.840.1.101.3.4.2.1',
}
const MAC_ITERATIONS = 2048

/** RFC 7292 B.2 with SHA-256 (u = 32, v = 64), for the MAC key (id 3). */
export function pkcs12Kdf(password: Buffer, salt: Buffer, id: number, iterations: number, n: number): Buffer {
  const u = 32
  const v = 64
  const fill = (b: Buffer) => {
    if (b.length === 0) return Buffer.alloc(0)
    const out = Buffer.alloc(v * Math.ceil(b.length / v))
    for (let i = 0; i < out.length; i++) out[i] = b[i % b.length]
    return out
  }
  const D = Buffer.alloc(v, id)
  const I = Buffer.concat([fill(salt), fill(password)])
  const out: Buffer[] = []
  for (let got = 0; got < n; got += u) {
    let A = createHash('sha256').update(D).update(I).digest()
    for (let r = 1; r < iterations; r++) A = createHash('sha256').update(A).digest()
    out.push(A)
    const B = fill(A)
    // Each v-byte block of I becomes (I_j + B + 1) mod 2^(8v).
    for (let j = 0; j < I.length; j += v) {
      let carry = 1
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k] + B[k] + carry
        I[j + k] = sum & 0xff
        carry = sum >> 8
      }
    }
  }
  return Buffer.concat(out).subarray(0, n)
}

/** The password as PKCS#12 MACs want it: BMPString (UTF-16BE) with a two-byte terminator. */
function bmpPassword(p: string): Buffer {
  const le = Buffer.from(p + '\u0000', 'utf16le')
  return Buffer.from(le).swap16()
}

const dataInfo = (content: Buffer) => seq(oid(P12.data), ctx(0, octets(content)))
const localKeyId = (id: Buffer) => set(seq(oid(P12.localKeyId), set(octets(id))))

export interface Bundle {
  certificateDer: Buffer
  chainDer: Buffer[]
  key: KeyObject | null
}

/** A PKCS#12 file of the certificate, its chain and (when given) its key, under `passphrase`. */
export function pkcs12(b: Bundle, passphrase: string): Buffer {
  const keyId = createHash('sha1').update(b.certificateDer).digest()
  const certBag = (der: Buffer, own: boolean) => seq(oid(P12.certBag), ctx(0, seq(oid(P12.x509Certificate), ctx(0, octets(der)))), ...(own && b.key ? [localKeyId(keyId)] : []))
  const certs = seq(certBag(b.certificateDer, true), ...b.chainDer.map((d) => certBag(d, false)))
  const safes: Buffer[] = [dataInfo(certs)]
  if (b.key) {
    const shrouded = b.key.export({ type: 'pkcs8', format: 'der', cipher: 'aes-256-cbc', passphrase })
    safes.push(dataInfo(seq(seq(oid(P12.keyBag), ctx(0, shrouded), localKeyId(keyId)))))
  }
  const authSafe = seq(...safes)
  const salt = randomBytes(16)
  const macKey = pkcs12Kdf(bmpPassword(passphrase), salt, 3, MAC_ITERATIONS, 32)
  const mac = createHmac('sha256', macKey).update(authSafe).digest()
  return seq(int(3), dataInfo(authSafe), seq(seq(seq(oid(P12.sha256), Buffer.from([0x05, 0x00])), octets(mac)), octets(salt), int(MAC_ITERATIONS)))
}

/** PEM: the certificate, its chain, and (when given) the key as encrypted PKCS#8 under `passphrase`. */
export function pemBundle(b: Bundle, passphrase: string | null): string {
  const certs = [b.certificateDer, ...b.chainDer].map((d) => toPem(d, 'CERTIFICATE')).join('')
  if (!b.key) return certs
  return (b.key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: passphrase ?? '' }) as string) + certs
}
