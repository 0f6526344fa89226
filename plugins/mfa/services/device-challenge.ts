/**
 * A device login's second-factor round: the challenge a RADIUS or TACACS+ daemon holds between the
 * password and the code (the RADIUS State, the tac_plus-ng MAVIS session). It has the budget of an
 * API sign-in's `mfa` token: five wrong codes burn it and the login starts again from the password.
 *
 * The rows live in `mfa_token_budget` beside the API's tokens, keyed by a UUID derived from the
 * user and the challenge: a challenge opened for one user is no challenge for another, and one the
 * platform never opened has no row, so it has no budget at all (a client that forges a State gets
 * nothing). Unlike the API's charge, which creates its row, a charge here only updates one.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { MFA_CODE_BUDGET } from '../errors.js'

/** As long as an API sign-in's mfa token: a person reads the code off a phone within this. */
export const DEVICE_CHALLENGE_SECONDS = 300
/** 128 random bits as lowercase hex: fits a RADIUS State (16 octets) and any daemon's string. */
export const CHALLENGE_PATTERN = '^[0-9a-f]{32}$'

export type DeviceCharge = { state: 'open'; attempt: number } | { state: 'closed' }

/** The row's key: a UUID (the column's type) from the user and the challenge. */
export function challengeRowId(userId: string, challenge: string): string {
  const h = createHash('sha256').update(`device-mfa\n${userId}\n${challenge}`).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

export class DeviceChallenges {
  constructor(private readonly knex: Knex) {}

  async open(userId: string): Promise<string> {
    const challenge = randomBytes(16).toString('hex')
    await this.knex('mfa_token_budget').insert({ jti: challengeRowId(userId, challenge), failures: 0, expires_at: new Date(Date.now() + DEVICE_CHALLENGE_SECONDS * 1000) })
    return challenge
  }

  /**
   * One attempt charged in one statement that also checks the budget, as the API's charge does:
   * parallel codes on one challenge cannot together try more than five. Closed: unknown, expired,
   * burnt or already answered.
   */
  async charge(userId: string, challenge: string): Promise<DeviceCharge> {
    const rows = await this.knex('mfa_token_budget')
      .where({ jti: challengeRowId(userId, challenge) })
      .whereNull('burnt_at')
      .whereNull('spent_at')
      .where('failures', '<', MFA_CODE_BUDGET)
      .where('expires_at', '>', new Date())
      .increment('failures', 1)
      .returning('failures')
    const row = rows[0] as { failures: number } | undefined
    return row ? { state: 'open', attempt: row.failures } : { state: 'closed' }
  }

  async burn(userId: string, challenge: string): Promise<void> {
    await this.knex('mfa_token_budget').where({ jti: challengeRowId(userId, challenge) }).whereNull('burnt_at').update({ burnt_at: new Date() })
  }

  /** The right code ends the challenge: it cannot carry a second login. */
  async spend(userId: string, challenge: string): Promise<void> {
    await this.knex('mfa_token_budget').where({ jti: challengeRowId(userId, challenge) }).whereNull('spent_at').update({ spent_at: new Date() })
  }

  /** Still takes an answer: opened, not expired, not burnt, not spent, budget left. Charges nothing. */
  async isOpen(userId: string, challenge: string): Promise<boolean> {
    const row = await this.knex('mfa_token_budget')
      .where({ jti: challengeRowId(userId, challenge) })
      .whereNull('burnt_at')
      .whereNull('spent_at')
      .where('expires_at', '>', new Date())
      .first('jti')
    return row !== undefined
  }

  /**
   * Ties a push challenge to this device challenge (a row of its own in the same table, keyed by
   * both): a later wait with the device challenge takes only the push it started, never an approved
   * push of another login of the same user. Lives as long as the device challenge.
   */
  async link(userId: string, challenge: string, pushChallenge: string): Promise<void> {
    await this.knex('mfa_token_budget').insert({ jti: challengeRowId(userId, `${challenge}\npush\n${pushChallenge}`), failures: 0, expires_at: new Date(Date.now() + DEVICE_CHALLENGE_SECONDS * 1000) })
  }

  async isLinked(userId: string, challenge: string, pushChallenge: string): Promise<boolean> {
    const row = await this.knex('mfa_token_budget').where({ jti: challengeRowId(userId, `${challenge}\npush\n${pushChallenge}`) }).where('expires_at', '>', new Date()).first('jti')
    return row !== undefined
  }
}
