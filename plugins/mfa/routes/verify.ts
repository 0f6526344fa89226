/**
 * Redeeming the `mfa` token from login for a session. The token travels only
 * in this body, never as a bearer token. Order matters: the token is verified,
 * then its budget is charged in the database, and only then is a code
 * computed, so a burnt token costs no TOTP computation (and, with a push
 * factor, would send no push).
 */
import { CommonErrors, defineRoute, ErrorBody, PUBLIC } from '../../../sdk/index.js'
import { MFA_CODE_BUDGET, MfaErrors } from '../errors.js'
import { MAX_WAIT_SECONDS, PushPending, VerifyRequest, VerifyResponse } from '../schemas/verify.js'
import { PUSH_RATE_LIMIT } from '../services/push/challenges.js'
import { mfaPushAdminsNumberMatching } from '../settings.js'
import type { MfaRouteDeps } from './deps.js'
import { burnToken, pollPush, startPush } from './verify-push.js'
import { verifyRecoveryCode } from './verify-recovery.js'

/** Per client IP: a person needs a few tries; the per-token budget is the real wall. */
export const VERIFY_LIMIT = { max: 10, windowSeconds: 60 }
/**
 * Codes checked per user, here and at POST /mfa/internal/verify together (one
 * budget: a name shared by both routes). New mfa tokens come with every
 * sign-in, so the per-token budget alone does not bound guessing for someone
 * who has the password; and a holder of the internal key has no token at all.
 */
export const CODE_LIMIT_PER_USER = { by: 'key', name: 'code_per_user', per: 'user (codes checked here and at the other MFA check together)', max: 10, windowSeconds: 300 } as const

/**
 * The jti of a token that failed verification, read without checking the
 * signature. It only picks between two 401 codes (burnt or invalid) and is
 * looked up in a table of random ids, so a forged one learns nothing.
 */
function unverifiedJti(token: string): string {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { jti?: unknown }
    return typeof claims.jti === 'string' ? claims.jti : ''
  } catch {
    return ''
  }
}

