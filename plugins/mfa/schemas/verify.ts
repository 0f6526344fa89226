import { StringEnum, Type, Uuid } from '../../../sdk/index.js'
import { TotpCode } from './common.js'
import { RecoveryCodeInput } from './recovery.js'

const MfaToken = Type.String({ minLength: 1, maxLength: 4096, description: 'The `mfa_token` from POST /api/v1/auth/login.' })

/** Push polls wait at most this long per call: under the usual 30 s proxy and client timeouts. */
export const MAX_WAIT_SECONDS = 25

/**
 * One object, not a union: a malformed field is refused at that field (a union would blame
 * whichever branch the validator tried last). Exactly one of `code`, `recovery_code`, `method`, `push_challenge`:
 * the handler refuses the others (422).
 */
export const VerifyRequest = Type.Object(
  {
    mfa_token: MfaToken,
    code: Type.Optional(TotpCode),
    recovery_code: Type.Optional(RecoveryCodeInput),
    method: Type.Optional(StringEnum(['push'], { description: "Send a push to the user's phone(s) instead of giving a code." })),
    push_challenge: Type.Optional(Uuid({ description: 'Poll the push from the `push_pending` answer.' })),
    wait_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, description: `With push_challenge: wait up to this long for the answer (0..${MAX_WAIT_SECONDS}; default 0).` })),
  },
  { title: 'MfaVerifyRequest', additionalProperties: false, description: '`{mfa_token, code}`, `{mfa_token, recovery_code}`, `{mfa_token, method: "push"}` or `{mfa_token, push_challenge, wait_seconds?}`.' },
)

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
