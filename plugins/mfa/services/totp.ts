/**
 * TOTP (RFC 6238) over HOTP (RFC 4226) with HMAC-SHA1, and the base32
 * (RFC 4648) that authenticator apps expect for the seed. SHA-1 stays: it is
 * what every authenticator app implements, and HMAC-SHA1 is not weakened by
 * SHA-1 collisions.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

export const TOTP_DIGITS = 6
export const TOTP_PERIOD = 30
/** Steps accepted either side of now: tolerates a phone clock 30 s off and a code typed as it rolls over. */
export const TOTP_WINDOW = 1

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** Unpadded: authenticator apps and otpauth URIs omit the `=`. */
export function base32Encode(data: Uint8Array): string {
  let out = ''
  let bits = 0
  let value = 0
  for (const byte of data) {
    value = ((value << 8) | byte) & 0xffff
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31]
  return out
}

/** Case-insensitive; spaces, dashes and padding are ignored because people copy seeds by hand. */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=-]/g, '').toUpperCase()
  const out: number[] = []
  let bits = 0
  let value = 0
  for (const ch of clean) {
    const v = ALPHABET.indexOf(ch)
    if (v < 0) throw new Error(`invalid base32 character "${ch}"`)
    value = ((value << 5) | v) & 0xffff
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

export function hotp(key: Uint8Array, counter: number | bigint, digits = TOTP_DIGITS): string {
  const msg = Buffer.alloc(8)
  msg.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac('sha1', key).update(msg).digest()
  const offset = mac[mac.length - 1] & 0x0f
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3]
  return String(binary % 10 ** digits).padStart(digits, '0')
}

/** The time step a Unix time in milliseconds falls in. */
export const timeStep = (nowMs: number, period = TOTP_PERIOD): number => Math.floor(nowMs / 1000 / period)

export function totp(key: Uint8Array, nowMs: number, o: { digits?: number; period?: number } = {}): string {
  return hotp(key, timeStep(nowMs, o.period), o.digits)
}

/** Compares in constant time so the answer's timing says nothing about how many digits matched. */
export function sameCode(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * The step the code belongs to within ±window of now, skipping steps at or
 * before `lastStep` (already spent: a replay), or null.
 */
export function matchStep(key: Uint8Array, code: string, o: { nowMs: number; lastStep: number | null; window?: number; digits?: number }): number | null {
  const now = timeStep(o.nowMs)
  const window = o.window ?? TOTP_WINDOW
  let found: number | null = null
  // Every candidate is computed, match or not, so timing does not reveal which step matched.
  for (let step = now - window; step <= now + window; step++) {
    if (o.lastStep !== null && step <= o.lastStep) continue
    if (sameCode(hotp(key, step, o.digits), code) && found === null) found = step
  }
  return found
}
