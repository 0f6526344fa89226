/**
 * The one surface the RADIUS/NAC daemons call at run time: checking a code
 * during a live network authentication. Its credential is a shared key, not a
 * user token, and it is off until an administrator sets `mfa.internal_key`.
 */
import { defineRoute, ErrorBody, PUBLIC } from '../../../sdk/index.js'
import { MfaErrors } from '../errors.js'
import { InternalVerifyRequest, InternalVerifyResponse } from '../schemas/internal.js'
import { internalKeyMatches } from '../services/internal-key.js'
import { mfaInternalKey } from '../settings.js'
import type { MfaRouteDeps } from './deps.js'
import { CODE_LIMIT_PER_USER } from './verify.js'

export function internalRoutes(d: MfaRouteDeps) {
  return [
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
        `Codes checked for one existing user are limited to ${CODE_LIMIT_PER_USER.max} per ${CODE_LIMIT_PER_USER.windowSeconds / 60} minutes, counted together with POST /api/v1/mfa/verify: then 429 with Retry-After, whoever holds the key. Each check of an existing user is audited as \`auth.mfa_internal_verify\` (never the code); unknown names are not written, so they cannot fill the trail.`,
      ].join('\n\n'),
      tags: ['mfa'],
      schema: { body: InternalVerifyRequest, response: { 200: InternalVerifyResponse, 401: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const key = await d.settings.get(mfaInternalKey)
        if (key === null) throw MfaErrors.internalDisabled()
        if (!internalKeyMatches(key, req.headers['x-internal-key'])) throw MfaErrors.internalKeyInvalid()
        const user = await d.identity.findUser({ username: req.body.username })
        // An unknown name has no code to guess; nothing is counted or written for it.
        if (!user) return { valid: false }
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
      },
    }),
  ]
}
