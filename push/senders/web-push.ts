/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and the aes128gcm payload encryption (RFC 8291), through
 * the maintained `web-push` library: the payload is encrypted to the subscription's keys, so the
 * push network carries bytes it cannot read, and the VAPID JWT tells it which server sends.
 */
import { Agent } from 'node:https'
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
}

export const generateVapidKeys = (): VapidKeys => webpush.generateVAPIDKeys()

export class WebPushSender implements PushSender {
  readonly kind = 'webpush' as const
  private readonly agent: Agent

  constructor(private readonly o: WebPushOptions) {
    // Fails at start, not at the first push: a bad subject or key is a configuration error.
    webpush.getVapidHeaders('https://push.example', o.subject, o.vapid.publicKey, o.vapid.privateKey, 'aes128gcm')
    this.agent = o.ca ? new Agent({ ca: o.ca, keepAlive: true }) : new Agent({ keepAlive: true })
  }

  /** The app's applicationServerKey (GET /v1/service). */
  get vapidPublicKey(): string {
    return this.o.vapid.publicKey
  }

  async send(address: PushAddress, payload: NotifyPayload): Promise<void> {
    if (address.kind !== 'webpush') throw new Error(`the Web Push sender cannot deliver to a ${address.kind} address`)
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
