/**
 * TOTP enrollments: a pending seed until the user proves their app has it,
 * then a confirmed authenticator that guards the sign-in. Accepting a code
 * records its time step in the same statement that checks it is newer than the
 * last one, so a code is good once, even when two requests race with it.
 */
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import type { SecretsService } from '../../../sdk/index.js'
import type { MfaStatus } from '../schemas/enrollment.js'
import type { TotpRow } from '../tables.js'
import { base32Decode, base32Encode } from './totp.js'
import { totpProvider } from './totp-provider.js'

export const SEED_PURPOSE = 'mfa.totp_seed'
/** 160 bits: the HMAC-SHA1 key length RFC 4226 recommends. */
const SEED_BYTES = 20

export type ConfirmResult = { ok: true; confirmedAt: Date } | { ok: false; reason: 'not_started' | 'already_enrolled' | 'wrong_code' }
export type ConsumeResult = 'accepted' | 'wrong_code' | 'not_enrolled'

export class TotpStore {
  constructor(private readonly knex: Knex, private readonly secrets: SecretsService) {}

  private seedOf(row: TotpRow): Buffer {
    return base32Decode(this.secrets.decrypt(SEED_PURPOSE, row.secret))
  }

  private async row(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<TotpRow | null> {
    return (await db('mfa_totp').where({ user_id: userId }).first()) ?? null
  }

  async isEnrolled(userId: string): Promise<boolean> {
    return !!(await this.knex('mfa_totp').where({ user_id: userId, confirmed: true }).first('user_id'))
  }

  async status(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<MfaStatus> {
    const r = await this.row(userId, db)
    const enrolled = !!r?.confirmed
    return { enrolled, confirmed_at: enrolled && r?.confirmed_at ? r.confirmed_at.toISOString() : null }
  }

  /**
   * A new pending seed (base32), replacing any earlier pending one; null when
   * the user already has a confirmed authenticator, which only a reset removes.
   */
  async start(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<string | null> {
    const seed = base32Encode(randomBytes(SEED_BYTES))
    const sealed = this.secrets.encrypt(SEED_PURPOSE, seed)
    const res = (await db.raw(
      `INSERT INTO mfa_totp (user_id, secret, confirmed, created_at) VALUES (?, ?, false, now())
       ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, confirmed_at = NULL, last_used_step = NULL, created_at = now()
       WHERE mfa_totp.confirmed = false
       RETURNING user_id`,
      [userId, sealed],
    )) as { rows: unknown[] }
    return res.rows.length ? seed : null
  }

  /** Activates the pending seed when the code proves the app holds it. */
  async confirm(userId: string, code: string, db: Knex | Knex.Transaction = this.knex): Promise<ConfirmResult> {
    const r = await this.row(userId, db)
    if (!r) return { ok: false, reason: 'not_started' }
    if (r.confirmed) return { ok: false, reason: 'already_enrolled' }
    const step = totpProvider.check(this.seedOf(r), code, null)
    if (step === null) return { ok: false, reason: 'wrong_code' }
    // The seed must still be the one the code was checked against: a restart in between issued another.
    // The confirming step counts as used, so the same code cannot also open the next sign-in.
    const [done] = await db('mfa_totp')
      .where({ user_id: userId, confirmed: false, secret: r.secret })
      .update({ confirmed: true, confirmed_at: db.fn.now(), last_used_step: step })
      .returning('confirmed_at')
    return done?.confirmed_at ? { ok: true, confirmedAt: done.confirmed_at } : { ok: false, reason: 'wrong_code' }
  }

  /** Checks a sign-in code against the confirmed authenticator and spends its time step. */
  async consume(userId: string, code: string): Promise<ConsumeResult> {
    const r = await this.row(userId)
    if (!r || !r.confirmed) return 'not_enrolled'
    const step = totpProvider.check(this.seedOf(r), code, r.last_used_step)
    if (step === null) return 'wrong_code'
    const spent = await this.knex('mfa_totp')
      .where({ user_id: userId, confirmed: true })
      .andWhere((w) => w.whereNull('last_used_step').orWhere('last_used_step', '<', step))
      .update({ last_used_step: step })
    // Zero rows: a parallel request spent this step (or a later one) first.
    return spent === 1 ? 'accepted' : 'wrong_code'
  }

  /** Removes the authenticator, pending or confirmed; true when there was one. */
  async reset(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    return (await db('mfa_totp').where({ user_id: userId }).delete()) > 0
  }
}
