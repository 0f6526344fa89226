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

export function internalRoutes(d: MfaRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/mfa/internal/verify',
      permission: PUBLIC,
      summary: 'Check a TOTP code for a network login (daemons only)',
      description: [
        'Called by the RADIUS/NAC daemons during a live authentication; no bearer token. The request must carry header `X-Internal-Key` equal to setting `mfa.internal_key` (compared in constant time); a missing or wrong key answers 401 INTERNAL_KEY_INVALID.',
        'While `mfa.internal_key` is null (the default) the surface is disabled and answers 404 MFA_INTERNAL_DISABLED whatever the key.',
        'Answers `{ valid }`: true when the user exists, is enabled, has a confirmed authenticator and the code is right and unspent. A valid code is spent by this call: the same code is refused afterwards here and at POST /api/v1/mfa/verify. Unknown users and users without MFA answer `{ valid: false }`.',
      ].join('\n\n'),
      tags: ['mfa'],
      schema: { body: InternalVerifyRequest, response: { 200: InternalVerifyResponse, 401: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const key = await d.settings.get(mfaInternalKey)
        if (key === null) throw MfaErrors.internalDisabled()
        if (!internalKeyMatches(key, req.headers['x-internal-key'])) throw MfaErrors.internalKeyInvalid()
        const user = await d.identity.findUser({ username: req.body.username })
        if (!user || !user.enabled) return { valid: false }
        const valid = (await d.store.consume(user.id, req.body.code)) === 'accepted'
        if (!valid) req.log.info({ user: user.id }, 'internal MFA check refused a code')
        return { valid }
      },
    }),
  ]
}
