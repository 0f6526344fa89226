/**
 * The two gates of the routes the push service calls: its channel signature (the shared key,
 * sdk/signed-request.ts), then the phone's own signature over the request (the device key). The
 * core's release goes out in X-Service-Core-Version only once the channel signature verified,
 * on errors too.
 */
import { CommonErrors, isPortcullisError, verifySignedRequest, type RouteRequest } from '../../../sdk/index.js'
import { MfaErrors } from '../errors.js'
import { DEVICE_CLOCK_WINDOW_SECONDS, parsePublicKey, requestText, verifyDeviceSignature } from '../services/push/crypto.js'
import { isUuid } from '../services/push/devices.js'
import type { PushDeviceRow } from '../tables.js'
import type { MfaRouteDeps } from './deps.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's request
type AnyReq = RouteRequest<any, any, any>

export const CORE_PREFIX = '/api/v1/mfa/internal/app'
/** The path the app signed: the push service's, `/v1/...`, for the core's `/api/v1/mfa/internal/app/...`. */
export const appPathOf = (corePath: string) => '/v1' + corePath.slice(CORE_PREFIX.length)

const header = (req: AnyReq, name: string): string => {
  const v = req.headers[name]
  return typeof v === 'string' ? v : ''
}

/** What the push service says it is (informational; the app shows it). */
export const serviceVersionOf = (req: AnyReq): string => {
  const v = header(req, 'x-push-service-version')
  return /^[0-9A-Za-z.+-]{1,32}$/.test(v) ? v : 'unknown'
}

/**
 * Runs `fn` once the push service's signature over this request verified; every answer after that,
 * error or not, carries X-Service-Core-Version.
 */
export async function signedByPushService<T>(d: MfaRouteDeps, req: AnyReq, method: string, corePath: string, body: Buffer | string, fn: (versionHeader: Record<string, string>) => Promise<T>): Promise<T> {
  const key = d.push.channelKey
  if (key === null) throw MfaErrors.pushDisabled()
  const refusal = verifySignedRequest(key, { method, path: corePath, body }, req.headers, d.push.nonces)
  if (refusal) {
    req.log.warn({ refusal }, 'push service request refused: channel signature')
    throw MfaErrors.pushChannelInvalid()
  }
  const versionHeader = { 'X-Service-Core-Version': d.push.coreVersion }
  try {
    return await fn(versionHeader)
  } catch (e) {
    if (isPortcullisError(e)) Object.assign(e.headers, versionHeader)
    throw e
  }
}

/** The enrolled device whose key signed this request (X-Device-Id, X-Device-Timestamp, X-Device-Signature). */
export async function signingDevice(d: MfaRouteDeps, req: AnyReq, method: string, corePath: string, body: Buffer | string): Promise<PushDeviceRow> {
  const id = header(req, 'x-device-id')
  const device = isUuid(id) ? await d.push.devices.get(id) : null
  if (!device) throw MfaErrors.pushDeviceUnknown()
  const timestamp = header(req, 'x-device-timestamp')
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw MfaErrors.pushSignatureInvalid()
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > DEVICE_CLOCK_WINDOW_SECONDS) throw MfaErrors.pushClockSkew()
  const key = parsePublicKey(device.algorithm, device.public_key)
  if (!key || !verifyDeviceSignature(device.algorithm, key, requestText(method, appPathOf(corePath), timestamp, body), header(req, 'x-device-signature'))) {
    throw MfaErrors.pushSignatureInvalid()
  }
  // A device removed between the read and now has no row: its signature is refused from then on.
  await d.push.devices.seen(device.id)
  return device
}

/** The app's JSON body (relayed byte for byte), parsed; 422 when it is not a JSON object. */
export function jsonObject(raw: Buffer | null): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse((raw ?? Buffer.alloc(0)).toString('utf8'))
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>
  } catch {
    // below
  }
  throw CommonErrors.validation({ field: 'body' })
}

/** A string field of 1..max characters (with an optional pattern), or 422 at the field. */
export function stringField(o: Record<string, unknown>, field: string, max: number, pattern?: RegExp): string {
  const v = o[field]
  if (typeof v !== 'string' || v.length < 1 || v.length > max || (pattern && !pattern.test(v))) throw CommonErrors.validation({ field })
  return v
}
