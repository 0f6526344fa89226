/**
 * The MFA plugin's tables as its code reads them (sdk/tables.ts), from
 * migrations/0001_mfa.ts: knex types every query on them, and the kernel
 * checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'

/** One authenticator per user; a pending (unconfirmed) row does not guard the sign-in yet. */
export const TotpTable = defineTable('mfa_totp', {
  user_id: column.uuid(),
  /** The seed, sealed with the master key (purpose mfa.totp_seed). */
  secret: column.text(),
  confirmed: column.boolean().defaulted(),
  confirmed_at: column.timestamp().nullable(),
  /** The last time step a code was accepted for: that step and earlier ones are replays. */
  last_used_step: column.bigint().nullable(),
  created_at: column.timestamp().defaulted(),
})
export type TotpRow = RowOf<typeof TotpTable>

/** Wrong codes per mfa token (by jti), shared by every node. */
export const TokenBudgetTable = defineTable('mfa_token_budget', {
  jti: column.uuid(),
  failures: column.integer().defaulted(),
  burnt_at: column.timestamp().nullable(),
  /** Set when a right code redeemed the token: it is single use. */
  spent_at: column.timestamp().nullable(),
  expires_at: column.timestamp(),
})

export const mfaTables = [TotpTable, TokenBudgetTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    mfa_totp: TableType<typeof TotpTable>
    mfa_token_budget: TableType<typeof TokenBudgetTable>
  }
}
