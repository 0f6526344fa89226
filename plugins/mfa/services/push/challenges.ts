/**
 * The push factor (PushProvider): a challenge is a row; sending it asks the push service to notify
 * every phone of the user; the phone's signed answer decides it; callers wait on the row.
 *
 * MFA bombing: at most PUSH_RATE_LIMIT pushes per user in its window (then `rate_limited`, audited
 * once a window); challenges within BURST_SECONDS of the previous one join its burst, so the phone
 * shows "3 requests" with one "report" answer; a report ends the burst and locks pushes for the user.
 *
 * wait(): an answer on this node wakes its waiters at once (EventEmitter); an answer that lands on
 * another node of a cluster is seen by a poll of the row every 250 ms.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import type { Knex } from 'knex'
import type { AuditService, IdentityService, Logger } from '../../../../sdk/index.js'
import type { PushChallengeRow, PushDeviceRow, PushState } from '../../tables.js'
import { isUuid, type PushDevices } from './devices.js'
import type { UserFactors } from './factors.js'
import { notify, type NotifyTarget } from './notify.js'
import type { PushContext, PushOrigin, PushOutcome, PushProvider, PushStart } from './types.js'

/** Pushes per user: enough for a person retrying, too few to wear them down. */
export const PUSH_RATE_LIMIT = { max: 5, windowSeconds: 300 } as const
/** A challenge this soon after the user's previous one is part of the same burst on the phone. */
export const BURST_SECONDS = 120
export const POLL_MS = 250

export type Decision = 'approve' | 'deny' | 'report'
export type AnswerResult = 'approved' | 'denied' | 'wrong_number' | 'reported'

export interface PendingChallenge {
  id: string
  nonce: string
  origin: PushOrigin
  context: PushContext & { username: string }
  created_at: string
  expires_at: string
  number_matching: boolean
  burst: { id: string; count: number }
}

export class AnswerError extends Error {
  constructor(readonly reason: 'not_found' | 'signature' | 'closed') {
    super(reason)
  }
}

export interface PushChallengeDeps {
  knex: Knex
  identity: IdentityService
  devices: PushDevices
  factors: UserFactors
  audit: AuditService
  log: Logger
  target: () => NotifyTarget
  timeoutSeconds: () => Promise<number>
}

export class PushChallenges implements PushProvider {
  private readonly events = new EventEmitter()

  constructor(private readonly d: PushChallengeDeps) {
    this.events.setMaxListeners(0)
  }

  async hasDevice(userId: string): Promise<boolean> {
    return isUuid(userId) && (await this.d.devices.count(userId)) > 0
  }

  start(userId: string, opts: { origin: PushOrigin; context: PushContext; numberMatching: boolean }): Promise<PushStart> {
    return this.send(userId, opts, null)
  }

  /** start(), tied to an API sign-in's mfa token: only that token's poll may read the challenge. */
  async send(userId: string, opts: { origin: PushOrigin; context: PushContext; numberMatching: boolean }, tokenJti: string | null): Promise<PushStart> {
    const { knex } = this.d
    const user = isUuid(userId) ? await this.d.identity.findUser({ id: userId }) : null
    // A disabled account is asked nothing: its phone gets no push it could approve.
    if (!user || !user.enabled) return { sent: false, refusal: 'no_device' }
    const devices = await this.d.devices.list(userId)
    if (!devices.length) return { sent: false, refusal: 'no_device' }
    if ((await this.d.factors.get(userId)).lockedAt) return { sent: false, refusal: 'locked' }
    const target = this.d.target()
    if (!target.url || !target.key) return { sent: false, refusal: 'unavailable' }

    const now = new Date()
    const expiresAt = new Date(now.getTime() + (await this.d.timeoutSeconds()) * 1000)
    const previous = await knex('mfa_push_challenge')
      .where({ user_id: userId })
      .where('created_at', '>', new Date(now.getTime() - BURST_SECONDS * 1000))
      .orderBy('created_at', 'desc')
      .first('burst_id')
    const row = {
      id: randomUUID(),
      user_id: userId,
      nonce: randomBytes(16).toString('hex'),
      number: opts.numberMatching ? String(randomInt(10, 100)) : null,
      number_matching: opts.numberMatching,
      origin: opts.origin,
      context: { username: user.username, ...(opts.context.ip ? { ip: opts.context.ip } : {}), ...(opts.context.client ? { client: opts.context.client } : {}) },
      burst_id: previous?.burst_id ?? randomUUID(),
      token_jti: tokenJti,
      created_at: now,
      expires_at: expiresAt,
    }
    await knex('mfa_push_challenge').insert(row)
    // Counted after the insert: two starts racing at the limit both see each other and both stop.
    const [c] = await knex('mfa_push_challenge')
      .where({ user_id: userId })
      .where('created_at', '>', new Date(now.getTime() - PUSH_RATE_LIMIT.windowSeconds * 1000))
      .count<{ n: number | string }[]>('id as n')
    const inWindow = Number(c?.n ?? 0)
    if (inWindow > PUSH_RATE_LIMIT.max) {
      await knex('mfa_push_challenge').where({ id: row.id }).delete()
      // The first refusal of a window is audited; the rest would only fill the trail.
      if (inWindow === PUSH_RATE_LIMIT.max + 1) {
        await this.d.audit.record({ action: 'mfa.push_rate_limited', resourceType: 'user', resourceId: userId, after: { origin: opts.origin, ...opts.context } }, { actor: null }).catch((err: unknown) => this.d.log.error({ err }, 'push rate limit not audited'))
      }
      this.d.log.warn({ user: userId, origin: opts.origin }, 'push refused: per-user rate limit (MFA bombing?)')
      return { sent: false, refusal: 'rate_limited' }
    }
    const burstCount = await this.burstCount(row.burst_id)
    const ok = await notify(target, devices.map((dev) => ({ device_id: dev.id, address: dev.address, payload: { type: 'challenge', challenge_id: row.id, burst_count: burstCount } })))
    if (!ok) {
      await this.close(row.id, 'cancelled')
      this.d.log.warn({ user: userId, origin: opts.origin }, 'push not sent: the push service did not take the notification')
      return { sent: false, refusal: 'unavailable' }
    }
    return { sent: true, challengeId: row.id, number: row.number, expiresAt }
  }

