/**
 * The mfa plugin's contract for other plugins: what the daemon renderers (radius, tacacs) need to
 * make device logins ask for the second factor through the internal surface, without reading the
 * plugin's settings or tables themselves.
 */
import type { Knex } from 'knex'
import { createServiceRef } from '../../sdk/index.js'

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
}

export const mfaServiceRef = createServiceRef<MfaService>({ id: 'mfa.service' })
