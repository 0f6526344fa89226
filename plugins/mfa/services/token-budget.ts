/**
 * The per-token budget of wrong codes at POST /mfa/verify, kept in the
 * database so that it holds across nodes and cannot be reset by spreading
 * attempts over them.
 *
 * An attempt is charged before the provider runs, in one atomic upsert: the
 * charge and the "is anything left" check are the same statement, so parallel
 * requests cannot each see budget left and together try more than five codes.
 * A right code ends the token, so charging it too changes nothing.
 */
import type { Knex } from 'knex'
import { MFA_CODE_BUDGET } from '../errors.js'

export type Charge = { state: 'open'; attempt: number } | { state: 'burnt' } | { state: 'spent' }

export class TokenBudget {
  private lastSweep = 0

  constructor(private readonly knex: Knex) {}

  /** Charges one attempt to the token, or says why it has none left. */
  async charge(jti: string, exp: number): Promise<Charge> {
    void this.sweep()
    const res = (await this.knex.raw(
      `INSERT INTO mfa_token_budget (jti, failures, expires_at) VALUES (?, 1, ?)
       ON CONFLICT (jti) DO UPDATE SET failures = mfa_token_budget.failures + 1
       WHERE mfa_token_budget.burnt_at IS NULL AND mfa_token_budget.spent_at IS NULL AND mfa_token_budget.failures < ?
       RETURNING failures`,
      [jti, new Date(exp * 1000), MFA_CODE_BUDGET],
    )) as { rows: { failures: number }[] }
    if (res.rows.length) return { state: 'open', attempt: res.rows[0].failures }
    // Over budget with the fifth attempt still running also counts as burnt: it will be, or the token is spent.
    return (await this.stateOf(jti)) === 'spent' ? { state: 'spent' } : { state: 'burnt' }
  }

  async burn(jti: string): Promise<void> {
    await this.knex('mfa_token_budget').where({ jti }).whereNull('burnt_at').update({ burnt_at: this.knex.fn.now() })
  }

  /** Marks the token redeemed; false when it was already redeemed or burnt (a parallel request won). */
  async spend(jti: string): Promise<boolean> {
    const n = await this.knex('mfa_token_budget').where({ jti }).whereNull('burnt_at').whereNull('spent_at').update({ spent_at: this.knex.fn.now() })
    return n === 1
  }

  /** Attempts charged so far (0 for an unknown token). */
  async failures(jti: string): Promise<number> {
    const row = await this.knex('mfa_token_budget').where({ jti }).first('failures')
    return row?.failures ?? 0
  }

  async stateOf(jti: string): Promise<'burnt' | 'spent' | null> {
    if (!/^[0-9a-f-]{36}$/i.test(jti)) return null
    const row = await this.knex('mfa_token_budget').where({ jti }).first('burnt_at', 'spent_at')
    if (row?.burnt_at) return 'burnt'
    if (row?.spent_at) return 'spent'
    return null
  }

  /** Rows of expired tokens go, at most once a minute, off the request's path. */
  private async sweep(): Promise<void> {
    const now = Date.now()
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    await this.knex('mfa_token_budget').where('expires_at', '<', new Date(now - 60_000)).delete().catch(() => undefined)
  }
}
