/**
 * Redeeming the `mfa` token from login for a session. The token travels only
 * in this body, never as a bearer token. Order matters: the token is verified,
 * then its budget is charged in the database, and only then is a code
 * computed, so a burnt token costs no TOTP computation (and, with a push
 * factor, would send no push).
 */
import { defineRoute, ErrorBody, PUBLIC } from '../../../sdk/index.js'
import { MFA_CODE_BUDGET, MfaErrors } from '../errors.js'
import { VerifyRequest, VerifyResponse } from '../schemas/verify.js'
import type { MfaRouteDeps } from './deps.js'

/** Per client IP: a person needs a few tries; the per-token budget is the real wall. */
export const VERIFY_LIMIT = { max: 10, windowSeconds: 60 }

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
      rateLimit: VERIFY_LIMIT,
      summary: 'Complete a sign-in with a second-factor code',
      description: [
        'Redeems the `mfa_token` from POST /api/v1/auth/login (purpose `mfa`, in this body only: it is never accepted as a bearer token, and a token of any other purpose, `byod_mfa` included, answers 401 MFA_TOKEN_INVALID) for what the login still owes: a session token, or `password_change_required`.',
        `Each token has a budget of ${MFA_CODE_BUDGET} wrong codes, kept in the database and checked before any code is computed: a wrong or replayed code answers 401 MFA_CODE_INVALID (field \`code\`); the ${MFA_CODE_BUDGET}th burns the token (401 MFA_TOKEN_BURNT), and every later attempt with it answers 401 MFA_TOKEN_BURNT without checking the code: sign in again.`,
        'A code is good once: a code of a time step already used by this user is refused as wrong. A right code spends the token.',
      ].join('\n\n'),
      tags: ['auth', 'mfa'],
      schema: { body: VerifyRequest, response: { 200: VerifyResponse, 401: ErrorBody } },
      handler: async (req) => {
        const claims = await d.identity.verifyToken(req.body.mfa_token, 'mfa')
        if (!claims) {
          const state = await d.budget.stateOf(unverifiedJti(req.body.mfa_token))
          throw state === 'burnt' ? MfaErrors.tokenBurnt({ field: 'mfa_token' }) : MfaErrors.tokenInvalid({ field: 'mfa_token' })
        }
        const { jti, exp, sub } = claims

        const charge = await d.budget.charge(jti, exp)
        if (charge.state === 'burnt') throw MfaErrors.tokenBurnt({ field: 'mfa_token' })
        if (charge.state === 'spent') throw MfaErrors.tokenInvalid({ field: 'mfa_token' })

        const result = await d.store.consume(sub, req.body.code)
        if (result === 'not_enrolled') {
          // The authenticator was reset after the password step: this token can lead nowhere.
          await d.identity.revokeToken(jti, exp)
          throw MfaErrors.tokenInvalid({ field: 'mfa_token' })
        }
        if (result === 'wrong_code') {
          if (charge.attempt >= MFA_CODE_BUDGET) {
            await d.budget.burn(jti)
            await d.identity.revokeToken(jti, exp)
            req.log.warn({ user: sub, jti }, 'mfa token burnt after too many wrong codes')
            throw MfaErrors.tokenBurnt({ field: 'mfa_token' })
          }
          throw MfaErrors.codeInvalid({ field: 'code', vars: { remaining: MFA_CODE_BUDGET - charge.attempt } })
        }

        if (!(await d.budget.spend(jti))) {
          // A parallel request redeemed or burnt the token between our charge and now.
          const state = await d.budget.stateOf(jti)
          throw state === 'burnt' ? MfaErrors.tokenBurnt({ field: 'mfa_token' }) : MfaErrors.tokenInvalid({ field: 'mfa_token' })
        }
        await d.identity.revokeToken(jti, exp)
        return d.identity.completeLogin(sub)
      },
    }),
  ]
}
