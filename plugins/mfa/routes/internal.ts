/**
 * The one surface the RADIUS/NAC daemons call at run time: checking a code
 * during a live network authentication. Its credential is a shared key, not a
 * user token, and it is off until an administrator sets `mfa.internal_key`.
 */
import { defineRoute, ErrorBody, PUBLIC } from '../../../sdk/index.js'
import { MFA_CODE_BUDGET, MfaErrors } from '../errors.js'
import { InternalVerifyRequest, InternalVerifyResponse } from '../schemas/internal.js'
import { internalKeyMatches } from '../services/internal-key.js'
import { mfaInternalKey } from '../settings.js'
import type { MfaRouteDeps } from './deps.js'
import { internalCheckRoutes } from './internal-check.js'
import { internalPushRoutes } from './internal-push.js'
import { CODE_LIMIT_PER_USER } from './verify.js'

export function internalRoutes(d: MfaRouteDeps) {
  return [
    ...internalCheckRoutes(d),
    ...internalPushRoutes(d),
    defineRoute({
      method: 'POST',
      path: '/mfa/internal/verify',
      permission: PUBLIC,
      // The per-user budget is shared with POST /mfa/verify: a code guessed here is a code not guessed there.
      rateLimit: [CODE_LIMIT_PER_USER],
      auditAs: 'auth.mfa_internal_verify',
      summary: 'Check a TOTP code for a network login (daemons only)',
      description: [
        'Called by the RADIUS/NAC daemons during a live authentication; no bearer token. The request must carry header `X-Internal-Key` equal to setting `mfa.internal_key` (compared in constant time); a missing or wrong key answers 401 INTERNAL_KEY_INVALID.',
        'While `mfa.internal_key` is null (the default) the surface is disabled and answers 404 MFA_INTERNAL_DISABLED whatever the key.',
        'Answers `{ valid }`: true when the user exists, is enabled, has a confirmed authenticator and the code is right and unspent. A valid code is spent by this call: the same code is refused afterwards here and at POST /api/v1/mfa/verify. Unknown users and users without MFA answer `{ valid: false }`.',
        `With \`challenge\` (from POST /api/v1/mfa/internal/check, a device login's second-factor round) the answer also says \`remaining\`: the challenge is charged before any code is computed and takes ${MFA_CODE_BUDGET} wrong codes, as an API sign-in's \`mfa\` token does; the ${MFA_CODE_BUDGET}th closes it (\`remaining: 0\`), and so does a right code. A challenge that is unknown, of another user, expired or closed answers \`{ valid: false, remaining: 0 }\` without checking the code.`,
        `Codes checked for one existing user are limited to ${CODE_LIMIT_PER_USER.max} per ${CODE_LIMIT_PER_USER.windowSeconds / 60} minutes, counted together with POST /api/v1/mfa/verify: then 429 with Retry-After, whoever holds the key. Each check of an existing user is audited as \`auth.mfa_internal_verify\` (never the code); unknown names are not written, so they cannot fill the trail.`,
      ].join('\n\n'),
      tags: ['mfa'],
      schema: { body: InternalVerifyRequest, response: { 200: InternalVerifyResponse, 401: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const key = await d.settings.get(mfaInternalKey)
        if (key === null) throw MfaErrors.internalDisabled()
        if (!internalKeyMatches(key, req.headers['x-internal-key'])) throw MfaErrors.internalKeyInvalid()
        const user = await d.identity.findUser({ username: req.body.username })
        const challenge = req.body.challenge
        // An unknown name has no code to guess; nothing is counted or written for it.
        if (!user) return challenge === undefined ? { valid: false } : { valid: false, remaining: 0 }
        if (challenge !== undefined) return deviceRound(user, challenge)
        await req.rateLimit(CODE_LIMIT_PER_USER.name, user.id, { id: user.id, username: user.username })
        const event = { action: 'auth.mfa_internal_verify', userId: user.id, username: user.username }
        if (!user.enabled) {
          await req.auditNow({ ...event, outcome: 'failure', reason: 'disabled' })
          return { valid: false }
        }
        const result = await d.store.consume(user.id, req.body.code)
        if (result !== 'accepted') {
          req.log.info({ user: user.id, result }, 'internal MFA check refused a code')
          await req.auditNow({ ...event, outcome: 'failure', reason: result === 'not_enrolled' ? 'mfa_not_enrolled' : 'mfa_bad_code' })
          return { valid: false }
        }
        await req.auditNow({ ...event, outcome: 'success' })
        return { valid: true }

        /** A code within a device login's challenge: the challenge's budget first, as /mfa/verify charges its token first. */
        async function deviceRound(u: { id: string; username: string; enabled: boolean }, ch: string) {
          const audit = (outcome: 'success' | 'failure', reason: string | null) => req.auditNow({ action: 'auth.mfa_internal_verify', userId: u.id, username: u.username, outcome, reason })
          const charge = await d.challenges.charge(u.id, ch)
          if (charge.state === 'closed') {
            await audit('failure', 'mfa_challenge_closed')
            return { valid: false, remaining: 0 }
          }
          await req.rateLimit(CODE_LIMIT_PER_USER.name, u.id, { id: u.id, username: u.username })
          // A user who chose the push alone (GET/PUT /mfa/factors) gives no code: as if none were enrolled.
          const outcome = !u.enabled ? 'disabled' : (await d.push.factorsOf(u.id)).allowed.includes('totp') ? await d.store.consume(u.id, req.body.code) : 'not_enrolled'
          if (outcome === 'accepted') {
            await d.challenges.spend(u.id, ch)
            await audit('success', null)
            return { valid: true, remaining: 0 }
          }
          const remaining = outcome === 'wrong_code' ? MFA_CODE_BUDGET - charge.attempt : 0
          if (remaining === 0) await d.challenges.burn(u.id, ch)
          req.log.info({ user: u.id, outcome, remaining }, 'internal MFA check refused a code of a device login')
          await audit('failure', outcome === 'disabled' ? 'disabled' : outcome === 'not_enrolled' ? 'mfa_not_enrolled' : remaining === 0 ? 'mfa_budget_spent' : 'mfa_bad_code')
          return { valid: false, remaining }
        }
      },
    }),
  ]
}
