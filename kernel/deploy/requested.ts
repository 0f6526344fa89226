/**
 * Deploys the platform asks for itself: data a daemon answers from changed
 * outside an administrator's edit (a guest registered at the captive portal,
 * whose endpoint group FreeRADIUS reads from its rendered tree). Requests are
 * coalesced per daemon: a deploy starts GATHER_MS after the first request
 * (those arriving meanwhile share it: a burst of approvals costs one deploy,
 * not one each and not two in a row), and those that arrive while it runs
 * share the next one. Each
 * request resolves once a release rendered after it is active on this node
 * (and its reload ran), and rejects with that deploy's error.
 */
import type { Logger } from '../../sdk/index.js'

interface Waiters {
  comments: Set<string>
  resolve: () => void
  reject: (e: unknown) => void
  promise: Promise<void>
}

/** How long a first request waits for others to join its deploy: short beside a deploy (render, check, reload: hundreds of ms). */
export const GATHER_MS = 100

export function deployRequests(deploy: (daemon: string, comment: string) => Promise<unknown>, log: Logger, gatherMs = GATHER_MS) {
  const next = new Map<string, Waiters>()
  const running = new Set<string>()

  const run = (daemon: string) => {
    const batch = next.get(daemon)
    if (!batch || running.has(daemon)) return
    next.delete(daemon)
    running.add(daemon)
    const comment = [...batch.comments].slice(0, 5).join('; ') + (batch.comments.size > 5 ? ` (+${batch.comments.size - 5} more)` : '')
    deploy(daemon, comment)
      .then(() => batch.resolve(), (e: unknown) => {
        log.warn({ daemon, err: (e as Error).message }, 'a deploy the platform asked for failed')
        batch.reject(e)
      })
      .finally(() => {
        running.delete(daemon)
        run(daemon)
      })
  }

  return {
    request(daemon: string, comment: string): Promise<void> {
      let w = next.get(daemon)
      if (!w) {
        let resolve!: () => void
        let reject!: (e: unknown) => void
        const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)))
        // A caller that does not wait must not leave an unhandled rejection behind.
        promise.catch(() => undefined)
        w = { comments: new Set(), resolve, reject, promise }
        next.set(daemon, w)
      }
      const first = w.comments.size === 0
      w.comments.add(comment)
      if (first) setTimeout(() => run(daemon), gatherMs)
      return w.promise
    },
  }
}
