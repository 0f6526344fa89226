/**
 * MD4 (RFC 1320), for the NT hash MS-CHAPv2 needs. OpenSSL 3 keeps MD4 in its
 * legacy provider, which Node does not load, so it is computed here. In the
 * SDK because the kernel (the users' NT-hash verifiers) and the radius plugin
 * (its MS-CHAPv2 client) both need it.
 */
const rotl = (x: number, n: number) => (x << n) | (x >>> (32 - n))

export function md4(input: Uint8Array): Buffer {
  const len = input.length
  const padded = new Uint8Array(((len + 8) >>> 6) * 64 + 64)
  padded.set(input)
  padded[len] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(padded.length - 8, (len * 8) >>> 0, true)
  view.setUint32(padded.length - 4, Math.floor(len / 0x20000000), true)

  let a = 0x67452301, b = 0xefcdab89, c = 0x98badcfe, d = 0x10325476
  const x = new Array<number>(16)
  const F = (p: number, q: number, r: number) => (p & q) | (~p & r)
  const G = (p: number, q: number, r: number) => (p & q) | (p & r) | (q & r)
  const H = (p: number, q: number, r: number) => p ^ q ^ r
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) x[i] = view.getUint32(off + i * 4, true)
    const [aa, bb, cc, dd] = [a, b, c, d]
    for (const i of [0, 4, 8, 12]) {
      a = rotl((a + F(b, c, d) + x[i]) | 0, 3)
      d = rotl((d + F(a, b, c) + x[i + 1]) | 0, 7)
      c = rotl((c + F(d, a, b) + x[i + 2]) | 0, 11)
      b = rotl((b + F(c, d, a) + x[i + 3]) | 0, 19)
    }
    for (const i of [0, 1, 2, 3]) {
      a = rotl((a + G(b, c, d) + x[i] + 0x5a827999) | 0, 3)
      d = rotl((d + G(a, b, c) + x[i + 4] + 0x5a827999) | 0, 5)
      c = rotl((c + G(d, a, b) + x[i + 8] + 0x5a827999) | 0, 9)
      b = rotl((b + G(c, d, a) + x[i + 12] + 0x5a827999) | 0, 13)
    }
    for (const i of [0, 2, 1, 3]) {
      a = rotl((a + H(b, c, d) + x[i] + 0x6ed9eba1) | 0, 3)
      d = rotl((d + H(a, b, c) + x[i + 8] + 0x6ed9eba1) | 0, 9)
      c = rotl((c + H(d, a, b) + x[i + 4] + 0x6ed9eba1) | 0, 11)
      b = rotl((b + H(c, d, a) + x[i + 12] + 0x6ed9eba1) | 0, 15)
    }
    a = (a + aa) | 0
    b = (b + bb) | 0
    c = (c + cc) | 0
    d = (d + dd) | 0
  }
  const out = Buffer.alloc(16)
  out.writeInt32LE(a, 0)
  out.writeInt32LE(b, 4)
  out.writeInt32LE(c, 8)
  out.writeInt32LE(d, 12)
  return out
}

/** The NT hash of a password (MD4 of its UTF-16LE bytes), as MS-CHAP and FreeRADIUS's NT-Password use it. */
export const ntHash = (password: string): Buffer => md4(Buffer.from(password, 'utf16le'))
