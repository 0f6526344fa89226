/**
 * The mfa plugin's contract for other plugins: what the daemon renderers (radius, tacacs) need to
 * make device logins ask for the second factor through the internal surface, and what the captive
 * portal needs to ask an employee for a code, without reading the plugin's settings or tables.
 */
import type { Knex } from 'knex'
import { createServiceRef } from '../../sdk/index.js'
import type { PushProvider } from './services/push/types.js'

export type * from './services/push/types.js'

/** The user's second factors: what is enrolled, and the choice (null: whatever is enrolled). */
export interface MfaFactors {
  totp: boolean
  push: boolean
  choice: 'totp' | 'push' | 'both' | null
  /** What a sign-in may use now: the choice applied to what is enrolled (a stale choice falls back to what is enrolled). */
  allowed: ('totp' | 'push')[]
  /** A "report" answer locked pushes for the user. */
  pushLocked: boolean
}

/** How a daemon reaches the internal surface; rendered only into its private (0600) files. */
export interface MfaDaemonLink {
  /** Server option mfa.internal_url: scheme, host and port, no path (null: not configured). */
  baseUrl: string | null
  /** Setting mfa.internal_key, sent in X-Internal-Key. */
  key: string
  /** The two routes, relative to baseUrl. */
  checkPath: '/api/v1/mfa/internal/check'
  verifyPath: '/api/v1/mfa/internal/verify'
}

export interface MfaService {
  /** Null while setting mfa.internal_key is null: the surface is off, and device logins take the password alone. */
  daemonLink(db?: Knex | Knex.Transaction): Promise<MfaDaemonLink | null>
  /** The user has a confirmed TOTP authenticator (a pending enrollment is none). False for an unknown id. */
  isEnrolled(userId: string): Promise<boolean>
  /**
   * Checks a TOTP code of the user's confirmed authenticator and spends its time step, as the
   * sign-in does (services/totp-store.ts consume): a code accepted once, by any surface, is never
   * accepted again, and of two requests racing with one code only one passes. False for a wrong,
   * replayed or malformed code and for a user without an authenticator. Counts no attempts: the
   * caller bounds the tries (the sign-in's budget is its mfa token's).
   */
  verifyCode(userId: string, code: string): Promise<boolean>
  /** The push factor (docs/push-mfa.md): send a push, wait for the phone's answer, cancel it. */
  push: PushProvider
  /** What the user has and may use; all false for an unknown id. */
  factorsOf(userId: string): Promise<MfaFactors>
}

export const mfaServiceRef = createServiceRef<MfaService>({ id: 'mfa.service' })
