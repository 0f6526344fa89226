/**
 * Enrolling an authenticator app: start (a new pending seed, shown once) and
 * confirm (a code from the app activates it). Opened by the emailed
 * `mfa_enrollment` token or by a session.
 */
import QRCode from 'qrcode'
import { AUTHENTICATED, CommonErrors, defineRoute, ErrorBody } from '../../../sdk/index.js'
import { MfaErrors } from '../errors.js'
import { EnrollmentConfirm, EnrollmentStarted, MfaStatus } from '../schemas/enrollment.js'
import { mfaIssuer } from '../settings.js'
import { TOTP_DIGITS, TOTP_PERIOD } from '../services/totp.js'
import type { MfaRouteDeps } from './deps.js'

export function otpauthUri(issuer: string, username: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(username)}`
  const q = `secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD}`
  return `otpauth://totp/${label}?${q}`
}

export function enrollmentRoutes(d: MfaRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/mfa/enrollment',
      permission: AUTHENTICATED,
      acceptTokenPurposes: ['mfa_enrollment', 'session'],
      summary: 'Start (or restart) TOTP enrollment',
      description:
        'Creates a new pending TOTP seed for the caller, replacing any earlier pending one, and answers it as base32, as an otpauth URI and as a QR code (SVG data URI). The seed guards nothing until POST /api/v1/mfa/enrollment/confirm. Accepts the `mfa_enrollment` token from the emailed setup link, or a session. 409 MFA_ALREADY_ENROLLED when a confirmed authenticator exists: an administrator resets it first.',
      tags: ['mfa'],
      schema: { response: { 200: EnrollmentStarted, 409: ErrorBody } },
      handler: async (req) => {
        // Read before the transaction: on the embedded engine it holds the only connection.
        const user = (await d.identity.findUser({ id: req.actor!.id }))!
        const issuer = await d.settings.get(mfaIssuer)
        const secret = await req.transaction(async (trx) => {
          // The user, locked through the kernel's contract until commit: a racing delete waits and then clears the seed.
          if (!(await d.identity.references.user.lockExisting([user.id], trx)).size) throw CommonErrors.unauthorized()
          const s = await d.store.start(user.id, trx)
          if (!s) throw MfaErrors.alreadyEnrolled()
          await req.audit({ action: 'mfa.enrollment_start', resourceType: 'user', resourceId: user.id }, trx)
          return s
        })
        const otpauth_uri = otpauthUri(issuer, user.username, secret)
        const svg = await QRCode.toString(otpauth_uri, { type: 'svg', errorCorrectionLevel: 'M' })
        return { secret, otpauth_uri, qr_svg: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/mfa/enrollment/confirm',
      permission: AUTHENTICATED,
      acceptTokenPurposes: ['mfa_enrollment', 'session'],
      summary: 'Confirm TOTP enrollment with a code',
      description:
        'Activates the pending seed when `code` is right for it (±30 s); from then on sign-in asks for a code. 422 MFA_CODE_INVALID (field `code`) on a wrong code; 409 MFA_ENROLLMENT_NOT_STARTED without a pending seed; 409 MFA_ALREADY_ENROLLED when already active. The `mfa_enrollment` token that opened it is spent.',
      tags: ['mfa'],
      schema: { body: EnrollmentConfirm, response: { 200: MfaStatus, 409: ErrorBody } },
      handler: async (req) => {
        const userId = req.actor!.id
        const result = await req.transaction(async (trx) => {
          const r = await d.store.confirm(userId, req.body.code, trx)
          if (r.ok) await req.audit({ action: 'mfa.enroll', resourceType: 'user', resourceId: userId, after: { factor: 'totp' } }, trx)
          return r
        })
        if (!result.ok) {
          if (result.reason === 'not_started') throw MfaErrors.enrollmentNotStarted()
          if (result.reason === 'already_enrolled') throw MfaErrors.alreadyEnrolled()
          throw MfaErrors.enrollmentCodeInvalid({ field: 'code' })
        }
        // The setup link has done its job; a session that confirmed stays signed in.
        const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '')
        const link = await d.identity.verifyToken(bearer, 'mfa_enrollment')
        if (link) await d.identity.revokeToken(link.jti, link.exp)
        return { enrolled: true, confirmed_at: result.confirmedAt.toISOString() }
      },
    }),
  ]
}
