/**
 * SHA-512 crypt (`$6$`), as Ulrich Drepper's "Unix crypt using SHA-256 and
 * SHA-512" specifies it and glibc, OpenSSL (`openssl passwd -6`), FreeRADIUS
 * and tac_plus-ng compute it. Our own because the npm package used before
 * (unixcrypt 3.0.4) skipped a whole block of digest B and of the P sequence
 * whenever the password's length in bytes was a multiple of 64, so 64-, 128-,
 * 192- and 256-byte passwords got verifiers no daemon accepts. SHA-512 itself
 * comes from node:crypto; only the construction is here.
 *
 * In the SDK because the kernel (the users' verifiers) and the tacacs plugin (its
 * profiles' enable secrets) both need it. Checked in test/identity/sha512-crypt.test.ts against the specification's
 * vectors (rounds= included) and against `openssl passwd -6` at every length
 * from 1 to 256 bytes, multi-byte UTF-8 included.
 */
import crypto, { createHash, randomInt, timingSafeEqual } from 'node:crypto'

export const ROUNDS_DEFAULT = 5000
export const ROUNDS_MIN = 1000
export const ROUNDS_MAX = 999_999_999
export const SALT_MAX = 16

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** The spec's byte order of the final digest, three bytes to four characters (the last group: one byte, two characters). */
const ORDER = [
  [0, 21, 42], [22, 43, 1], [44, 2, 23], [3, 24, 45], [25, 46, 4], [47, 5, 26], [6, 27, 48],
  [28, 49, 7], [50, 8, 29], [9, 30, 51], [31, 52, 10], [53, 11, 32], [12, 33, 54], [34, 55, 13],
  [56, 14, 35], [15, 36, 57], [37, 58, 16], [59, 17, 38], [18, 39, 60], [40, 61, 19], [62, 20, 41],
] as const

// One call per round; crypto.hash came with Node 20.12 and package.json allows 20.6, hence the fallback.
const oneShot: (b: Buffer) => Buffer =
  typeof crypto.hash === 'function' ? (b) => crypto.hash('sha512', b, 'buffer') : (b) => createHash('sha512').update(b).digest()

const sha512 = (...parts: Buffer[]) => {
  const h = createHash('sha512')
  for (const p of parts) h.update(p)
  return h.digest()
}

/** `digest` repeated and cut to `length` bytes (steps 16 and 20: the P and S sequences). */
function sequence(digest: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length)
  for (let off = 0; off < length; off += 64) digest.copy(out, off, 0, Math.min(64, length - off))
  return out
}

function encode(d: Buffer): string {
  let out = ''
  const put = (w: number, n: number) => {
    for (let i = 0; i < n; i++, w >>>= 6) out += ITOA64[w & 0x3f]
  }
  for (const [a, b, c] of ORDER) put((d[a] << 16) | (d[b] << 8) | d[c], 4)
  put(d[63], 2)
  return out
}

/** The 86-character hash of `key` (bytes) with `salt` (at most 16 bytes) and `rounds`. */
export function sha512CryptHash(key: Buffer, salt: Buffer, rounds: number): string {
  const b = sha512(key, salt, key)
  const a = createHash('sha512').update(key).update(salt)
  // Step 10: one B for every whole 64-byte block of the key, then as many bytes of B as remain.
  // A key of exactly 64·n bytes takes n whole Bs and no remainder: the case the old package got wrong.
  let n = key.length
  for (; n > 64; n -= 64) a.update(b)
  a.update(b.subarray(0, n))
  for (let bits = key.length; bits > 0; bits >>>= 1) a.update(bits & 1 ? b : key)
  let c: Buffer = a.digest()

  const dp = createHash('sha512')
  for (let i = 0; i < key.length; i++) dp.update(key)
  const p = sequence(dp.digest(), key.length)
  const ds = createHash('sha512')
  for (let i = 0; i < 16 + c[0]; i++) ds.update(salt)
  const s = sequence(ds.digest(), salt.length)

  // Step 21, the cost of the scheme: each round hashes one buffer assembled in place (one call into
  // OpenSSL per round rather than four updates, several times faster).
  const buf = Buffer.alloc(64 + s.length + 2 * p.length)
  for (let i = 0; i < rounds; i++) {
    let at = (i & 1 ? p : c).copy(buf, 0)
    if (i % 3) at += s.copy(buf, at)
    if (i % 7) at += p.copy(buf, at)
    at += (i & 1 ? c : p).copy(buf, at)
    c = oneShot(buf.subarray(0, at))
  }
  return encode(c)
}

export interface CryptSetting {
  salt: string
  /** Given only when the setting names them (`rounds=N$`): then the output names them too. */
  rounds?: number
}

/**
 * The salt and rounds of a `$6$[rounds=N$]salt[$hash]` string, as glibc reads it: the salt ends at
 * the next `$` and is cut to 16 characters; rounds are clamped to 1000..999,999,999. Null when it is
 * not a SHA-512 crypt string.
 */
export function parseSetting(setting: string): CryptSetting | null {
  if (!setting.startsWith('$6$')) return null
  let rest = setting.slice(3)
  let rounds: number | undefined
  const m = /^rounds=(\d{1,10})\$/.exec(rest)
  if (m) {
    rounds = Math.min(ROUNDS_MAX, Math.max(ROUNDS_MIN, Number(m[1])))
    rest = rest.slice(m[0].length)
  }
  const end = rest.indexOf('$')
  return { salt: (end < 0 ? rest : rest.slice(0, end)).slice(0, SALT_MAX), rounds }
}

/** 16 random characters of the crypt alphabet (96 bits). */
export function randomSalt(): string {
  let s = ''
  for (let i = 0; i < SALT_MAX; i++) s += ITOA64[randomInt(ITOA64.length)]
  return s
}

/** `$6$[rounds=N$]salt$hash` of a password (its UTF-8 bytes); a fresh random salt unless one is given. */
export function sha512Crypt(password: string | Buffer, setting: CryptSetting = { salt: randomSalt() }): string {
  const key = typeof password === 'string' ? Buffer.from(password, 'utf8') : password
  const salt = setting.salt.slice(0, SALT_MAX)
  const rounds = setting.rounds === undefined ? ROUNDS_DEFAULT : Math.min(ROUNDS_MAX, Math.max(ROUNDS_MIN, setting.rounds))
  const head = setting.rounds === undefined ? `$6$${salt}` : `$6$rounds=${rounds}$${salt}`
  return `${head}$${sha512CryptHash(key, Buffer.from(salt, 'utf8'), rounds)}`
}

/** Whether `password` gives `hash` (same salt and rounds); compared in constant time. */
export function sha512CryptMatches(password: string | Buffer, hash: string): boolean {
  const setting = parseSetting(hash)
  if (!setting) return false
  const again = Buffer.from(sha512Crypt(password, setting))
  const given = Buffer.from(hash)
  return again.length === given.length && timingSafeEqual(again, given)
}
