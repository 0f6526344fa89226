/**
 * The mobile contract: what the app calls. Each route checks the request's shape and relays it to
 * the core over the signed channel; the core checks what it means (the enrollment token, the device
 * signature, the challenge's state) and its answer goes back unchanged (docs/push-mfa.md).
 */
import { endpointNotAllowed, PushError } from '../errors.js'
import type { PushRoute, RouteInput } from '../http.js'
import type { CoreRelay } from '../relay.js'
import { AnswerRequest, AnswerResponse, ChallengeList, ChallengeParams, DeviceHeaders, DeviceResponse, DeviceUpdate, EnrollRequest, EnrollResponse, type PushAddress, ServiceInfo } from '../schemas.js'
import { PUSH_SERVICE_VERSION } from '../version.js'

const CORE = '/api/v1/mfa/internal/app'

const DEVICE_AUTH = 'Signed by the device key: headers X-Device-Id, X-Device-Timestamp, X-Device-Signature (see the parameters). 401 PUSH_DEVICE_UNKNOWN (unknown or removed device), PUSH_SIGNATURE_INVALID, PUSH_CLOCK_SKEW (correct the clock by the Date header and retry).'

export interface MobileDeps {
  relay: CoreRelay
  /** The address kind this service delivers to: an enrollment with another kind could never be reached. */
  delivery: PushAddress['kind']
  vapidPublicKey: string | null
  /** The sender's refusal of an address of its kind (a Web Push endpoint off the allowed push networks), or null. */
  addressRefusal: (address: PushAddress) => string | null
}

const hostOf = (endpoint: string) => {
  try {
    return new URL(endpoint).hostname
  } catch {
    return endpoint.slice(0, 64)
  }
}

export function mobileRoutes(d: MobileDeps): PushRoute[] {
  const relay = (method: string, corePath: (i: RouteInput) => string) => (i: RouteInput) =>
    d.relay.relay({ method, corePath: corePath(i), raw: i.raw, headers: i.headers, ip: i.ip })
  return [
    {
      method: 'GET',
      path: '/v1/service',
      operationId: 'getService',
      tag: 'mobile',
      auth: 'none',
      summary: 'What this push service is: its contract version, how it delivers, its VAPID key',
      description: 'The app reads it before enrolling: `vapid_public_key` is the applicationServerKey of a Web Push subscription.',
      responses: { 200: ServiceInfo },
      limited: true,
      handle: async () => ({ status: 200, body: { service_version: PUSH_SERVICE_VERSION, delivery: d.delivery, vapid_public_key: d.vapidPublicKey } }),
    },
    {
      method: 'POST',
      path: '/v1/devices',
      operationId: 'enrollDevice',
      tag: 'mobile',
      auth: 'enrollment',
      summary: 'Enroll this phone with the one-time token of the QR code',
      description:
        'The QR code is `portcullis-push://enroll?v=1&url=<this service>&token=<token>`; the token lives 10 minutes and serves once. 401 PUSH_ENROLLMENT_INVALID: unknown, used or expired token. 422 at `signature`: the proof of possession does not verify with `public_key`. 422 PUSH_ADDRESS_UNSUPPORTED at `push.kind`: this service delivers another kind (GET /v1/service `delivery`); at `push.endpoint`: the Web Push endpoint is not on a push network this service posts to.',
      body: EnrollRequest,
      responses: { 201: EnrollResponse, 401: null, 404: null },
      limited: true,
      handle: async (i) => {
        const address = (i.body as { push: PushAddress }).push
        if (address.kind !== d.delivery) throw new PushError(422, 'PUSH_ADDRESS_UNSUPPORTED', { sender: d.delivery }, 'push.kind')
        // Before the core: a phone must not make this service post to an address of the operator's network.
        if (address.kind === 'webpush' && d.addressRefusal(address)) throw endpointNotAllowed(hostOf(address.endpoint))
        return relay('POST', () => `${CORE}/devices`)(i)
      },
    },
    {
      method: 'GET',
      path: '/v1/device',
      operationId: 'getDevice',
      tag: 'mobile',
      auth: 'device',
      summary: 'This phone as the platform knows it',
      description: DEVICE_AUTH,
      headers: DeviceHeaders,
      responses: { 200: DeviceResponse, 401: null, 404: null },
      limited: true,
      handle: relay('GET', () => `${CORE}/device`),
    },
    {
      method: 'PATCH',
      path: '/v1/device',
      operationId: 'renameDevice',
      tag: 'mobile',
      auth: 'device',
      summary: 'Rename this phone',
      description: DEVICE_AUTH,
      headers: DeviceHeaders,
      body: DeviceUpdate,
      responses: { 200: DeviceResponse, 401: null, 404: null },
      limited: true,
      handle: relay('PATCH', () => `${CORE}/device`),
    },
    {
      method: 'DELETE',
      path: '/v1/device',
      operationId: 'removeDevice',
      tag: 'mobile',
      auth: 'device',
      summary: 'Unenroll this phone',
      description: `Its pending challenges end (cancelled) and its signatures are refused from then on. ${DEVICE_AUTH}`,
      headers: DeviceHeaders,
      responses: { 204: null, 401: null, 404: null },
      limited: true,
      handle: relay('DELETE', () => `${CORE}/device`),
    },
    {
      method: 'GET',
      path: '/v1/challenges',
      operationId: 'listChallenges',
      tag: 'mobile',
      auth: 'device',
      summary: "The pending challenges of this phone's user, oldest first",
      description: `Fetched when a notification arrives (its payload holds no user data). Sign-ins in a row form a burst (\`burst.count\`): show them as one, with a "report" answer. The number of number matching is never sent: the user reads it from the sign-in screen. ${DEVICE_AUTH}`,
      headers: DeviceHeaders,
      responses: { 200: ChallengeList, 401: null, 404: null },
      limited: true,
      handle: relay('GET', () => `${CORE}/challenges`),
    },
    {
      method: 'POST',
      path: '/v1/challenges/{id}/answer',
      operationId: 'answerChallenge',
      tag: 'mobile',
      auth: 'device',
      summary: 'Approve, deny or report a challenge',
      description: `Result \`wrong_number\`: an approval with number matching and another number (the challenge ends, a wrong answer). 409 PUSH_CHALLENGE_CLOSED: decided, expired or cancelled (an answer counts once). 404 PUSH_CHALLENGE_NOT_FOUND: unknown, or another user's. 401 PUSH_SIGNATURE_INVALID: the answer's signature is not this device's over these fields. ${DEVICE_AUTH}`,
      params: ChallengeParams,
      headers: DeviceHeaders,
      body: AnswerRequest,
      responses: { 200: AnswerResponse, 401: null, 404: null, 409: null },
      limited: true,
      handle: relay('POST', (i) => `${CORE}/challenges/${encodeURIComponent(i.params.id)}/answer`),
    },
  ]
}
