import { Type, Uuid } from '../../../sdk/index.js'
import { TotpCode } from './common.js'

const MfaToken = Type.String({ minLength: 1, maxLength: 4096, description: 'The `mfa_token` from POST /api/v1/auth/login.' })

/** Push polls wait at most this long per call: under the usual 30 s proxy and client timeouts. */
export const MAX_WAIT_SECONDS = 25

export const VerifyCode = Type.Object({ mfa_token: MfaToken, code: TotpCode }, { title: 'MfaVerifyCode', additionalProperties: false })
export const VerifyPushStart = Type.Object(
  { mfa_token: MfaToken, method: Type.Literal('push', { description: 'Send a push to the phone(s) of the user.' }) },
  { title: 'MfaVerifyPushStart', additionalProperties: false },
)
export const VerifyPushPoll = Type.Object(
  {
    mfa_token: MfaToken,
    push_challenge: Uuid({ description: 'From the `push_pending` answer.' }),
    wait_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, description: `Wait up to this long for the answer (0..${MAX_WAIT_SECONDS}; default 0).` })),
  },
  { title: 'MfaVerifyPushPoll', additionalProperties: false },
)

export const VerifyRequest = Type.Union([VerifyCode, VerifyPushStart, VerifyPushPoll], { title: 'MfaVerifyRequest' })

export const PushPending = Type.Object(
  {
    status: Type.Literal('push_pending'),
    push_challenge: Uuid(),
    number: Type.Union([Type.String({ pattern: '^[0-9]{2}$' }), Type.Null()], { description: 'Show it: the phone asks the user to type it (number matching).' }),
    expires_in: Type.Integer({ minimum: 0, description: 'Seconds the push stays open.' }),
  },
  { title: 'MfaPushPending', additionalProperties: false },
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
