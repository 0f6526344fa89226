/**
 * What other parts of the plugin run when a device gets a new configuration version: the read
 * side refreshes the latest lines it searches, compliance evaluates its rules. Ingest calls them
 * inside its transaction (so a failure stores nothing), then the callbacks they return after the
 * commit (mail, which must not go out for a version that was rolled back). The callbacks run in the
 * background: a mail server that does not answer must not hold the collector's upload (which would
 * time out and retry). They are kept while in flight, so the plugin's stop can wait for them.
 */
import type { Knex } from 'knex'
import type { Logger } from '../../../sdk/index.js'

export interface NewVersion {
  deviceId: string
  versionId: string
  previousVersionId: string | null
  /** The stripped, unmasked text: never leaves the server. */
  raw: string
  masked: string
  collectorId: string
  firstFinishedAt: Date
}

export type AfterCommit = () => Promise<void>
export type NewVersionHook = (trx: Knex.Transaction, v: NewVersion) => Promise<AfterCommit | void>

export class VersionHooks {
  private readonly hooks: NewVersionHook[] = []
  private readonly inFlight = new Set<Promise<void>>()

  add(h: NewVersionHook): void {
    this.hooks.push(h)
  }

  /** One after another: a transaction is one connection, which takes one query at a time. */
  async run(trx: Knex.Transaction, v: NewVersion): Promise<AfterCommit[]> {
    const after: AfterCommit[] = []
    for (const h of this.hooks) {
      const cb = await h(trx, v)
      if (cb) after.push(cb)
    }
    return after
  }

  /**
   * Starts the callbacks of a committed version, one after another, without waiting for them: a
   * failure is logged with the device and version, never thrown to the caller.
   */
  afterCommit(callbacks: readonly AfterCommit[], v: Pick<NewVersion, 'deviceId' | 'versionId'>, logger: Logger): void {
    if (!callbacks.length) return
    const run = (async () => {
      for (const cb of callbacks) {
        try {
          await cb()
        } catch (e) {
          logger.error({ err: e, device: v.deviceId, version: v.versionId }, 'ncm: a new-version callback failed after the commit')
        }
      }
    })()
    this.inFlight.add(run)
    void run.finally(() => this.inFlight.delete(run))
  }

  /** Waits for the callbacks in flight (and any they start meanwhile), at most `ms`; true when none is left. */
  async settled(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms
    while (this.inFlight.size > 0) {
      const left = deadline - Date.now()
      if (left <= 0) return false
      let timer: NodeJS.Timeout | undefined
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((res) => (timer = setTimeout(res, left)))])
      clearTimeout(timer)
    }
    return true
  }
}

/**
 * What other parts run when a device's history goes (DELETE /ncm/devices/{id}/history, or the
 * device leaves the inventory): the read side drops its latest lines, compliance its results. In
 * the deleting transaction.
 */
export type ForgetHook = (trx: Knex.Transaction, deviceIds: readonly string[]) => Promise<void>

export class ForgetHooks {
  private readonly hooks: ForgetHook[] = []

  add(h: ForgetHook): void {
    this.hooks.push(h)
  }

  async run(trx: Knex.Transaction, deviceIds: readonly string[]): Promise<void> {
    for (const h of this.hooks) await h(trx, deviceIds)
  }
}
