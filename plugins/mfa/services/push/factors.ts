/**
 * Each user's factor choice and push lock (mfa_user_factors). No row: the user signs in with
 * whatever is enrolled, and pushes are not locked. A choice that names a factor the user no longer
 * has (their only phone was removed) falls back to what is enrolled: nobody is locked out by a
 * stale choice, and nobody gets in without a factor.
 */
import type { Knex } from 'knex'
import type { FactorChoice } from '../../tables.js'

export type Factor = 'totp' | 'push'

export interface FactorsOf {
  totp: boolean
  push: boolean
  choice: FactorChoice | null
}

/** The factors the sign-in offers the user, in the order they are offered. */
export function allowedFactors(f: FactorsOf): Factor[] {
  const enrolled: Factor[] = [...(f.totp ? (['totp'] as const) : []), ...(f.push ? (['push'] as const) : [])]
  if (f.choice === 'totp' && f.totp) return ['totp']
  if (f.choice === 'push' && f.push) return ['push']
  return enrolled
}

export class UserFactors {
  constructor(private readonly knex: Knex) {}

  async get(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<{ choice: FactorChoice | null; lockedAt: Date | null; lockedReason: string | null }> {
    const row = await db('mfa_user_factors').where({ user_id: userId }).first()
    return { choice: row?.factors ?? null, lockedAt: row?.push_locked_at ?? null, lockedReason: row?.push_locked_reason ?? null }
  }

  async setChoice(userId: string, choice: FactorChoice | null, db: Knex | Knex.Transaction = this.knex): Promise<void> {
    await db('mfa_user_factors').insert({ user_id: userId, factors: choice }).onConflict('user_id').merge(['factors'])
  }

  async lock(userId: string, reason: string, db: Knex | Knex.Transaction = this.knex): Promise<void> {
    await db('mfa_user_factors')
      .insert({ user_id: userId, push_locked_at: new Date(), push_locked_reason: reason.slice(0, 200) })
      .onConflict('user_id')
      .merge(['push_locked_at', 'push_locked_reason'])
  }

  /** True when there was a lock to clear. */
  async unlock(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    return (await db('mfa_user_factors').where({ user_id: userId }).whereNotNull('push_locked_at').update({ push_locked_at: null, push_locked_reason: null })) > 0
  }
}
