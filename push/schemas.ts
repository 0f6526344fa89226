/**
 * The mobile contract's shapes and the core's notify call, one TypeBox schema each: the same schema
 * validates the request and documents it in /openapi.json (a `title` makes it a named component).
 * The push service checks shapes only; what they mean (is the token live, is the signature the
 * device's) the core decides (docs/push-mfa.md).
 */
import Type, { type Static, type TSchema } from 'typebox'

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()])
const Base64Url = (min: number, max: number, description: string) => Type.String({ minLength: min, maxLength: max, pattern: '^[A-Za-z0-9_-]+$', description })
const Uuid = (description: string) => Type.String({ format: 'uuid', description })
const Timestamp = (description: string) => Type.String({ format: 'date-time', description })
const ServiceVersion = Type.String({ description: "The push service's contract version (1.0.0): the app checks it supports it." })

export const WebPushAddress = Type.Object(
  {
    kind: Type.Literal('webpush'),
    endpoint: Type.String({ maxLength: 2048, format: 'uri', pattern: '^https://', description: "The subscription's endpoint (https) at the phone's push service (RFC 8030)." }),
    keys: Type.Object(
      {
        p256dh: Base64Url(80, 100, "The subscription's P-256 ECDH public key (65 bytes, uncompressed point), base64url."),
        auth: Base64Url(16, 32, "The subscription's authentication secret (16 bytes), base64url."),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'WebPushAddress', additionalProperties: false, description: 'A Web Push subscription (RFC 8030, RFC 8291): what PushManager.subscribe() gives, with the VAPID key of GET /v1/service.' },
)

export const QueueAddress = Type.Object(
  { kind: Type.Literal('queue'), queue: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$', description: 'A queue name.' }) },
  { title: 'QueueAddress', additionalProperties: false, description: "The push service's in-process queue: scripted phones of the tests and benchmarks only." },
)

/** One of the kinds, chosen by `kind` (a discriminator: the error points into the kind's own fields). */
export const PushAddress = Type.Unsafe<Static<typeof WebPushAddress> | Static<typeof QueueAddress>>({
  title: 'PushAddress',
  description: 'Where the push service delivers the notifications of a device. APNs and FCM kinds are for later (docs/push-mfa.md).',
  type: 'object',
  required: ['kind'],
  discriminator: { propertyName: 'kind' },
  oneOf: [WebPushAddress, QueueAddress],
})
export type PushAddress = Static<typeof PushAddress>

/** A device key's signature, base64url: P-256 as IEEE P1363 (r‖s, 64 bytes), Ed25519 as is (64 bytes). */
const Signature = (over: string) => Base64Url(40, 200, `The device key's signature (base64url; P-256 as IEEE P1363 r‖s, Ed25519 as is) over ${over}.`)
const DeviceName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description: 'A name the user recognises the phone by.' })
const Algorithm = Type.Union([Type.Literal('p256'), Type.Literal('ed25519')], { description: "The device key's algorithm." })

export const EnrollRequest = Type.Object(
  {
    token: Base64Url(20, 128, 'The one-time enrollment token from the QR code (portcullis-push://enroll?v=1&url=…&token=…).'),
    name: DeviceName,
    algorithm: Algorithm,
    public_key: Base64Url(40, 200, "The device key's public half: SPKI DER, base64url. The private half never leaves the phone."),
    push: PushAddress,
    signature: Signature('`portcullis-push-enroll\\n<token>\\n<public_key>`'),
  },
  { title: 'PushEnrollRequest', additionalProperties: false },
)

export const EnrollResponse = Type.Object(
  { device_id: Uuid('The device, for X-Device-Id.'), username: Type.String(), name: Type.String(), service_version: ServiceVersion },
  { title: 'PushEnrollResponse', additionalProperties: false },
)

export const DeviceResponse = Type.Object(
  {
    device_id: Uuid('The device.'),
    username: Type.String(),
    name: Type.String(),
    algorithm: Algorithm,
    created_at: Timestamp('When the phone was enrolled.'),
    service_version: ServiceVersion,
  },
  { title: 'PushDeviceResponse', additionalProperties: false },
)

export const DeviceUpdate = Type.Object({ name: DeviceName }, { title: 'PushDeviceUpdate', additionalProperties: false })

export const Challenge = Type.Object(
  {
    id: Uuid('The challenge.'),
    nonce: Type.String({ description: 'Signed with the answer: an answer to another challenge does not verify.' }),
    origin: Type.Union([Type.Literal('sign_in'), Type.Literal('radius'), Type.Literal('tacacs'), Type.Literal('portal')], { description: 'Who asked: the console or API sign-in, a RADIUS or TACACS+ login, the portal.' }),
    context: Type.Object(
      { username: Type.String(), ip: Type.Optional(Type.String({ description: "The client's address." })), client: Type.Optional(Type.String({ description: 'The network device the login is on.' })) },
      { additionalProperties: false },
    ),
    created_at: Timestamp('When the sign-in asked.'),
    expires_at: Timestamp('When it ends unanswered.'),
    number_matching: Type.Boolean({ description: 'True: the sign-in screen shows a two-digit number; ask the user for it (it is never sent to the phone).' }),
    burst: Type.Object(
      { id: Uuid('The burst: sign-ins in a row, shown as one.'), count: Type.Integer({ minimum: 1, description: 'How many pushes the burst holds: many is a sign of MFA bombing; offer "report".' }) },
      { additionalProperties: false },
    ),
  },
  { title: 'PushChallenge', additionalProperties: false },
)

export const ChallengeList = Type.Object(
  { service_version: ServiceVersion, challenges: Type.Array(Challenge, { description: "The pending challenges of the device's user, oldest first." }) },
  { title: 'PushChallengeList', additionalProperties: false },
)

export const AnswerRequest = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('deny'), Type.Literal('report')], { description: 'report: "this was not me"; ends the burst and locks pushes for the user.' }),
    number: Nullable(Type.String({ pattern: '^[0-9]{1,8}$', description: 'The number the user typed (number matching), or null.' })),
    signature: Signature('`portcullis-push-answer\\n<challenge id>\\n<challenge nonce>\\n<decision>\\n<number or empty>`'),
  },
  { title: 'PushAnswerRequest', additionalProperties: false },
)

