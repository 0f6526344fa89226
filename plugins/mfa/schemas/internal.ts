import { Type } from '../../../sdk/index.js'
import { TotpCode } from './common.js'
import { CHALLENGE_PATTERN } from '../services/device-challenge.js'

const Username = Type.String({ minLength: 1, maxLength: 64 })
const Challenge = Type.String({ pattern: CHALLENGE_PATTERN, minLength: 32, maxLength: 32, description: 'The challenge POST /api/v1/mfa/internal/check opened for this user (32 lowercase hex digits).' })

export const InternalVerifyRequest = Type.Object(
  {
    username: Username,
    code: TotpCode,
    challenge: Type.Optional(Challenge),
  },
  { title: 'MfaInternalVerifyRequest', additionalProperties: false },
)

export const InternalVerifyResponse = Type.Object(
  {
    valid: Type.Boolean({ description: 'True when the code is right and unspent; it is spent by this call.' }),
    remaining: Type.Optional(Type.Integer({ minimum: 0, description: 'With a challenge only: the wrong codes the challenge still takes (0: it is closed; the login starts again from the password).' })),
  },
  { title: 'MfaInternalVerifyResponse', additionalProperties: false },
)

export const InternalCheckRequest = Type.Object({ username: Username }, { title: 'MfaInternalCheckRequest', additionalProperties: false })

export const InternalCheckResponse = Type.Object(
  {
    required: Type.Boolean({ description: 'True when the user is enabled and has a confirmed authenticator: the login needs a code.' }),
    challenge: Type.Union([Type.String({ pattern: CHALLENGE_PATTERN }), Type.Null()], { description: 'When required: the challenge to send back with the code to POST /api/v1/mfa/internal/verify (five wrong codes close it; it lasts 5 minutes). Null otherwise.' }),
  },
  { title: 'MfaInternalCheckResponse', additionalProperties: false },
)