export function verifyRoutes(d: MfaRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/mfa/verify',
      permission: PUBLIC,
      rateLimit: [VERIFY_LIMIT, CODE_LIMIT_PER_USER],
      auditAs: 'auth.mfa_verify',
      summary: 'Complete a sign-in with a second factor (a code, or a push approval)',
      description: [
        'Redeems the `mfa_token` from POST /api/v1/auth/login (purpose `mfa`, in this body only: it is never accepted as a bearer token, and a token of any other purpose, `byod_mfa` included, answers 401 MFA_TOKEN_INVALID) for what the login still owes: a session token, or `password_change_required`.',
        `Each token has a budget of ${MFA_CODE_BUDGET} wrong codes, kept in the database and checked before any code is computed: a wrong or replayed code answers 401 MFA_CODE_INVALID (field \`code\`); the ${MFA_CODE_BUDGET}th burns the token (401 MFA_TOKEN_BURNT), and every later attempt with it answers 401 MFA_TOKEN_BURNT without checking the code: sign in again.`,
        'A code is good once: a code of a time step already used by this user is refused as wrong. A right code spends the token.',
        `Besides the per-token budget, codes checked for one user are limited to ${CODE_LIMIT_PER_USER.max} per ${CODE_LIMIT_PER_USER.windowSeconds / 60} minutes, counted together with POST /api/v1/mfa/internal/verify (429).`,
        'Every checked code is audited as `auth.mfa_verify` (reasons `mfa_bad_code`, `mfa_budget_spent`, `mfa_not_enrolled`, `locked`); a burnt token also as `auth.token_revoked`. The code itself is never written.',
        `**Push** (docs/push-mfa.md): \`{mfa_token, method: 'push'}\` sends a push to the user's phones. It costs the token one attempt of the same budget, charged before anything is sent (a burnt token answers 401 MFA_TOKEN_BURNT and sends nothing); then at most ${PUSH_RATE_LIMIT.max} pushes per user per ${PUSH_RATE_LIMIT.windowSeconds / 60} minutes (429 MFA_PUSH_RATE_LIMITED). It answers 202 \`{status: 'push_pending', push_challenge, number, expires_in}\` with Retry-After: 1: show \`number\`, the phone asks for it. 409 MFA_PUSH_NO_DEVICE without a phone, 403 MFA_PUSH_LOCKED after a "report" answer, 503 MFA_PUSH_UNAVAILABLE when the push service cannot be reached (use a code).`,
        `Then poll with \`{mfa_token, push_challenge, wait_seconds}\` (0..${MAX_WAIT_SECONDS}, default 0; the call waits up to that long): 200 the session when approved (the token is spent), 202 still pending, 401 MFA_PUSH_DENIED (field push_challenge; reason denied, wrong_number, reported, expired or cancelled: a challenge of another sign-in is cancelled). A push not approved is a failed answer: the one that uses up the budget burns the token (401 MFA_TOKEN_BURNT).`,
        `**Recovery code** (docs/mfa.md "Recovery codes"): \`{mfa_token, recovery_code}\` signs in with one of the user's one-time recovery codes (POST /api/v1/mfa/recovery-codes) in place of the phone. It is a strike of the same budget and the same per-user limit as a code: a wrong or used one answers 401 MFA_RECOVERY_CODE_INVALID (field \`recovery_code\`), the ${MFA_CODE_BUDGET}th burns the token. A right one is spent for good (of two requests racing with it, one signs in), audited as \`auth.mfa_verify\` with reason \`recovery_code\` and the count left, and mailed to the user. The factor choice and \`mfa.push_admins_number_matching\` do not apply: the code is the way back in when the phone is lost. Recovery codes are for this sign-in only: the daemons' checks (RADIUS, TACACS+) never take them.`,
        'Factor choice and policy: a factor the user\'s choice excludes answers 403 MFA_FACTOR_NOT_CHOSEN; with setting `mfa.push_admins_number_matching` on, an administrator who has a push device must use push (a code answers 403 MFA_PUSH_REQUIRED). Neither costs an attempt.',
      ].join('\n\n'),
      tags: ['auth', 'mfa'],
      schema: { body: VerifyRequest, response: { 200: VerifyResponse, 202: PushPending, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody, 503: ErrorBody } },
      handler: async (req) => {
        // The shape first, as a schema would: no token is looked at for a malformed body.
        const body = req.body
        const given = (['code', 'recovery_code', 'method', 'push_challenge'] as const).filter((k) => body[k] !== undefined)
        if (given.length !== 1) throw CommonErrors.validation({ field: given[1] ?? 'code' })
        if (body.wait_seconds !== undefined && body.push_challenge === undefined) throw CommonErrors.validation({ field: 'wait_seconds' })
        const claims = await d.identity.verifyToken(body.mfa_token, 'mfa')
        if (!claims) {
          const unverified = unverifiedJti(body.mfa_token)
          // A push this sign-in sent ends with its token (a password change revoked it, it expired):
          // the phone stops asking, and the push can lead nowhere anyway.
          if (body.push_challenge !== undefined) await d.push.challenges.cancelToken(null, unverified)
          const state = await d.budget.stateOf(unverified)
          throw state === 'burnt' ? MfaErrors.tokenBurnt({ field: 'mfa_token' }) : MfaErrors.tokenInvalid({ field: 'mfa_token' })
        }
        const { jti, exp, sub } = claims
        const audit = (outcome: 'success' | 'failure', reason: string | null, action = 'auth.mfa_verify', after?: unknown) =>
          req.auditNow({ action, outcome, reason, userId: sub, username: claims.name, after })
        if (body.method !== undefined) return startPush(d, req, claims, audit)
        if (body.push_challenge !== undefined) return pollPush(d, req, claims, audit, body.push_challenge, body.wait_seconds ?? 0)
        // The way back in without the phone: neither the factor choice nor the push policy applies.
        if (body.recovery_code !== undefined) return verifyRecoveryCode(d, req, claims, audit, body.recovery_code, CODE_LIMIT_PER_USER.name)
        const code = body.code!

        // A code. The factor choice and the administrators' policy first: neither costs an attempt.
        const factors = await d.push.factorsOf(sub)
        if (factors.push && (await d.settings.get(mfaPushAdminsNumberMatching)) && (await d.identity.findUser({ id: sub }))?.is_admin) {
          throw MfaErrors.pushRequired({ field: 'code' })
        }
        if (!factors.totp && factors.push) throw MfaErrors.factorNotChosen({ field: 'code' })
        if (factors.totp && !factors.allowed.includes('totp')) throw MfaErrors.factorNotChosen({ field: 'code' })

        const charge = await d.budget.charge(jti, exp)
        if (charge.state === 'burnt') throw MfaErrors.tokenBurnt({ field: 'mfa_token' })
        if (charge.state === 'spent') throw MfaErrors.tokenInvalid({ field: 'mfa_token' })
        // After the token's own budget (a burnt token costs the user nothing), before any code is computed.
        await req.rateLimit(CODE_LIMIT_PER_USER.name, sub, { id: sub, username: claims.name })

        const result = await d.store.consume(sub, code)
        if (result === 'not_enrolled') {
          // The authenticator was reset after the password step: this token can lead nowhere.
          await d.identity.revokeToken(jti, exp)
          await audit('failure', 'mfa_not_enrolled')
          await audit('success', 'mfa_not_enrolled', 'auth.token_revoked')
          throw MfaErrors.tokenInvalid({ field: 'mfa_token' })
        }
        if (result === 'wrong_code') {
          if (charge.attempt >= MFA_CODE_BUDGET) throw await burnToken(d, req, claims, audit, 'wrong codes')
          await audit('failure', 'mfa_bad_code')
          throw MfaErrors.codeInvalid({ field: 'code', vars: { remaining: MFA_CODE_BUDGET - charge.attempt } })
        }

        if (!(await d.budget.spend(jti))) {
          // A parallel request redeemed or burnt the token between our charge and now.
          const state = await d.budget.stateOf(jti)
          throw state === 'burnt' ? MfaErrors.tokenBurnt({ field: 'mfa_token' }) : MfaErrors.tokenInvalid({ field: 'mfa_token' })
        }
        await d.identity.revokeToken(jti, exp)
        // A push this sign-in sent and no longer needs: the phone stops asking.
        await d.push.challenges.cancelToken(sub, jti)
        await audit('success', null)
        return d.identity.completeLogin(sub)
      },
    }),
  ]
}
