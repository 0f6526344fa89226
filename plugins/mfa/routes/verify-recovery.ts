/**
 * The recovery-code half of POST /api/v1/mfa/verify: a one-time code in place of the phone
 * (docs/mfa.md "Recovery codes"). It is a strike of the same mfa token budget as a TOTP code,
 * charged before the code is hashed; the code is spent by deleting its row, so of two requests
 * racing with one code only one signs in. A use is audited and mailed to the user.
 */
import type { RouteRequest, VerifiedToken } from '../../../sdk/index.js'
import { MFA_CODE_BUDGET, MfaErrors } from '../errors.js'
import type { MfaRouteDeps } from './deps.js'
import { burnToken } from './verify-push.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the verify route's request
type Req = RouteRequest<any, any, any>
type Audit = (outcome: 'success' | 'failure', reason: string | null, action?: string, after?: unknown) => Promise<void>

export async function verifyRecoveryCode(d: MfaRouteDeps, req: Req, claims: VerifiedToken, audit: Audit, code: string, perUserLimit: string) {
  const { jti, exp, sub } = claims
  const charge = await d.budget.charge(jti, exp)
  if (charge.state === 'burnt') throw MfaErrors.tokenBurnt({ field: 'mfa_token' })
  if (charge.state === 'spent') throw MfaErrors.tokenInvalid({ field: 'mfa_token' })
  // The same per-user limit as codes: a recovery code is one more guess at the second factor.
  await req.rateLimit(perUserLimit, sub, { id: sub, username: claims.name })

  // No factor left (reset after the password step): the codes went with it, so this one fails too.
  if (!(await d.recovery.consume(sub, code))) {
    if (charge.attempt >= MFA_CODE_BUDGET) throw await burnToken(d, req, claims, audit, 'wrong recovery codes')
    await audit('failure', 'mfa_bad_recovery_code')
    throw MfaErrors.recoveryCodeInvalid({ field: 'recovery_code', vars: { remaining: MFA_CODE_BUDGET - charge.attempt } })
  }
  if (!(await d.budget.spend(jti))) {
    // A parallel request redeemed or burnt the token: the code is spent all the same (it was shown to us).
    const state = await d.budget.stateOf(jti)
    await audit('failure', 'mfa_recovery_code_token_gone')
    throw state === 'burnt' ? MfaErrors.tokenBurnt({ field: 'mfa_token' }) : MfaErrors.tokenInvalid({ field: 'mfa_token' })
  }
  await d.identity.revokeToken(jti, exp)
  await d.push.challenges.cancelToken(sub, jti)
  const { remaining } = await d.recovery.status(sub)
  await audit('success', 'recovery_code', 'auth.mfa_verify', { recovery_codes_remaining: remaining })
  await mailUse(d, req, sub, remaining)
  return d.identity.completeLogin(sub)
}

/** Tells the user a code was used: if it was not them, they learn someone has their password and a code. */
async function mailUse(d: MfaRouteDeps, req: Req, userId: string, remaining: number) {
  const user = await d.identity.findUser({ id: userId })
  if (!user?.email) return
  const vars = { username: user.username, remaining, ip: req.ip }
  try {
    await d.mail.send({ to: user.email, subject: req.t('mfa:recovery_mail.subject', vars), text: req.t('mfa:recovery_mail.body', vars) })
  } catch (e) {
    // The sign-in stands (the user is locked out otherwise); the audit trail has the use.
    req.log.warn({ err: (e as Error).message, user: userId }, 'recovery code notice not mailed')
  }
}
