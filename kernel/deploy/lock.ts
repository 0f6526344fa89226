/**
 * The cluster's deploy lock: one lease row (`deploy_lock`) that a deploy or a
 * rollback holds from before it renders until after its reload, so exactly one
 * runs at a time across every node sharing the database.
 *
 * Why a lease row and not a PostgreSQL advisory lock: a session advisory lock
 * lives on one connection, so the deploy would have to keep a pooled
 * connection checked out for its whole render → check → activate → reload
 * sequence (tens of seconds with a slow check). On the embedded engine PGlite
 * has a single connection, so that would stall every other query of the
 * process; behind a transaction-pooling proxy a session lock does not work at
 * all; and if the connection drops, the lock silently vanishes while the
 * deploy goes on. The lease is taken and renewed by short statements on any
 * connection, expires on its own when its holder dies (database time, so node
 * clocks do not matter), and fences the activation: the transaction that
 * marks a release active first renews the lease with its own token, so a
 * deploy whose lease was taken over cannot activate anything.
 */
import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { Logger, RowOf } from '../../sdk/index.js'
import type { DeployLockTable } from '../db/tables.js'
import { DeployErrors } from './model.js'

/** How long a lease lasts without renewal: how long the cluster waits for a node that died holding it. */
export const LEASE_MS = 20_000
/** How often the holder renews it (well inside LEASE_MS, so a slow statement or two cannot lose it). */
export const RENEW_MS = 4_000
const POLL_MS = 200
const NAME = 'deploy'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Who holds the lease, and whether it has run out (database time: a raw expression, hence holder()'s cast). */
export type LockHolder = Pick<RowOf<typeof DeployLockTable>, 'node_id' | 'pid' | 'token'> & { expired: boolean }

const inProgress = (h: LockHolder | undefined) => DeployErrors.inProgress({ vars: { node: h?.node_id ?? 'unknown', pid: h?.pid ?? 'unknown' } })

/** A held lease: renewed in the background until released. */
export class DeployLease {
  /** Set when a renewal found the lease taken over by another deploy. */
  lost = false
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly lock: ClusterDeployLock,
    readonly token: string,
  ) {
    this.timer = setInterval(() => {
      this.renew().catch((e: unknown) => {
        // A failed renewal is not a lost lease: the activation's fence is what decides.
        if (!this.lost) this.lock.log.warn({ err: (e as Error).message }, 'could not renew the deploy lock')
      })
    }, RENEW_MS)
    this.timer.unref()
  }

  /**
   * Extend the lease; with `trx`, inside the caller's transaction, where the row lock
   * taken here keeps any other node from taking the lease over until that transaction
   * ends. Throws 409 DEPLOY_IN_PROGRESS when another deploy holds it now.
   */
  async renew(trx?: Knex.Transaction): Promise<void> {
    const q = trx ?? this.lock.knex
    const n = await q('deploy_lock').where({ name: NAME, token: this.token }).update({ expires_at: this.lock.leaseEnd(q) })
    if (n === 1) return
    this.lost = true
    const holder = await this.lock.holder(q)
    this.lock.log.error({ holder }, 'the deploy lock was taken over by another deploy (this one\'s lease had expired): not activating')
    throw inProgress(holder)
  }

  async release(): Promise<void> {
    clearInterval(this.timer)
    try {
      await this.lock.knex('deploy_lock').where({ name: NAME, token: this.token }).update({ token: null, node_id: null, pid: null, acquired_at: null, expires_at: null })
    } catch (e) {
      this.lock.log.warn({ err: (e as Error).message }, `could not release the deploy lock: it expires by itself in ${LEASE_MS} ms`)
    }
  }
}

export class ClusterDeployLock {
  constructor(
    readonly knex: Knex,
    readonly nodeId: string,
    readonly log: Logger,
  ) {}

  leaseEnd(q: Knex | Knex.Transaction): Knex.Raw {
    return q.raw(`now() + ? * interval '1 millisecond'`, [LEASE_MS])
  }

  async holder(q: Knex | Knex.Transaction = this.knex): Promise<LockHolder | undefined> {
    return (await q('deploy_lock')
      .where({ name: NAME })
      .first('node_id', 'pid', 'token', q.raw('coalesce(expires_at < now(), true) as expired'))) as LockHolder | undefined
  }

  /**
   * Take the lease, waiting up to `waitMs` for the deploy holding it to finish;
   * then 409 DEPLOY_IN_PROGRESS naming the node that holds it. A lease left by a
   * node that died is taken over once it has expired.
   */
  async acquire(waitMs: number): Promise<DeployLease> {
    const token = randomUUID()
    const deadline = Date.now() + waitMs
    for (;;) {
      const h = await this.holder()
      if (!h) {
        await this.knex('deploy_lock').insert({ name: NAME }).onConflict('name').ignore()
        continue
      }
      if (h.token === null || h.expired) {
        // Conditional on the row still being free or expired: of two nodes trying at once, one wins.
        const n = await this.knex('deploy_lock')
          .where({ name: NAME })
          .andWhere((w) => w.whereNull('token').orWhere('expires_at', '<', this.knex.fn.now()))
          .update({ token, node_id: this.nodeId, pid: process.pid, acquired_at: this.knex.fn.now(), expires_at: this.leaseEnd(this.knex) })
        if (n === 1) {
          if (h.token !== null) this.log.warn({ node: h.node_id, pid: h.pid }, 'took over the deploy lock of a deploy whose lease expired (its node died or lost the database)')
          return new DeployLease(this, token)
        }
        continue
      }
      if (Date.now() >= deadline) throw inProgress(h)
      await sleep(Math.min(POLL_MS + Math.floor(Math.random() * 50), Math.max(0, deadline - Date.now())))
    }
  }

  /**
   * At boot: a lease still held under this node's id was left by a process of this node
   * that died (a live one on the same DATA_DIR is excluded by the lock file the caller
   * holds), so free it at once instead of making the cluster wait for it to expire.
   */
  async releaseStale(): Promise<void> {
    const n = await this.knex('deploy_lock').where({ name: NAME, node_id: this.nodeId }).whereNotNull('token').update({ token: null, node_id: null, pid: null, acquired_at: null, expires_at: null })
    if (n) this.log.warn('released the deploy lock that a previous run of this node left behind')
  }
}
