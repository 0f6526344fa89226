import { Type } from '../../../sdk/index.js'
import { TotpCode } from './common.js'

export const InternalVerifyRequest = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 64 }), code: TotpCode },
  { title: 'MfaInternalVerifyRequest', additionalProperties: false },
)

export const InternalVerifyResponse = Type.Object(
  { valid: Type.Boolean({ description: 'True when the code is right and unspent; it is spent by this call.' }) },
  { title: 'MfaInternalVerifyResponse', additionalProperties: false },
)
