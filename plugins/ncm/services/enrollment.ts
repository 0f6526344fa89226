/**
 * One-time enrollment tokens (design31 §2 "Enrollment"): `pcc_` + 32 random bytes, shown once,
 * stored as sha256, valid `ncm.enrollment_token_minutes`, spent by one atomic UPDATE so two racing
 * enrollments cannot both succeed.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { NcmErrors } from '../errors.js'
import { ncmEnrollmentTokenMinutes } from '../settings.js'
import type { NcmContext } from './context.js'

export const TOKEN_PATTERN = /^pcc_[A-Za-z0-9_-]{43}$/
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex')

/** A new token for the collector; its earlier unused ones stop working. */
export async function issueToken(c: NcmContext, trx: Knex.Transaction, collectorId: string, createdBy: string | null): Promise<{ token: string; expiresAt: Date }> {
  const token = `pcc_${randomBytes(32).toString('base64url')}`
  const minutes = await c.settings.get(ncmEnrollmentTokenMinutes, trx)
  const expiresAt = new Date(Date.now() + minutes * 60_000)
  await trx('ncm_enrollment_tokens').where({ collector_id: collectorId }).whereNull('used_at').delete()
  await trx('ncm_enrollment_tokens').insert({ token_hash: tokenHash(token), collector_id: collectorId, expires_at: expiresAt, created_by: createdBy })
  return { token, expiresAt }
}

/** The collector a token names, without spending it (a contract mismatch marks that collector's status). */
export async function tokenCollector(db: Knex | Knex.Transaction, token: string): Promise<string | null> {
  if (!TOKEN_PATTERN.test(token)) return null
  return (await db('ncm_enrollment_tokens').where({ token_hash: tokenHash(token) }).first('collector_id'))?.collector_id ?? null
}

/** Spends the token (once, atomically) and answers its collector; 401 / 410 / 409 otherwise. */
export async function spendToken(trx: Knex.Transaction, token: string): Promise<string> {
  if (!TOKEN_PATTERN.test(token)) throw NcmErrors.enrollmentInvalid()
  const hash = tokenHash(token)
  const spent = (await trx.raw(`UPDATE ncm_enrollment_tokens SET used_at = now() WHERE token_hash = ? AND used_at IS NULL AND expires_at > now() RETURNING collector_id`, [hash])) as { rows: { collector_id: string }[] }
  if (spent.rows.length) return spent.rows[0].collector_id
  const row = await trx('ncm_enrollment_tokens').where({ token_hash: hash }).first('used_at', 'expires_at')
  if (!row) throw NcmErrors.enrollmentInvalid()
  if (row.used_at !== null) throw NcmErrors.enrollmentUsed()
  throw NcmErrors.enrollmentExpired()
}