export const AnswerResponse = Type.Object(
  { result: Type.Union([Type.Literal('approved'), Type.Literal('denied'), Type.Literal('wrong_number'), Type.Literal('reported')]) },
  { title: 'PushAnswerResponse', additionalProperties: false },
)

export const ChallengeParams = Type.Object({ id: Uuid('The challenge.') }, { additionalProperties: false })

/** The headers of every device-signed request (all but enrollment). */
export const DeviceHeaders = Type.Object(
  {
    'x-device-id': Uuid('The device (device_id of the enrollment).'),
    'x-device-timestamp': Type.String({ pattern: '^[0-9]{1,12}$', description: "Unix seconds when the phone signed; ±300 s of the platform's clock (else 401 PUSH_CLOCK_SKEW: correct by the Date header)." }),
    'x-device-signature': Signature('`portcullis-push-request\\n<METHOD>\\n<path>\\n<timestamp>\\n<sha256 hex of the body bytes, empty for none>`'),
  },
  { additionalProperties: true },
)

export const ServiceInfo = Type.Object(
  {
    service_version: ServiceVersion,
    delivery: Type.Union([Type.Literal('webpush'), Type.Literal('queue')], { description: 'The push address kind this service delivers to.' }),
    vapid_public_key: Nullable(Type.String({ description: "The VAPID public key (base64url, P-256): the applicationServerKey for PushManager.subscribe(); null when delivery is not webpush." })),
  },
  { title: 'PushServiceInfo', additionalProperties: false },
)

export const Health = Type.Object(
  { status: Type.Literal('ok'), version: Type.String({ description: "The push service's contract version." }) },
  { title: 'PushHealth', additionalProperties: false },
)

export const NotifyPayload = Type.Object(
  {
    type: Type.Union([Type.Literal('challenge'), Type.Literal('cancel')], { description: 'challenge: fetch GET /v1/challenges; cancel: one ended, refresh.' }),
    challenge_id: Uuid('The challenge.'),
    burst_count: Type.Integer({ minimum: 0, maximum: 10000 }),
  },
  { title: 'PushPayload', additionalProperties: false, description: 'What reaches the phone: no user data (the app fetches the challenge).' },
)
export type NotifyPayload = Static<typeof NotifyPayload>

export const NotifyRequest = Type.Object(
  {
    notifications: Type.Array(
      Type.Object({ device_id: Uuid('The device.'), address: PushAddress, payload: NotifyPayload }, { additionalProperties: false }),
      { minItems: 1, maxItems: 20, description: "One per device of the user (a user's phones are few)." },
    ),
  },
  { title: 'PushNotifyRequest', additionalProperties: false },
)

export const NotifyResponse = Type.Object(
  { accepted: Type.Integer({ minimum: 0, description: 'How many notifications were handed to the sender (a kind this service does not deliver is not).' }) },
  { title: 'PushNotifyResponse', additionalProperties: false },
)

export const OpenApiDocument = Type.Unsafe<Record<string, unknown>>({ type: 'object', required: ['openapi', 'info', 'paths'], description: 'An OpenAPI 3.1 document.' })

export const ErrorBody = Type.Object(
  {
    detail: Type.String({ description: 'Human-readable message in the language of Accept-Language (en, ru).' }),
    code: Type.String({ description: 'Stable machine code; see docs/push-mfa.md.' }),
    field: Nullable(Type.String({ description: 'Path of the offending field, or null.' })),
  },
  { title: 'ErrorBody', additionalProperties: false },
)

export const RateLimitBody = Type.Object(
  { detail: Type.String(), retry_after: Type.Integer({ minimum: 1, description: 'Seconds to wait.' }) },
  { title: 'RateLimitBody', additionalProperties: false },
)
