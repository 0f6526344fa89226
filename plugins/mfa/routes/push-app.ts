/**
 * The routes the push service calls for the phones (docs/push-mfa.md, "Mobile contract"): the push
 * service relays the app's request byte for byte with the app's X-Device-* headers; the core checks
 * the meaning (the enrollment code, the device key's signatures, the challenge's state) and its
 * answer goes back to the app unchanged. Two gates: the channel signature of the push service
 * (401 PUSH_CHANNEL_INVALID; 404 MFA_PUSH_DISABLED while server option mfa.push_service_key is null),
 * then the phone's own signature.
 */
import { CommonErrors, defineRoute, ErrorBody, PUBLIC, reply, type RouteRequest, type TSchema } from '../../../sdk/index.js'
import { MfaErrors } from '../errors.js'
import { AppAnswerBody, AppAnswerResult, AppChallenges, AppDevice, AppEnrolled, AppEnrollBody, ChallengeParams, PushDeviceRename } from '../schemas/push.js'
import { AnswerError, type Decision } from '../services/push/challenges.js'
import { answerText, enrollProofText, parsePublicKey, verifyDeviceSignature } from '../services/push/crypto.js'
import type { PushAddress } from '../services/push/types.js'
import type { PushDeviceRow } from '../tables.js'
import type { MfaRouteDeps } from './deps.js'
import { CORE_PREFIX, jsonObject, serviceVersionOf, signedByPushService, signingDevice, stringField } from './push-channel.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's request
type AnyReq = RouteRequest<any, any, any>

const JSON_BODY = (what: string, jsonSchema: TSchema) => ({ mediaTypes: ['application/json'], maxBytes: 8192, jsonSchema, description: `${what} The app's JSON, relayed byte for byte (its hash is in the device signature).` })
const TAGS = ['mfa (push service)']
const GATE =
  'Called by the push service only (docs/push-mfa.md): no bearer token; the push service signs every request with the key of server option `mfa.push_service_key` (headers x-portcullis-timestamp, -nonce, -signature; 401 PUSH_CHANNEL_INVALID otherwise, 404 MFA_PUSH_DISABLED while the option is null). Answers carry X-Service-Core-Version once that signature verified.'
const DEVICE_GATE =
  'The phone signs the request with its device key: headers X-Device-Id, X-Device-Timestamp (unix seconds, within ±300 s: 401 PUSH_CLOCK_SKEW) and X-Device-Signature over `portcullis-push-request\\n<METHOD>\\n</v1 path>\\n<timestamp>\\n<sha256 hex of the body, empty for none>` (401 PUSH_SIGNATURE_INVALID; an unknown or removed device 401 PUSH_DEVICE_UNKNOWN).'
/** Per client (the push service's address): generous, it relays every phone; the signatures are the wall. */
const APP_LIMIT = { max: 600, windowSeconds: 60 }

function pushAddressOf(v: unknown): PushAddress {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>
  const str = (x: unknown, max: number) => typeof x === 'string' && x.length > 0 && x.length <= max
  if (o.kind === 'webpush' && str(o.endpoint, 2048) && /^https?:\/\//.test(o.endpoint as string) && Object.keys(o).every((k) => ['kind', 'endpoint', 'keys'].includes(k))) {
    const keys = (typeof o.keys === 'object' && o.keys !== null ? o.keys : {}) as Record<string, unknown>
    if (str(keys.p256dh, 200) && str(keys.auth, 100) && Object.keys(keys).length === 2) return { kind: 'webpush', endpoint: o.endpoint as string, keys: { p256dh: keys.p256dh as string, auth: keys.auth as string } }
  }
  if (o.kind === 'queue' && str(o.queue, 200) && Object.keys(o).length === 2) return { kind: 'queue', queue: o.queue as string }
  throw CommonErrors.validation({ field: 'push' })
}

function onlyFields(o: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(o).find((k) => !allowed.includes(k))
  if (extra) throw CommonErrors.validation({ field: extra })
}

