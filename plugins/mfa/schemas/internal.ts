import { StringEnum, Type } from '../../../sdk/index.js'
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
    required: Type.Boolean({ description: 'True when the user is enabled and has a second factor (a confirmed authenticator or a push device): the login needs one.' }),
    factors: Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('push')]), { description: 'The second factors this login can take: `totp` (a code, POST /api/v1/mfa/internal/verify) and `push` (an approval on the phone, POST /api/v1/mfa/internal/push). Empty when not required.' }),
    challenge: Type.Union([Type.String({ pattern: CHALLENGE_PATTERN }), Type.Null()], { description: 'When required: the challenge to send back with the code to POST /api/v1/mfa/internal/verify, or with POST /api/v1/mfa/internal/push (five wrong codes or failed pushes close it; it lasts 5 minutes). Null otherwise.' }),
  },
  { title: 'MfaInternalCheckResponse', additionalProperties: false },
)

const PushChallengeId = Type.String({ format: 'uuid', description: 'The push challenge POST /api/v1/mfa/internal/push-start started for this device challenge.' })

export const InternalPushRequest = Type.Object(
  {
    username: Username,
    challenge: Challenge,
    origin: StringEnum(['radius', 'tacacs'], { description: 'The daemon asking: shown on the phone.' }),
    ip: Type.Optional(Type.String({ maxLength: 253, description: 'The client\'s address (RADIUS Calling-Station-Id, TACACS+ rem_addr), shown on the phone.' })),
    client: Type.Optional(Type.String({ maxLength: 253, description: 'The device the login is on (its name or address), shown on the phone.' })),
    number_matching: Type.Optional(Type.Boolean({ default: false, description: 'True when the daemon shows the answer\'s `number` to the user (RADIUS challenge mode): the phone then asks for it.' })),
  },
  { title: 'MfaInternalPushRequest', additionalProperties: false },
)

const Outcome = Type.Union(
  [Type.Literal('approved'), Type.Literal('denied'), Type.Literal('wrong_number'), Type.Literal('reported'), Type.Literal('expired'), Type.Literal('cancelled'), Type.Literal('timeout'), Type.Literal('no_device'), Type.Literal('locked'), Type.Literal('rate_limited'), Type.Literal('unavailable'), Type.Literal('challenge_closed')],
  {
    description:
      'How the push ended: `approved`; `denied`, `wrong_number` (the number typed on the phone was not the one shown), `reported` (the user reported the sign-in: pushes are locked for them), `expired`/`timeout` (nobody answered within setting mfa.push_timeout_seconds), `cancelled` (the device was removed, the user disabled); or why none was sent: `no_device`, `locked`, `rate_limited`, `unavailable` (the push service is not configured or down), `challenge_closed` (the device challenge is unknown, expired or its five attempts are spent).',
  },
)

export const InternalPushResult = Type.Object(
  {
    approved: Type.Boolean({ description: 'True only when the user approved the push on their phone: the login may go on.' }),
    outcome: Outcome,
  },
  { title: 'MfaInternalPushResult', additionalProperties: false },
)

export const InternalPushStarted = Type.Object(
  {
    sent: Type.Boolean({ description: 'True when the push was sent; false with `outcome` saying why not.' }),
    push_challenge: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    number: Type.Union([Type.String({ pattern: '^[0-9]{2}$' }), Type.Null()], { description: 'With number_matching: the two digits the daemon shows; the phone asks for them.' }),
    outcome: Type.Optional(Outcome),
  },
  { title: 'MfaInternalPushStarted', additionalProperties: false },
)

export const InternalPushWaitRequest = Type.Object({ username: Username, challenge: Challenge, push_challenge: PushChallengeId }, { title: 'MfaInternalPushWaitRequest', additionalProperties: false })
