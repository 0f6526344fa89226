/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and the aes128gcm payload encryption (RFC 8291), through
 * the maintained `web-push` library: the payload is encrypted to the subscription's keys, so the
 * push network carries bytes it cannot read, and the VAPID JWT tells it which server sends.
 */
import { Agent } from 'node:https'
import { isIP } from 'node:net'
import webpush from 'web-push'
import type { NotifyPayload, PushAddress, PushSender } from './sender.js'

export interface VapidKeys {
  /** base64url of the uncompressed P-256 point (65 bytes): the app's applicationServerKey. */
  publicKey: string
  /** base64url of the 32-byte private scalar. */
  privateKey: string
}

export interface WebPushOptions {
  vapid: VapidKeys
  /** The VAPID `sub` claim: a mailto: or https: contact for the push network's operator. */
  subject: string
  /** How long the push network keeps an undelivered message: a challenge's longest life. */
  ttlSeconds?: number
  /** Extra CA certificates (PEM) for a push network with a private CA: a self-hosted one, or the tests' local endpoint. */
  ca?: string
  timeoutMs?: number
  /**
   * The push networks it posts to (PUSH_WEBPUSH_ALLOWED_HOSTS): host suffixes, `*.x` for x's
   * subdomains only. Default: the public push networks (DEFAULT_WEBPUSH_HOSTS).
   */
  allowedHosts?: readonly string[]
}

/**
 * The public push networks of the browsers and phone platforms (Chrome/Android, Firefox, Safari/iOS,
 * Edge/Windows). An endpoint elsewhere is refused: the endpoint is whatever the enrolling phone says,
 * and the push service must not become a way to make requests to the operator's internal addresses.
 */
export const DEFAULT_WEBPUSH_HOSTS: readonly string[] = [
  'fcm.googleapis.com',
  'push.api.chrome.google.com',
  'updates.push.services.mozilla.com',
  'push.services.mozilla.com',
  'web.push.apple.com',
  '*.notify.windows.com',
]

/** An entry of PUSH_WEBPUSH_ALLOWED_HOSTS: a DNS name or an IP literal, optionally `*.` before a DNS name. */
const HOST_ENTRY = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/

/** The entries, lower-cased; throws on one that is no host (a typo must fail the start, not every push). */
export function parseAllowedHosts(list: string): string[] {
  const hosts = list.split(',').map((h) => h.trim().toLowerCase().replace(/\.$/, '')).filter((h) => h !== '')
  for (const h of hosts) if (!HOST_ENTRY.test(h)) throw new Error(`"${h}" is not a host name (e.g. fcm.googleapis.com or *.notify.windows.com)`)
  if (hosts.length === 0) throw new Error('names no host (leave it unset for the public push networks)')
  return hosts
}

/**
 * Whether `endpoint` is an https: URL on an allowed host: `x` allows x and its subdomains, `*.x`
 * only x's subdomains, an IP address itself only. Null when allowed, else why not (for the log).
 */
export function endpointRefusal(endpoint: string, allowed: readonly string[]): string | null {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    return 'not a URL'
  }
  if (url.protocol !== 'https:') return `${url.protocol} is not https:`
  const host = url.hostname.toLowerCase().replace(/\.$/, '')
  const ip = isIP(host.replace(/^\[|\]$/g, '')) !== 0
  const ok = allowed.some((entry) => host === entry || (!ip && (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host.endsWith(`.${entry}`))))
  return ok ? null : `${host} is not an allowed push network (PUSH_WEBPUSH_ALLOWED_HOSTS)`
}

export const generateVapidKeys = (): VapidKeys => webpush.generateVAPIDKeys()

export class WebPushSender implements PushSender {
  readonly kind = 'webpush' as const
  private readonly agent: Agent
  readonly allowedHosts: readonly string[]

  constructor(private readonly o: WebPushOptions) {
    this.allowedHosts = o.allowedHosts ?? DEFAULT_WEBPUSH_HOSTS
    // Fails at start, not at the first push: a bad subject or key is a configuration error.
    webpush.getVapidHeaders('https://push.example', o.subject, o.vapid.publicKey, o.vapid.privateKey, 'aes128gcm')
    this.agent = o.ca ? new Agent({ ca: o.ca, keepAlive: true }) : new Agent({ keepAlive: true })
  }

  /** The app's applicationServerKey (GET /v1/service). */
  get vapidPublicKey(): string {
    return this.o.vapid.publicKey
  }

  /** Why it would not deliver to `address` (its endpoint is not on an allowed push network), or null. */
  refusal(address: PushAddress): string | null {
    if (address.kind !== 'webpush') return `the Web Push sender cannot deliver to a ${address.kind} address`
    return endpointRefusal(address.endpoint, this.allowedHosts)
  }

  async send(address: PushAddress, payload: NotifyPayload): Promise<void> {
    if (address.kind !== 'webpush') throw new Error(`the Web Push sender cannot deliver to a ${address.kind} address`)
    // Checked at enrollment too; again here, for addresses registered before the list changed.
    const refused = endpointRefusal(address.endpoint, this.allowedHosts)
    if (refused) throw new Error(`not sent: ${refused}`)
    await webpush.sendNotification({ endpoint: address.endpoint, keys: address.keys }, JSON.stringify(payload), {
      vapidDetails: { subject: this.o.subject, publicKey: this.o.vapid.publicKey, privateKey: this.o.vapid.privateKey },
      TTL: this.o.ttlSeconds ?? 120,
      // RFC 8030 §5.3: someone is waiting at a sign-in screen.
      urgency: 'high',
      contentEncoding: 'aes128gcm',
      timeout: this.o.timeoutMs ?? 10_000,
      agent: this.agent,
    })
  }

  async close(): Promise<void> {
    this.agent.destroy()
  }
}
