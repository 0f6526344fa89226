/**
 * How a notification leaves the push service: one sender per process, chosen by PUSH_SENDER.
 *
 * A sender gets the device's push address (registered by the app at enrollment, kept by the core)
 * and a payload that holds no user data: `{type: 'challenge'|'cancel', challenge_id, burst_count}`.
 * The phone wakes on it and fetches GET /v1/challenges itself, signed with its device key, so a
 * push network (Apple's, Google's, a browser vendor's) learns nothing but that something happened.
 *
 * `send` resolves when the push network took the message, rejects when it refused it or could not
 * be reached. The notify route does not wait for it (the core is answered 202 at once); failures
 * are logged. A sender must not retry for longer than a challenge lives (mfa.push_timeout_seconds,
 * at most 120 s): a late push shows a challenge that has ended.
 *
 * Adapters for later, behind this same interface (docs/push-mfa.md):
 * - APNs: address `{kind: 'apns', token, topic}`; HTTP/2 POST to api.push.apple.com/3/device/<token>
 *   with a provider token (ES256 JWT from the team's .p8 key), `apns-push-type: alert`,
 *   `apns-priority: 10`, `apns-expiration` = the challenge's end.
 * - FCM: address `{kind: 'fcm', token}`; POST to the FCM HTTP v1 API with an OAuth token of a
 *   service account, `android.priority: high`, `ttl` = the challenge's life, the payload as `data`.
 * Each adds its kind to PushAddress (push/schemas.ts) and is picked by PUSH_SENDER.
 */
import type { NotifyPayload, PushAddress } from '../schemas.js'

export type { NotifyPayload, PushAddress }

export interface PushSender {
  /** The address kind it delivers to (`webpush`, `queue`; later `apns`, `fcm`). */
  readonly kind: PushAddress['kind']
  send(address: PushAddress, payload: NotifyPayload): Promise<void>
  /**
   * Why it would not deliver to an address of its kind (Web Push: the endpoint is not on an allowed
   * push network), or null. Asked at enrollment, so a phone cannot register an address it refuses.
   */
  refusal?(address: PushAddress): string | null
  /** Ends what it holds open (connections, waiters). */
  close?(): Promise<void>
}
