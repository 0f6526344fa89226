/**
 * The push factor's shapes shared by its parts: the challenge store (services/push/), the sign-in
 * (routes/verify.ts), the daemons' surface (routes/internal-push.ts), the portal (through
 * MfaService) and the push service (push/, over the signed channel). docs/push-mfa.md.
 */

/** Where the push service delivers a device's notifications (registered by the app at enrollment). */
export type PushAddress =
  | { kind: 'webpush'; endpoint: string; keys: { p256dh: string; auth: string } }
  /** The push service's in-process queue (tests, and the scripted phones of the benchmarks). */
  | { kind: 'queue'; queue: string }

/** Who asked for the push: shown on the phone. */
export type PushOrigin = 'sign_in' | 'radius' | 'tacacs' | 'portal'

export interface PushContext {
  /** The client's address (the API caller, the RADIUS Calling-Station-Id, the TACACS+ rem_addr). */
  ip?: string
  /** The NAS or device the login is on (name or address), for device logins. */
  client?: string
}

/** A challenge's end, as every caller sees it. */
export type PushOutcome =
  | 'approved'
  | 'denied'
  /** The number typed on the phone was not the one shown: a wrong answer. */
  | 'wrong_number'
  /** The user answered "report": pushes are locked for them until cleared, and this is audited. */
  | 'reported'
  /** Nobody answered within the challenge's life. */
  | 'expired'
  /** Ended by the platform: the device was removed, the user disabled or deleted, a code was given instead. */
  | 'cancelled'

/** Why no push was sent at all. */
export type PushRefusal =
  | 'no_device'
  /** A "report" locked pushes for this user. */
  | 'locked'
  /** Too many pushes for this user in the window (MFA bombing). */
  | 'rate_limited'
  /** The push service is not configured or did not take the notification. */
  | 'unavailable'

export type PushStart = { sent: true; challengeId: string; number: string | null; expiresAt: Date } | { sent: false; refusal: PushRefusal }

/** What the daemons, the portal and the sign-in ask of the push factor. */
export interface PushProvider {
  /** True when the user has at least one push device (and so may be asked to approve). */
  hasDevice(userId: string): Promise<boolean>
  /**
   * Sends a push to every device of the user. `numberMatching`: the caller shows `number` on its
   * screen and the phone asks for it. The per-user rate limit and the report lock are checked here.
   */
  start(userId: string, opts: { origin: PushOrigin; context: PushContext; numberMatching: boolean }): Promise<PushStart>
  /**
   * Waits for the challenge's end, at most `timeoutMs`; null when still pending then. Unknown or
   * another user's challenge: 'cancelled'.
   */
  wait(userId: string, challengeId: string, timeoutMs: number): Promise<PushOutcome | null>
  /** Ends a pending challenge (a code was given instead; the caller gave up): the phone stops showing it. */
  cancel(userId: string, challengeId: string): Promise<void>
}
