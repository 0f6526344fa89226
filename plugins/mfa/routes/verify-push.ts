/**
 * The push half of POST /api/v1/mfa/verify. Sending a push costs the mfa token one strike of its
 * budget, charged before anything is sent: a burnt token sends nothing. A push that ends in
 * anything but an approval (denied, the wrong number, reported, expired, cancelled) is a failed
 * answer; the one that uses up the budget burns the token. An approval spends the token.
 */
import { reply, type RouteRequest, type VerifiedToken } from '../../../sdk/index.js'
import { MFA_CODE_BUDGET, MfaErrors } from '../errors.js'
import { PUSH_RATE_LIMIT } from '../services/push/challenges.js'
import type { MfaRouteDeps } from './deps.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the verify route's request
type Req = RouteRequest<any, any, any>
type Audit = (outcome: 'success' | 'failure', reason: string | null, action?: string) => Promise<void>

const pending = (id: string, number: string | null, expiresAt: Date) =>
  reply({ status: 202, headers: { 'Retry-After': '1' }, body: { status: 'push_pending', push_challenge: id, number, expires_in: Math.max(0, Math.ceil((expiresAt.getTime() - Date.now()) / 1000)) } })

/**
 * The last strike of an mfa token (a wrong code or a failed push answer): burnt and revoked, both
 * audited. Answers the error the caller throws.
 */
export async function burnToken(d: MfaRouteDeps, req: Req, claims: VerifiedToken, audit: Audit, what: string) {
  await d.budget.burn(claims.jti)
  await d.identity.revokeToken(claims.jti, claims.exp)
  req.log.warn({ user: claims.sub, jti: claims.jti }, `mfa token burnt after too many ${what}`)
  await audit('failure', 'mfa_budget_spent')
  await audit('success', 'mfa_budget_spent', 'auth.token_revoked')
  return MfaErrors.tokenBurnt({ field: 'mfa_token' })
}

export async function startPush(d: MfaRouteDeps, req: Req, claims: VerifiedToken, audit: Audit) {
  const { jti, exp, sub } = claims
  const f = await d.push.factorsOf(sub)
  if (!f.push) throw MfaErrors.pushNoDevice({ field: 'method' })
  if (!f.allowed.includes('push')) throw MfaErrors.factorNotChosen({ field: 'method' })
  // The strike first: a burnt (or spent) token sends nothing.
  const charge = await d.budget.charge(jti, exp)
  if (charge.state === 'burnt') throw MfaErrors.tokenBurnt({ field: 'mfa_token' })
  if (charge.state === 'spent') throw MfaErrors.tokenInvalid({ field: 'mfa_token' })
  const started = await d.push.challenges.send(sub, { origin: 'sign_in', context: { ip: req.ip }, numberMatching: true }, jti)
  if (!started.sent) {
    await audit('failure', `mfa_push_${started.refusal}`)
    if (started.refusal === 'no_device') throw MfaErrors.pushNoDevice({ field: 'method' })
    if (started.refusal === 'locked') throw MfaErrors.pushLocked({ field: 'method' })
    if (started.refusal === 'rate_limited') throw MfaErrors.pushRateLimited({ field: 'method', headers: { 'Retry-After': String(PUSH_RATE_LIMIT.windowSeconds) } })
    throw MfaErrors.pushUnavailable({ field: 'method' })
  }
  return pending(started.challengeId, started.number, started.expiresAt)
}

export async function pollPush(d: MfaRouteDeps, req: Req, claims: VerifiedToken, audit: Audit, challengeId: string, waitSeconds: number) {
  const { jti, exp, sub } = claims
  const row = await d.push.challenges.get(challengeId)
  // Only the sign-in that sent it may read it: another token's or user's challenge is no approval.
  if (!row || row.user_id !== sub || row.token_jti !== jti) throw MfaErrors.pushDenied({ field: 'push_challenge', vars: { reason: 'cancelled' } })
  const state = await d.budget.stateOf(jti)
  if (state === 'burnt') throw MfaErrors.tokenBurnt({ field: 'mfa_token' })
  if (state === 'spent') throw MfaErrors.tokenInvalid({ field: 'mfa_token' })
  const outcome = await d.push.challenges.wait(sub, challengeId, waitSeconds * 1000)
  if (outcome === null) return pending(row.id, row.number, row.expires_at)
  if (outcome === 'approved') {
    if (!(await d.budget.spend(jti))) {
      const now = await d.budget.stateOf(jti)
      throw now === 'burnt' ? MfaErrors.tokenBurnt({ field: 'mfa_token' }) : MfaErrors.tokenInvalid({ field: 'mfa_token' })
    }
    await d.identity.revokeToken(jti, exp)
    await audit('success', 'mfa_push')
    return d.identity.completeLogin(sub)
  }
  // A failed answer: its strike was charged when the push was sent; the last one burns the token.
  const used = await d.budget.failures(jti)
  if (used >= MFA_CODE_BUDGET) throw await burnToken(d, req, claims, audit, 'failed push answers')
  await audit('failure', `mfa_push_${outcome}`)
  throw MfaErrors.pushDenied({ field: 'push_challenge', vars: { reason: outcome } })
}
