/**
 * The MFA plugin's tables as its code reads them (sdk/tables.ts), from
 * migrations/0001_mfa.ts and 0003_push.ts: knex types every query on them, and the kernel
 * checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'
import type { PushAddress, PushContext, PushOrigin } from './services/push/types.js'

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

export type PushAlgorithm = 'p256' | 'ed25519'
export type PushState = 'pending' | 'approved' | 'denied' | 'wrong_number' | 'reported' | 'expired' | 'cancelled'
export type FactorChoice = 'totp' | 'push' | 'both'

/** A phone enrolled for push approvals (migrations/0003_push.ts). */
export const PushDeviceTable = defineTable('mfa_push_device', {
  id: column.uuid().defaulted(),
  user_id: column.uuid(),
  name: column.varchar(),
  algorithm: column.varchar<PushAlgorithm>(),
  /** base64url of the SPKI DER. */
  public_key: column.text(),
  address: column.jsonb<PushAddress>(),
  created_at: column.timestamp().defaulted(),
  last_seen_at: column.timestamp().nullable(),
})
export type PushDeviceRow = RowOf<typeof PushDeviceTable>

/** One-time enrollment tokens (the QR code's), by sha256. */
export const PushEnrollmentTable = defineTable('mfa_push_enrollment', {
  token_hash: column.varchar(),
  user_id: column.uuid(),
  expires_at: column.timestamp(),
  used_at: column.timestamp().nullable(),
})

/** One push: its number, state and burst. */
export const PushChallengeTable = defineTable('mfa_push_challenge', {
  id: column.uuid(),
  user_id: column.uuid(),
  nonce: column.varchar(),
  number: column.varchar().nullable(),
  number_matching: column.boolean().defaulted(),
  state: column.varchar<PushState>().defaulted(),
  origin: column.varchar<PushOrigin>(),
  context: column.jsonb<PushContext & { username: string }>(),
  burst_id: column.uuid(),
  token_jti: column.uuid().nullable(),
  created_at: column.timestamp().defaulted(),
  expires_at: column.timestamp(),
  decided_at: column.timestamp().nullable(),
  device_id: column.uuid().nullable(),
})
export type PushChallengeRow = RowOf<typeof PushChallengeTable>

/** A user's factor choice and push lock; no row: whatever is enrolled, unlocked. */
export const UserFactorsTable = defineTable('mfa_user_factors', {
  user_id: column.uuid(),
  factors: column.varchar<FactorChoice>().nullable(),
  push_locked_at: column.timestamp().nullable(),
  push_locked_reason: column.varchar().nullable(),
})

/** One row per unused recovery code (migrations/0004_recovery_codes.ts): a hash only; spent codes are deleted. */
export const RecoveryCodeTable = defineTable('mfa_recovery_code', {
  user_id: column.uuid(),
  code_hash: column.varchar(),
  created_at: column.timestamp().defaulted(),
})

export const mfaTables = [TotpTable, TokenBudgetTable, PushDeviceTable, PushEnrollmentTable, PushChallengeTable, UserFactorsTable, RecoveryCodeTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    mfa_totp: TableType<typeof TotpTable>
    mfa_token_budget: TableType<typeof TokenBudgetTable>
    mfa_push_device: TableType<typeof PushDeviceTable>
    mfa_push_enrollment: TableType<typeof PushEnrollmentTable>
    mfa_push_challenge: TableType<typeof PushChallengeTable>
    mfa_user_factors: TableType<typeof UserFactorsTable>
    mfa_recovery_code: TableType<typeof RecoveryCodeTable>
  }
}