const deviceView = (req: AnyReq, dev: PushDeviceRow, username: string) => ({
  device_id: dev.id,
  username,
  name: dev.name,
  algorithm: dev.algorithm,
  created_at: dev.created_at.toISOString(),
  service_version: serviceVersionOf(req),
})

export function pushAppRoutes(d: MfaRouteDeps) {
  const usernameOf = async (userId: string) => (await d.identity.findUser({ id: userId }))?.username ?? ''
  return [
    defineRoute({
      method: 'POST',
      path: '/mfa/internal/app/devices',
      permission: PUBLIC,
      rateLimit: APP_LIMIT,
      summary: 'Enroll a phone (relayed from the app by the push service)',
      description: `${GATE}\n\nBody \`{token, name, algorithm: 'p256'|'ed25519', public_key (base64url SPKI DER), push (the push address), signature}\`; \`signature\` is the device key's over \`portcullis-push-enroll\\n<token>\\n<public_key>\` (proof of possession; P-256 as IEEE-P1363 r‖s). The token is the QR code's (POST /api/v1/mfa/push-enrollment): one use, 10 minutes; unknown, used or expired → 401 PUSH_ENROLLMENT_INVALID. 422 PUSH_PUBLIC_KEY_INVALID (field public_key), 422 PUSH_PROOF_INVALID (field signature): the token stays unused. Audited as mfa.push_device_added.`,
      tags: TAGS,
      rawBody: JSON_BODY('The enrollment.', AppEnrollBody),
      schema: { response: { 201: AppEnrolled, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody } },
      handler: (req) =>
        signedByPushService(d, req, 'POST', `${CORE_PREFIX}/devices`, req.rawBody ?? '', async (headers) => {
          const b = jsonObject(req.rawBody)
          onlyFields(b, ['token', 'name', 'algorithm', 'public_key', 'push', 'signature'])
          const token = stringField(b, 'token', 200)
          const name = stringField(b, 'name', 64)
          if (b.algorithm !== 'p256' && b.algorithm !== 'ed25519') throw CommonErrors.validation({ field: 'algorithm' })
          const algorithm = b.algorithm
          const publicKey = stringField(b, 'public_key', 1000, /^[A-Za-z0-9_-]+$/)
          const address = pushAddressOf(b.push)
          const signature = stringField(b, 'signature', 200)
          const userId = await d.push.devices.tokenUser(token)
          if (!userId) throw MfaErrors.pushEnrollmentInvalid({ field: 'token' })
          const key = parsePublicKey(algorithm, publicKey)
          if (!key) throw MfaErrors.pushPublicKeyInvalid({ field: 'public_key' })
          if (!verifyDeviceSignature(algorithm, key, enrollProofText(token, publicKey), signature)) throw MfaErrors.pushProofInvalid({ field: 'signature' })
          const user = await d.identity.findUser({ id: userId })
          if (!user || !user.enabled) throw MfaErrors.pushEnrollmentInvalid({ field: 'token' })
          const device = await req.transaction(async (trx) => {
            // Locked until commit: a racing delete of the user waits, then clears the new device.
            if (!(await d.identity.references.user.lockExisting([userId], trx)).size) return null
            const dev = await d.push.devices.redeem(token, userId, { name, algorithm, publicKey, address }, trx)
            if (dev) await req.audit({ action: 'mfa.push_device_added', resourceType: 'user', resourceId: userId, after: { device_id: dev.id, name, algorithm } }, trx)
            return dev
          })
          if (!device) throw MfaErrors.pushEnrollmentInvalid({ field: 'token' })
          return reply({ status: 201, headers, body: { device_id: device.id, username: user.username, name: device.name, service_version: serviceVersionOf(req) } })
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/mfa/internal/app/device',
      permission: PUBLIC,
      rateLimit: APP_LIMIT,
      summary: 'The signing phone, as enrolled (relayed)',
      description: `${GATE}\n\n${DEVICE_GATE}`,
      tags: TAGS,
      schema: { response: { 200: AppDevice, 401: ErrorBody, 404: ErrorBody } },
      handler: (req) =>
        signedByPushService(d, req, 'GET', `${CORE_PREFIX}/device`, '', async (headers) => {
          const dev = await signingDevice(d, req, 'GET', `${CORE_PREFIX}/device`, '')
          return reply({ status: 200, headers, body: deviceView(req, dev, await usernameOf(dev.user_id)) })
        }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/mfa/internal/app/device',
      permission: PUBLIC,
      rateLimit: APP_LIMIT,
      summary: 'Rename the signing phone (relayed)',
      description: `${GATE}\n\n${DEVICE_GATE}\n\nBody \`{name}\` (1..64 characters). Audited as mfa.push_device_renamed.`,
      tags: TAGS,
      rawBody: JSON_BODY('`{name}`.', PushDeviceRename),
      schema: { response: { 200: AppDevice, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody } },
      handler: (req) =>
        signedByPushService(d, req, 'PATCH', `${CORE_PREFIX}/device`, req.rawBody ?? '', async (headers) => {
          const dev = await signingDevice(d, req, 'PATCH', `${CORE_PREFIX}/device`, req.rawBody ?? '')
          const b = jsonObject(req.rawBody)
          onlyFields(b, Object.keys(PushDeviceRename.properties))
          const name = stringField(b, 'name', 64)
          const renamed = await req.transaction(async (trx) => {
            const r = await d.push.devices.rename(dev.user_id, dev.id, name, trx)
            if (r) await req.audit({ action: 'mfa.push_device_renamed', resourceType: 'user', resourceId: dev.user_id, before: { device_id: dev.id, name: dev.name }, after: { device_id: dev.id, name } }, trx)
            return r
          })
          if (!renamed) throw MfaErrors.pushDeviceUnknown()
          return reply({ status: 200, headers, body: deviceView(req, renamed, await usernameOf(dev.user_id)) })
        }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/mfa/internal/app/device',
      permission: PUBLIC,
      rateLimit: APP_LIMIT,
      summary: 'The phone unenrolls itself (relayed)',
      description: `${GATE}\n\n${DEVICE_GATE}\n\nRemoves the device; the user's pending push challenges end (cancelled) and its signatures are refused from then on. Audited as mfa.push_device_removed.`,
      tags: TAGS,
      schema: { response: { 204: null, 401: ErrorBody, 404: ErrorBody } },
      handler: (req) =>
        signedByPushService(d, req, 'DELETE', `${CORE_PREFIX}/device`, '', async (headers) => {
          const dev = await signingDevice(d, req, 'DELETE', `${CORE_PREFIX}/device`, '')
          await removeDevice(d, req, dev.user_id, dev.id, 'app')
          return reply({ status: 204, headers })
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/mfa/internal/app/challenges',
      permission: PUBLIC,
      rateLimit: APP_LIMIT,
      summary: "The signing phone's pending sign-in requests (relayed)",
      description: `${GATE}\n\n${DEVICE_GATE}\n\nThe pending challenges of the device's user, oldest first, with their burst (several requests in a row show as one, with one "report" answer). The number of number matching is never sent: the phone asks the user for it.`,
      tags: TAGS,
      schema: { response: { 200: AppChallenges, 401: ErrorBody, 404: ErrorBody } },
      handler: (req) =>
        signedByPushService(d, req, 'GET', `${CORE_PREFIX}/challenges`, '', async (headers) => {
          const dev = await signingDevice(d, req, 'GET', `${CORE_PREFIX}/challenges`, '')
          return reply({ status: 200, headers, body: { service_version: serviceVersionOf(req), challenges: await d.push.challenges.pending(dev.user_id) } })
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/mfa/internal/app/challenges/{challenge_id}/answer',
      permission: PUBLIC,
      rateLimit: APP_LIMIT,
      summary: 'Answer a sign-in request (relayed)',
      description: `${GATE}\n\n${DEVICE_GATE}\n\nBody \`{decision: 'approve'|'deny'|'report', number: string|null, signature}\`; \`signature\` is the device key's over \`portcullis-push-answer\\n<challenge id>\\n<challenge nonce>\\n<decision>\\n<number or ''>\` (401 PUSH_SIGNATURE_INVALID otherwise: another key, a field changed or moved). Result: approved; denied; wrong_number (approve with number matching and another number: the challenge ends as a wrong answer); reported (every pending challenge of the burst ends, pushes are locked for the user until cleared, audited as mfa.push_reported). 409 PUSH_CHALLENGE_CLOSED when already decided, expired or cancelled (a replay, a second approval, a disabled user); 404 PUSH_CHALLENGE_NOT_FOUND for an unknown one or another user's.`,
      tags: TAGS,
      rawBody: JSON_BODY('The answer.', AppAnswerBody),
      schema: { params: ChallengeParams, response: { 200: AppAnswerResult, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: (req) => {
        const path = `${CORE_PREFIX}/challenges/${req.params.challenge_id}/answer`
        return signedByPushService(d, req, 'POST', path, req.rawBody ?? '', async (headers) => {
          const dev = await signingDevice(d, req, 'POST', path, req.rawBody ?? '')
          const b = jsonObject(req.rawBody)
          onlyFields(b, ['decision', 'number', 'signature'])
          if (b.decision !== 'approve' && b.decision !== 'deny' && b.decision !== 'report') throw CommonErrors.validation({ field: 'decision' })
          const decision: Decision = b.decision
          if (b.number !== null && b.number !== undefined && (typeof b.number !== 'string' || !/^[0-9]{1,8}$/.test(b.number))) throw CommonErrors.validation({ field: 'number' })
          const number = typeof b.number === 'string' ? b.number : null
          const signature = stringField(b, 'signature', 200)
          const key = parsePublicKey(dev.algorithm, dev.public_key)
          const verify = (nonce: string) => !!key && verifyDeviceSignature(dev.algorithm, key, answerText(req.params.challenge_id, nonce, decision, number), signature)
          try {
            const a = await d.push.challenges.answer(dev, req.params.challenge_id, { decision, number, verify })
            if (a.result === 'reported') {
              req.log.warn({ user: dev.user_id, device: dev.id }, 'push sign-in request reported by the user: pushes locked')
              await req.transaction((trx) => req.audit({ action: 'mfa.push_reported', resourceType: 'user', resourceId: dev.user_id, after: { device_id: dev.id, challenge_id: req.params.challenge_id, burst_id: a.burstId, ended: a.ended } }, trx))
            }
            return reply({ status: 200, headers, body: { result: a.result } })
          } catch (e) {
            if (!(e instanceof AnswerError)) throw e
            if (e.reason === 'not_found') throw MfaErrors.pushChallengeNotFound({ field: 'challenge_id' })
            if (e.reason === 'signature') throw MfaErrors.pushSignatureInvalid({ field: 'signature' })
            throw MfaErrors.pushChallengeClosed()
          }
        })
      },
    }),
  ]
}

/** Removes a device (by its user, its phone or an administrator): the user's pending pushes end with it. */
export async function removeDevice(d: MfaRouteDeps, req: AnyReq, userId: string, deviceId: string, by: 'app' | 'user' | 'admin'): Promise<boolean> {
  const ended: string[] = []
  const removed = await req.transaction(async (trx) => {
    const dev = await d.push.devices.remove(userId, deviceId, trx)
    if (!dev) return false
    ended.push(...(await d.push.challenges.cancelAll(userId, trx)))
    // The last factor gone: the recovery codes that backed it up go too.
    await d.recovery.revokeIfNoFactor(userId, trx)
    await req.audit({ action: 'mfa.push_device_removed', resourceType: 'user', resourceId: userId, before: { device_id: dev.id, name: dev.name }, after: { by } }, trx)
    return true
  })
  if (ended.length) d.push.challenges.ended(userId, ended)
  return removed
}
