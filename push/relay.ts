/**
 * The push service's side of the signed channel towards the core (sdk/signed-request.ts): each
 * mobile request is relayed to the core's /api/v1/mfa/internal/app/… with the app's body bytes
 * verbatim (the device signature covers them), the app's device headers, its language and its
 * address, signed with the shared key. The core's status and JSON body go back to the app as they
 * are. The core unreachable, slow past the timeout, or answering something that is not its JSON:
 * 503 PUSH_CORE_UNAVAILABLE.
 */
import { SIGNED_HEADERS, signRequest, verifySignedRequest, type NonceWindow } from '../sdk/signed-request.js'
import { coreUnavailable } from './errors.js'
import type { RouteAnswer } from './http.js'
import { PUSH_SERVICE_VERSION } from './version.js'

/** The app's headers the core needs (the device's signature and the language of its messages). */
const FORWARDED = ['x-device-id', 'x-device-timestamp', 'x-device-signature', 'accept-language'] as const
/** The core's answer headers the app may need (when to retry; what language the detail is in). */
const RETURNED = ['retry-after', 'content-language'] as const

export interface RelayOptions {
  /** scheme://host:port of the core. */
  coreUrl: string
  key: string
  timeoutMs: number
  /** Answers signed by the core are verified (a forged answer is refused); null: nonces not tracked. */
  nonces: NonceWindow | null
  log: (msg: string, err?: unknown) => void
}

export interface RelayRequest {
  method: string
  /** The core's path, e.g. /api/v1/mfa/internal/app/challenges (the signed path). */
  corePath: string
  raw: Buffer | null
  headers: Record<string, string | string[] | undefined>
  ip: string
}

export class CoreRelay {
  private readonly base: string

  constructor(private readonly o: RelayOptions) {
    this.base = o.coreUrl.replace(/\/+$/, '')
  }

  async relay(r: RelayRequest): Promise<RouteAnswer> {
    const body = r.raw && r.raw.length > 0 ? r.raw : null
    const headers: Record<string, string> = {
      ...signRequest(this.o.key, { method: r.method, path: r.corePath, body: body ?? '' }),
      accept: 'application/json',
      // The core shows the app which push service relayed (informational: headers are not signed).
      'x-push-service-version': PUSH_SERVICE_VERSION,
      // An IPv4 client of a dual-stack listener shows as ::ffff:a.b.c.d; the core logs and audits the plain address.
      'x-forwarded-for': r.ip.replace(/^::ffff:(?=[0-9]+\.)/i, ''),
    }
    for (const h of FORWARDED) {
      const v = r.headers[h]
      if (typeof v === 'string') headers[h] = v
    }
    if (body) headers['content-type'] = 'application/json'
    let res: Response
    let text: string
    try {
      res = await fetch(this.base + r.corePath, { method: r.method, headers, body: body ? new Uint8Array(body) : null, signal: AbortSignal.timeout(this.o.timeoutMs), redirect: 'manual' })
      text = await res.text()
    } catch (err) {
      this.o.log('the core cannot be reached', err)
      throw coreUnavailable()
    }
    // A core that signs its answers: a forged or replayed one (someone between the two) is refused.
    if (res.headers.get(SIGNED_HEADERS.signature) !== null) {
      const refusal = verifySignedRequest(this.o.key, { method: r.method, path: r.corePath, body: text }, Object.fromEntries(res.headers), this.o.nonces)
      if (refusal) {
        this.o.log(`the core's answer signature is refused (${refusal})`)
        throw coreUnavailable()
      }
    }
    const out: Record<string, string> = {}
    for (const h of RETURNED) {
      const v = res.headers.get(h)
      if (v !== null) out[h] = v
    }
    if (res.status === 204) return { status: 204, headers: out }
    // Only the core's own JSON answers go back: a proxy's HTML error page or a redirect is the core being unavailable.
    if (res.status < 200 || res.status >= 600 || (res.status >= 300 && res.status < 400) || !/^application\/json/i.test(res.headers.get('content-type') ?? '')) {
      this.o.log(`the core answered ${res.status} ${res.headers.get('content-type') ?? ''}, not its JSON`)
      throw coreUnavailable()
    }
    try {
      return { status: res.status, body: JSON.parse(text) as unknown, headers: out }
    } catch (err) {
      this.o.log('the core answered malformed JSON', err)
      throw coreUnavailable()
    }
  }
}
