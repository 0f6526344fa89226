/**
 * The push factor for people: a user's own phones, factor choice and push lock (session; the QR
 * enrollment also with the emailed `mfa_enrollment` token), and the same for an administrator
 * acting on a user under the manage-another-user rule. An administrator never creates an enrollment
 * code for someone else: that would enroll the administrator's phone as the user. They send the
 * setup link (POST /api/v1/users/{user_id}/mfa/enrollment-link), whose page offers push too.
 */
import QRCode from 'qrcode'
import { AUTHENTICATED, defineRoute, ErrorBody, reply, type Actor, type Permission, type RouteRequest } from '../../../sdk/index.js'
import { MfaErrors } from '../errors.js'
import { MFA_MANAGE } from '../permissions.js'
import { UserParams } from '../schemas/common.js'
import { DeviceParams, Factors, PushDevice, FactorsBody, PushDeviceList, PushDeviceRename, PushEnrollmentStarted, UserDeviceParams } from '../schemas/push.js'
import { ENROLLMENT_TOKEN_SECONDS } from '../services/push/devices.js'
import type { FactorChoice, PushDeviceRow } from '../tables.js'
import type { MfaRouteDeps } from './deps.js'
import { removeDevice } from './push-app.js'
import { MANAGE_RULE } from './user-mfa.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's request
type AnyReq = RouteRequest<any, any, any>

/** Enrollment codes a user may create: enough to retry a scan, too few to fill the table. */
export const PUSH_ENROLLMENT_LIMIT = { by: 'user', max: 10, windowSeconds: 900 } as const

const deviceView = (r: PushDeviceRow) => ({ id: r.id, name: r.name, algorithm: r.algorithm, created_at: r.created_at.toISOString(), last_seen_at: r.last_seen_at ? r.last_seen_at.toISOString() : null })

export const enrollUri = (publicUrl: string, token: string) => `portcullis-push://enroll?v=1&url=${encodeURIComponent(publicUrl)}&token=${encodeURIComponent(token)}`