  async wait(userId: string, challengeId: string, timeoutMs: number): Promise<PushOutcome | null> {
    const deadline = Date.now() + Math.max(0, timeoutMs)
    // Listening for the whole wait, not only while asleep: an answer that lands while the row is
    // being read then wakes the next sleep at once, instead of being found by the next poll.
    let fired = false
    let wake: (() => void) | null = null
    const onEnded = () => {
      fired = true
      wake?.()
    }
    this.events.on(challengeId, onEnded)
    try {
      for (;;) {
        fired = false
        const row = await this.get(challengeId)
        if (!row || row.user_id !== userId) return 'cancelled'
        if (row.state !== 'pending') return row.state as PushOutcome
        const now = Date.now()
        if (row.expires_at.getTime() <= now) {
          await this.close(row.id, 'expired')
          continue
        }
        if (now >= deadline) return null
        if (fired) continue
        const ms = Math.max(1, Math.min(POLL_MS, deadline - now, row.expires_at.getTime() - now + 5))
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            wake = null
            resolve()
          }, ms)
          wake = () => {
            clearTimeout(timer)
            wake = null
            resolve()
          }
        })
      }
    } finally {
      this.events.off(challengeId, onEnded)
    }
  }

  async cancel(userId: string, challengeId: string): Promise<void> {
    if (!isUuid(userId) || !isUuid(challengeId)) return
    const closed = await this.d.knex('mfa_push_challenge').where({ id: challengeId, user_id: userId, state: 'pending' }).update({ state: 'cancelled', decided_at: new Date() }).returning(['id', 'burst_id'])
    if (closed.length) this.ended(userId, closed.map((r) => r.id))
  }

  /**
   * Ends the pending pushes an API sign-in sent: it was completed with a code, or its token no
   * longer verifies (revoked by a password change, expired, the user disabled). userId null: any user's.
   */
  async cancelToken(userId: string | null, tokenJti: string): Promise<void> {
    if (!isUuid(tokenJti)) return
    const closed = await this.d.knex('mfa_push_challenge')
      .where({ token_jti: tokenJti, state: 'pending' })
      .modify((q) => void (userId ? q.where({ user_id: userId }) : q))
      .update({ state: 'cancelled', decided_at: new Date() })
      .returning(['id', 'user_id'])
    for (const r of closed) this.ended(r.user_id as string, [r.id as string])
  }

  /** Ends every pending challenge of the user (a device removed, the account disabled, deleted). */
  async cancelAll(userId: string, db: Knex | Knex.Transaction = this.d.knex): Promise<string[]> {
    if (!isUuid(userId)) return []
    const closed = await db('mfa_push_challenge').where({ user_id: userId, state: 'pending' }).update({ state: 'cancelled', decided_at: new Date() }).returning('id')
    const ids = closed.map((r) => r.id as string)
    if (ids.length && db === this.d.knex) this.ended(userId, ids)
    return ids
  }

  /** After a transaction that ended challenges committed: wake the waiters and tell the phones. */
  ended(userId: string, ids: string[]): void {
    for (const id of ids) this.events.emit(id)
    void this.tellPhones(userId, ids, null)
  }

  /** The user's pending challenges, oldest first, as the phone sees them (never the number). */
  async pending(userId: string): Promise<PendingChallenge[]> {
    const rows = (await this.d.knex('mfa_push_challenge').where({ user_id: userId, state: 'pending' }).where('expires_at', '>', new Date()).orderBy('created_at').orderBy('id')) as PushChallengeRow[]
    const counts = new Map<string, number>()
    for (const burst of new Set(rows.map((r) => r.burst_id))) counts.set(burst, await this.burstCount(burst))
    return rows.map((r) => ({
      id: r.id,
      nonce: r.nonce,
      origin: r.origin,
      context: r.context,
      created_at: r.created_at.toISOString(),
      expires_at: r.expires_at.toISOString(),
      number_matching: r.number_matching,
      burst: { id: r.burst_id, count: counts.get(r.burst_id) ?? 1 },
    }))
  }

  /**
   * The phone's answer. The caller has checked the device's request signature; this checks the
   * answer's own signature (over the challenge id, its nonce, the decision and the number), so an
   * answer cannot be replayed onto another challenge or have its fields swapped.
   */
  async answer(device: PushDeviceRow, challengeId: string, a: { decision: Decision; number: string | null; verify: (nonce: string) => boolean }): Promise<{ result: AnswerResult; ended: number; burstId: string }> {
    const row = isUuid(challengeId) ? await this.get(challengeId) : null
    if (!row || row.user_id !== device.user_id) throw new AnswerError('not_found')
    if (!a.verify(row.nonce)) throw new AnswerError('signature')
    if (row.state !== 'pending') throw new AnswerError('closed')
    if (row.expires_at.getTime() <= Date.now()) {
      await this.close(row.id, 'expired')
      throw new AnswerError('closed')
    }
    const user = await this.d.identity.findUser({ id: device.user_id })
    if (!user || !user.enabled) {
      await this.cancelAll(device.user_id)
      throw new AnswerError('closed')
    }
    const result: AnswerResult =
      a.decision === 'deny' ? 'denied' : a.decision === 'report' ? 'reported' : row.number_matching && a.number !== row.number ? 'wrong_number' : 'approved'
    const now = new Date()
    const done = await this.d.knex('mfa_push_challenge')
      .where({ id: row.id, state: 'pending' })
      .where('expires_at', '>', now)
      .update({ state: result, decided_at: now, device_id: device.id })
      .returning('id')
    // Zero rows: a second answer (another phone, a replay) or the expiry won.
    if (!done.length) throw new AnswerError('closed')
    let ended = 1
    if (result === 'reported') {
      const burst = await this.d.knex('mfa_push_challenge').where({ user_id: row.user_id, burst_id: row.burst_id, state: 'pending' }).update({ state: 'reported', decided_at: now, device_id: device.id }).returning('id')
      ended += burst.length
      await this.d.factors.lock(row.user_id, `reported from device ${device.name}`)
      for (const r of burst) this.events.emit(r.id as string)
      void this.tellPhones(row.user_id, burst.map((r) => r.id as string), null)
    }
    this.events.emit(row.id)
    void this.tellPhones(row.user_id, [row.id], device.id)
    return { result, ended, burstId: row.burst_id }
  }

  async get(id: string): Promise<PushChallengeRow | null> {
    if (!isUuid(id)) return null
    return ((await this.d.knex('mfa_push_challenge').where({ id }).first()) as PushChallengeRow | undefined) ?? null
  }

  private async close(id: string, state: Extract<PushState, 'expired' | 'cancelled'>): Promise<void> {
    await this.d.knex('mfa_push_challenge').where({ id, state: 'pending' }).update({ state, decided_at: new Date() })
    this.events.emit(id)
  }

  private async burstCount(burstId: string): Promise<number> {
    const [c] = await this.d.knex('mfa_push_challenge').where({ burst_id: burstId }).count<{ n: number | string }[]>('id as n')
    return Number(c?.n ?? 1)
  }

  /** Best effort: the phones stop showing ended challenges (they would learn it at their next fetch anyway). */
  private async tellPhones(userId: string, ids: string[], except: string | null): Promise<void> {
    try {
      const devices = (await this.d.devices.list(userId)).filter((dev) => dev.id !== except)
      if (!devices.length || !ids.length) return
      await notify(this.d.target(), ids.flatMap((id) => devices.map((dev) => ({ device_id: dev.id, address: dev.address, payload: { type: 'cancel' as const, challenge_id: id, burst_count: 0 } }))))
    } catch (err) {
      this.d.log.warn({ err }, 'push cancel notification not sent')
    }
  }
}
