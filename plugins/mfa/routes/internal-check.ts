/**
 * The daemons' first question during a device login, once the password is right: does this user
 * owe a second factor? Asked at each login, so enrolling or resetting an authenticator takes effect
 * at the next login with no deploy. The answer is the least a key holder needs: required or not
 * (an unknown user, a disabled one and one without MFA answer alike), and a challenge to send the
 * code back with.
 */
import { defineRoute, ErrorBody, PUBLIC } from '../../../sdk/index.js'
import { MFA_CODE_BUDGET, MfaErrors } from '../errors.js'
import { InternalCheckRequest, InternalCheckResponse } from '../schemas/internal.js'
import { DEVICE_CHALLENGE_SECONDS } from '../services/device-challenge.js'
import { internalKeyMatches } from '../services/internal-key.js'
import { mfaInternalKey } from '../settings.js'
import type { MfaRouteDeps } from './deps.js'

/** Challenges opened per user: each is a row until it expires, so a key holder cannot fill the table. */
export const CHALLENGE_LIMIT_PER_USER = { by: 'key', name: 'challenge_per_user', per: 'user', max: 30, windowSeconds: 300 } as const

export function internalCheckRoutes(d: MfaRouteDeps) {
  /** What the login can take: a code, a push, or both (the user's choice applied to what is enrolled). */
  const factorsOf = async (userId: string): Promise<('totp' | 'push')[]> => (await d.push.factorsOf(userId)).allowed

  return [
    defineRoute({
      method: 'POST',
      path: '/mfa/internal/check',
      permission: PUBLIC,
      rateLimit: [CHALLENGE_LIMIT_PER_USER],
      auditAs: 'auth.mfa_internal_check',
      summary: 'Ask whether a network login owes a code (daemons only)',
      description: [
        'Called by the RADIUS and TACACS+ daemons once a device login\'s password is right; no bearer token. The same key as POST /api/v1/mfa/internal/verify: header `X-Internal-Key` equal to setting `mfa.internal_key` (401 INTERNAL_KEY_INVALID), and 404 MFA_INTERNAL_DISABLED while that setting is null.',
        `Answers \`{ required, factors, challenge }\`. \`required\` is true when the user is enabled and has a second factor; \`factors\` says which the login can take: \`totp\` (a confirmed authenticator: send the code to POST /api/v1/mfa/internal/verify) and \`push\` (a push device: POST /api/v1/mfa/internal/push). An unknown user, a disabled one and one without MFA all answer \`{ required: false, factors: [], challenge: null }\`. When required, \`challenge\` opens a second-factor round of ${DEVICE_CHALLENGE_SECONDS / 60} minutes, sent back with the code or the push. A challenge takes ${MFA_CODE_BUDGET} wrong codes or pushes, like the \`mfa\` token of an API sign-in; then it is closed and the login starts again from the password.`,
        `At most ${CHALLENGE_LIMIT_PER_USER.max} challenges per user per ${CHALLENGE_LIMIT_PER_USER.windowSeconds / 60} minutes (429 with Retry-After). Nothing is audited here: the code check is.`,
      ].join('\n\n'),
      tags: ['mfa'],
      schema: { body: InternalCheckRequest, response: { 200: InternalCheckResponse, 401: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const key = await d.settings.get(mfaInternalKey)
        if (key === null) throw MfaErrors.internalDisabled()
        if (!internalKeyMatches(key, req.headers['x-internal-key'])) throw MfaErrors.internalKeyInvalid()
        const user = await d.identity.findUser({ username: req.body.username })
        const factors = user?.enabled ? await factorsOf(user.id) : []
        if (!user || factors.length === 0) return { required: false, factors: [], challenge: null }
        await req.rateLimit(CHALLENGE_LIMIT_PER_USER.name, user.id, { id: user.id, username: user.username })
        return { required: true, factors, challenge: await d.challenges.open(user.id) }
      },
    }),
  ]
}