export function pushPeopleRoutes(d: MfaRouteDeps) {
  const manageable = (actor: Actor | null, id: string) => d.identity.assertMayManage(actor!, id)

  async function factorsView(userId: string) {
    const f = await d.push.factorsOf(userId)
    const lock = await d.push.factors.get(userId)
    return {
      factors: f.choice,
      allowed: f.allowed,
      totp_enrolled: f.totp,
      push_devices: await d.push.devices.count(userId),
      push_locked: lock.lockedAt !== null,
      push_locked_at: lock.lockedAt ? lock.lockedAt.toISOString() : null,
    }
  }

  async function setFactors(req: AnyReq, userId: string, choice: FactorChoice | null) {
    const f = await d.push.factorsOf(userId)
    if ((choice === 'totp' || choice === 'both') && !f.totp) throw MfaErrors.factorNotEnrolled({ field: 'factors' })
    if ((choice === 'push' || choice === 'both') && !f.push) throw MfaErrors.factorNotEnrolled({ field: 'factors' })
    await req.transaction(async (trx) => {
      await d.push.factors.setChoice(userId, choice, trx)
      if (choice !== f.choice) await req.audit({ action: 'mfa.factors_changed', resourceType: 'user', resourceId: userId, before: { factors: f.choice }, after: { factors: choice } }, trx)
    })
    return factorsView(userId)
  }

  async function rename(req: AnyReq, userId: string, deviceId: string, name: string) {
    const before = await d.push.devices.get(deviceId)
    const renamed = await req.transaction(async (trx) => {
      const r = await d.push.devices.rename(userId, deviceId, name, trx)
      if (r) await req.audit({ action: 'mfa.push_device_renamed', resourceType: 'user', resourceId: userId, before: { device_id: deviceId, name: before?.name }, after: { device_id: deviceId, name } }, trx)
      return r
    })
    if (!renamed) throw MfaErrors.pushDeviceNotFound({ field: 'device_id' })
    return deviceView(renamed)
  }

  async function remove(req: AnyReq, userId: string, deviceId: string, by: 'user' | 'admin') {
    if (!(await removeDevice(d, req, userId, deviceId, by))) throw MfaErrors.pushDeviceNotFound({ field: 'device_id' })
    return reply({ status: 204 })
  }

  async function unlock(req: AnyReq, userId: string) {
    await req.transaction(async (trx) => {
      if (await d.push.factors.unlock(userId, trx)) await req.audit({ action: 'mfa.push_lock_cleared', resourceType: 'user', resourceId: userId }, trx)
    })
    return reply({ status: 204 })
  }

  const list = async (userId: string) => ({ items: (await d.push.devices.list(userId)).map(deviceView) })
  const own: { permission: Permission; tags: string[] } = { permission: AUTHENTICATED, tags: ['mfa'] }
  const admin: { permission: Permission; tags: string[] } = { permission: MFA_MANAGE, tags: ['mfa'] }

  return [
    defineRoute({
      ...own,
      method: 'POST',
      path: '/mfa/push-enrollment',
      acceptTokenPurposes: ['mfa_enrollment', 'session'],
      rateLimit: PUSH_ENROLLMENT_LIMIT,
      summary: 'Start enrolling a phone for push sign-in (QR code)',
      description: `A one-time enrollment code for the caller (${ENROLLMENT_TOKEN_SECONDS / 60} minutes, one use), as the URI the app scans (\`portcullis-push://enroll?v=1&url=<push service>&token=<code>\`) and as a QR code (SVG data URI). The app then enrolls through the push service with its own key pair. Accepts the \`mfa_enrollment\` token of the emailed setup link, or a session. 404 MFA_PUSH_DISABLED while push is not configured (server options mfa.push_service_key and mfa.push_service_url).`,
      schema: { response: { 200: PushEnrollmentStarted, 404: ErrorBody } },
      handler: async (req) => {
        const publicUrl = d.push.publicUrl
        if (d.push.channelKey === null || !publicUrl) throw MfaErrors.pushDisabled()
        const userId = req.actor!.id
        const started = await req.transaction(async (trx) => {
          const s = await d.push.devices.createEnrollment(userId, trx)
          await req.audit({ action: 'mfa.push_enrollment_start', resourceType: 'user', resourceId: userId }, trx)
          return s
        })
        const uri = enrollUri(publicUrl, started.token)
        const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M' })
        return { token: started.token, uri, qr_svg: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`, expires_at: started.expiresAt.toISOString() }
      },
    }),
    defineRoute({
      ...own,
      method: 'GET',
      path: '/mfa/push-devices',
      acceptTokenPurposes: ['mfa_enrollment', 'session'],
      summary: 'My phones enrolled for push sign-in',
      description: 'Also with the `mfa_enrollment` token of the setup link, so its page sees the phone arrive.',
      schema: { response: { 200: PushDeviceList } },
      handler: async (req) => list(req.actor!.id),
    }),
    defineRoute({
      ...own,
      method: 'PATCH',
      path: '/mfa/push-devices/{device_id}',
      summary: 'Rename one of my phones',
      schema: { params: DeviceParams, body: PushDeviceRename, response: { 200: PushDevice, 404: ErrorBody } },
      handler: async (req) => rename(req, req.actor!.id, req.params.device_id, req.body.name),
    }),
    defineRoute({
      ...own,
      method: 'DELETE',
      path: '/mfa/push-devices/{device_id}',
      summary: 'Remove one of my phones (a lost phone)',
      description: 'Its pending sign-in requests end, and its signatures are refused from then on.',
      schema: { params: DeviceParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) => remove(req, req.actor!.id, req.params.device_id, 'user'),
    }),
    defineRoute({
      ...own,
      method: 'GET',
      path: '/mfa/factors',
      summary: 'My second factors and which the sign-in offers',
      schema: { response: { 200: Factors } },
      handler: async (req) => factorsView(req.actor!.id),
    }),
    defineRoute({
      ...own,
      method: 'PUT',
      path: '/mfa/factors',
      summary: 'Choose the second factors my sign-in offers',
      description: '`totp`, `push`, `both`, or null (whatever is set up). 409 MFA_FACTOR_NOT_ENROLLED (field factors) when a named factor is not set up. Audited as mfa.factors_changed.',
      schema: { body: FactorsBody, response: { 200: Factors, 409: ErrorBody } },
      handler: async (req) => setFactors(req, req.actor!.id, req.body.factors),
    }),
    defineRoute({
      ...own,
      method: 'DELETE',
      path: '/mfa/push-lock',
      summary: 'Clear the push lock my "report" answer set',
      description: 'Pushes can be sent again. Audited as mfa.push_lock_cleared. 204 also when there was no lock.',
      schema: { response: { 204: null } },
      handler: async (req) => unlock(req, req.actor!.id),
    }),
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/users/{user_id}/mfa/push-devices',
      summary: "A user's phones enrolled for push sign-in",
      description: MANAGE_RULE,
      schema: { params: UserParams, response: { 200: PushDeviceList, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => list((await manageable(req.actor, req.params.user_id)).id),
    }),
    defineRoute({
      ...admin,
      method: 'PATCH',
      path: '/users/{user_id}/mfa/push-devices/{device_id}',
      summary: "Rename a user's phone",
      description: MANAGE_RULE,
      schema: { params: UserDeviceParams, body: PushDeviceRename, response: { 200: PushDevice, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => rename(req, (await manageable(req.actor, req.params.user_id)).id, req.params.device_id, req.body.name),
    }),
    defineRoute({
      ...admin,
      method: 'DELETE',
      path: '/users/{user_id}/mfa/push-devices/{device_id}',
      summary: "Remove a user's phone (a lost phone)",
      description: `Its user's pending sign-in requests end, and its signatures are refused from then on. ${MANAGE_RULE}`,
      schema: { params: UserDeviceParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => remove(req, (await manageable(req.actor, req.params.user_id)).id, req.params.device_id, 'admin'),
    }),
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/users/{user_id}/mfa/factors',
      summary: "A user's second factors and which the sign-in offers",
      description: MANAGE_RULE,
      schema: { params: UserParams, response: { 200: Factors, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => factorsView((await manageable(req.actor, req.params.user_id)).id),
    }),
    defineRoute({
      ...admin,
      method: 'PUT',
      path: '/users/{user_id}/mfa/factors',
      summary: 'Choose the second factors a user\'s sign-in offers',
      description: `As PUT /api/v1/mfa/factors, for the user. ${MANAGE_RULE}`,
      schema: { params: UserParams, body: FactorsBody, response: { 200: Factors, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => setFactors(req, (await manageable(req.actor, req.params.user_id)).id, req.body.factors),
    }),
    defineRoute({
      ...admin,
      method: 'DELETE',
      path: '/users/{user_id}/mfa/push-lock',
      summary: "Clear a user's push lock",
      description: `Pushes to the user can be sent again (after a "report" answer was looked into). Audited as mfa.push_lock_cleared. ${MANAGE_RULE}`,
      schema: { params: UserParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => unlock(req, (await manageable(req.actor, req.params.user_id)).id),
    }),
  ]
}
