/**
 * "A user's access ended" (sdk/identity.ts, `identityServices.userLifecycle`): the user routes emit it
 * after their transaction committed; the NAC ends the user's live sessions by CoA, the PKI revokes a
 * deleted user's certificates. The kernel names no plugin: whoever cares subscribes.
 */
import { AfterCommitListeners, type Logger, type UserAccessEnded, type UserAccessEndedListener, type UserLifecycleService } from '../../sdk/index.js'

export class UserLifecycle implements UserLifecycleService {
  private readonly listeners: AfterCommitListeners<UserAccessEnded>

  constructor(log: Logger) {
    this.listeners = new AfterCommitListeners(log, 'identity: a "user access ended" subscriber failed; the user change stands', (e) => ({ user_id: e.user_id, reason: e.reason }))
  }

  onAccessEnded(listener: UserAccessEndedListener): () => void {
    return this.listeners.on(listener)
  }

  /**
   * After the commit: each listener awaited in turn, so that a deploy asked right after the answer
   * already carries what they did (a revocation in the CRL). Never throws: the change stands.
   */
  async accessEnded(events: readonly UserAccessEnded[]): Promise<void> {
    for (const e of events) await this.listeners.emit(e)
  }
}

/** Why a change ended the user's access, if it did: the strongest reason (deleted is the route's own). */
export function accessEndedBy(
  before: { enabled: boolean; network_login: boolean; expires_at: string | null },
  after: { enabled: boolean; network_login: boolean; expires_at: string | null },
  now = new Date(),
): Exclude<UserAccessEnded['reason'], 'deleted'> | null {
  if (!before.enabled) return null
  if (!after.enabled) return 'disabled'
  const past = (at: string | null) => at !== null && new Date(at).getTime() <= now.getTime()
  if (!past(before.expires_at) && past(after.expires_at)) return 'expired'
  if (before.network_login && !after.network_login && !past(before.expires_at)) return 'network_login_off'
  return null
}
