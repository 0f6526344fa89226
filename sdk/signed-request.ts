/**
 * The signed channel between the core and a remote module (the push service now; collectors and
 * remote portals later): both ends hold one shared key from their server configuration, and every
 * request in either direction carries an HMAC-SHA256 over what it does (method, path with query,
 * time, a nonce, the body's hash). A request that is altered, replayed within the window, or older
 * than the window is refused; the answer's `X-Service-Core-Version` is attached only after the
 * signature verifies (spec, "Versioning" item 4).
 *
 * No library: node:crypto's HMAC and a constant-time compare are the whole of it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

export const SIGNED_HEADERS = {
  timestamp: 'x-portcullis-timestamp',
  nonce: 'x-portcullis-nonce',
  signature: 'x-portcullis-signature',
} as const

/** How far apart two clocks may be, and how long a nonce is remembered (the same window). */
export const SIGNED_WINDOW_SECONDS = 60

export interface SignedRequestParts {
  method: string
  /** The path with its query string, as the receiver sees it (no scheme, no host). */
  path: string
  /** The exact bytes sent (an empty string for none). */
  body: string | Buffer
}

function canonical(parts: SignedRequestParts, timestamp: string, nonce: string): string {
  const bodyHash = createHash('sha256').update(parts.body).digest('hex')
  return ['portcullis-signed-request-v1', parts.method.toUpperCase(), parts.path, timestamp, nonce, bodyHash].join('\n')
}

const mac = (key: string, text: string) => createHmac('sha256', key).update(text).digest('base64url')

/** The three headers to send with a request (or an answer) of these parts. */
export function signRequest(key: string, parts: SignedRequestParts, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000))
  const nonce = randomBytes(16).toString('hex')
  return { [SIGNED_HEADERS.timestamp]: timestamp, [SIGNED_HEADERS.nonce]: nonce, [SIGNED_HEADERS.signature]: mac(key, canonical(parts, timestamp, nonce)) }
}

export type SignedRequestRefusal = 'missing' | 'stale' | 'replayed' | 'bad_signature'

/**
 * Nonces seen within the window, per process. A request replayed to another node of a cluster is
 * not caught here; every signed route is idempotent or checks its own state (a decided challenge
 * stays decided), which is what makes that acceptable.
 */
export class NonceWindow {
  private readonly seen = new Map<string, number>()
  constructor(private readonly windowSeconds = SIGNED_WINDOW_SECONDS, private readonly max = 100_000) {}

  /** False when the nonce was seen within the window; remembers it otherwise. */
  admit(nonce: string, now = Date.now()): boolean {
    const cutoff = now - 2 * this.windowSeconds * 1000
    if (this.seen.size >= this.max || this.seen.size % 1024 === 0) {
      for (const [n, at] of this.seen) if (at < cutoff) this.seen.delete(n)
      // Still full of live nonces: the oldest go first (a flood costs the flooder its own replays' protection).
      while (this.seen.size >= this.max) this.seen.delete(this.seen.keys().next().value as string)
    }
    if (this.seen.has(nonce)) return false
    this.seen.set(nonce, now)
    return true
  }
}

/** Checks the headers of a request (or an answer); null when it verifies. */
export function verifySignedRequest(
  key: string,
  parts: SignedRequestParts,
  headers: Record<string, string | string[] | undefined>,
  nonces: NonceWindow | null,
  now = Date.now(),
): SignedRequestRefusal | null {
  const one = (h: string) => {
    const v = headers[h]
    return typeof v === 'string' ? v : undefined
  }
  const timestamp = one(SIGNED_HEADERS.timestamp)
  const nonce = one(SIGNED_HEADERS.nonce)
  const signature = one(SIGNED_HEADERS.signature)
  if (!timestamp || !nonce || !signature || !/^[0-9]{1,12}$/.test(timestamp) || !/^[0-9a-f]{32}$/.test(nonce)) return 'missing'
  if (Math.abs(now / 1000 - Number(timestamp)) > SIGNED_WINDOW_SECONDS) return 'stale'
  const expected = Buffer.from(mac(key, canonical(parts, timestamp, nonce)))
  const given = Buffer.from(signature)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'bad_signature'
  // After the signature: an unsigned flood cannot fill the window.
  if (nonces && !nonces.admit(nonce, now)) return 'replayed'
  return null
}
