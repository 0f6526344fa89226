/**
 * What other parts of the plugin run when a device gets a new configuration version: the read
 * side refreshes the latest lines it searches, compliance evaluates its rules. Ingest calls them
 * inside its transaction (so a failure stores nothing), then the callbacks they return after the
 * commit (mail, which must not go out for a version that was rolled back).
 */
import type { Knex } from 'knex'

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
