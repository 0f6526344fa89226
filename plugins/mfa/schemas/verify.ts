import { Type } from '../../../sdk/index.js'
import { TotpCode } from './common.js'

export const VerifyRequest = Type.Object(
  {
    mfa_token: Type.String({ minLength: 1, maxLength: 4096, description: 'The `mfa_token` from POST /api/v1/auth/login.' }),
    code: TotpCode,
  },
  { title: 'MfaVerifyRequest', additionalProperties: false },
)

/** What completing the login gives: a session, or the password change the account still owes. */
export const VerifyResponse = Type.Union(
  [
    Type.Object(
      {
        access_token: Type.String({ description: 'JWT of purpose `session`; send as `Authorization: Bearer`.' }),
        token_type: Type.Literal('bearer'),
        expires_in: Type.Integer(),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        status: Type.Literal('password_change_required'),
        password_change_token: Type.String({ description: 'Bearer token accepted only by POST /api/v1/auth/change-password.' }),
        expires_in: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  ],
  { title: 'MfaVerifyResponse' },
)
