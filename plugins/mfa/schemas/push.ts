/** The push factor's shapes: the app's (relayed by the push service) and the people's routes. */
import { Nullable, StringEnum, Timestamp, Type, Uuid } from '../../../sdk/index.js'

const ServiceVersion = Type.String({ maxLength: 32, description: 'The push service\'s version (its contract with the app), as it relayed this request.' })
const DeviceName = Type.String({ minLength: 1, maxLength: 64, description: 'What the user calls the phone.' })
const Algorithm = StringEnum(['p256', 'ed25519'])

export const AppEnrolled = Type.Object(
  { device_id: Uuid(), username: Type.String(), name: Type.String(), service_version: ServiceVersion },
  { title: 'PushAppEnrolled', additionalProperties: false },
)

export const AppDevice = Type.Object(
  { device_id: Uuid(), username: Type.String(), name: Type.String(), algorithm: Algorithm, created_at: Timestamp(), service_version: ServiceVersion },
  { title: 'PushAppDevice', additionalProperties: false },
)

export const AppChallenge = Type.Object(
  {
    id: Uuid(),
    nonce: Type.String({ description: 'Signed with the answer: an answer belongs to this challenge only.' }),
    origin: Type.Union([Type.Literal('sign_in'), Type.Literal('radius'), Type.Literal('tacacs'), Type.Literal('portal')]),
    context: Type.Object({ username: Type.String(), ip: Type.Optional(Type.String()), client: Type.Optional(Type.String()) }, { additionalProperties: false }),
    created_at: Timestamp(),
    expires_at: Timestamp(),
    number_matching: Type.Boolean({ description: 'The phone asks for the number the sign-in screen shows (never sent here).' }),
    burst: Type.Object({ id: Uuid(), count: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  },
  { title: 'PushAppChallenge', additionalProperties: false },
)

export const AppChallenges = Type.Object({ service_version: ServiceVersion, challenges: Type.Array(AppChallenge) }, { title: 'PushAppChallenges', additionalProperties: false })

export const AppAnswerResult = Type.Object(
  { result: Type.Union([Type.Literal('approved'), Type.Literal('denied'), Type.Literal('wrong_number'), Type.Literal('reported')]) },
  { title: 'PushAppAnswerResult', additionalProperties: false },
)

export const ChallengeParams = Type.Object({ challenge_id: Type.String({ maxLength: 64 }) }, { additionalProperties: false })

// People's routes.

export const PushDevice = Type.Object(
  { id: Uuid(), name: Type.String(), algorithm: Algorithm, created_at: Timestamp(), last_seen_at: Nullable(Timestamp()) },
  { title: 'MfaPushDevice', additionalProperties: false },
)
export const PushDeviceList = Type.Object({ items: Type.Array(PushDevice) }, { title: 'MfaPushDeviceList', additionalProperties: false })
export const PushDeviceRename = Type.Object({ name: DeviceName }, { title: 'MfaPushDeviceRename', additionalProperties: false })
export const DeviceParams = Type.Object({ device_id: Uuid() }, { additionalProperties: false })
export const UserDeviceParams = Type.Object({ user_id: Uuid(), device_id: Uuid() }, { additionalProperties: false })

export const PushEnrollmentStarted = Type.Object(
  {
    token: Type.String({ description: 'One-time enrollment code (10 minutes), inside the QR code.' }),
    uri: Type.String({ description: 'portcullis-push://enroll?v=1&url=<push service>&token=<token>: what the QR code holds.' }),
    qr_svg: Type.String({ description: 'The URI as a QR code: data:image/svg+xml;base64,…' }),
    expires_at: Timestamp(),
  },
  { title: 'MfaPushEnrollmentStarted', additionalProperties: false },
)

const Choice = StringEnum(['totp', 'push', 'both'])
export const FactorsBody = Type.Object(
  { factors: Nullable(Choice) },
  { title: 'MfaFactorsUpdate', additionalProperties: false, description: '`factors`: which the sign-in offers; null: whatever is set up.' },
)
export const Factors = Type.Object(
  {
    factors: Nullable(Choice),
    allowed: Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('push')]), { description: 'What a sign-in may use now: the choice applied to what is set up.' }),
    totp_enrolled: Type.Boolean(),
    push_devices: Type.Integer({ minimum: 0 }),
    push_locked: Type.Boolean({ description: 'A "report" answer on the phone locked pushes until cleared (DELETE …/push-lock).' }),
    push_locked_at: Nullable(Timestamp()),
  },
  { title: 'MfaFactors', additionalProperties: false },
)

// The app's bodies as the push service relays them (read as bytes: the device signature covers them).

const B64u = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '^[A-Za-z0-9_-]+$' })
export const AppEnrollBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200 }),
    name: DeviceName,
    algorithm: Algorithm,
    public_key: B64u(1000),
    push: Type.Union([
      Type.Object(
        {
          kind: StringEnum(['webpush']),
          endpoint: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' }),
          keys: Type.Object({ p256dh: Type.String({ minLength: 1, maxLength: 200 }), auth: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        },
        { additionalProperties: false },
      ),
      Type.Object({ kind: StringEnum(['queue']), queue: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
    ]),
    signature: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { title: 'PushAppEnrollBody', additionalProperties: false },
)
export const AppAnswerBody = Type.Object(
  {
    decision: StringEnum(['approve', 'deny', 'report']),
    number: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{1,8}$' }))),
    signature: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { title: 'PushAppAnswerBody', additionalProperties: false },
)
