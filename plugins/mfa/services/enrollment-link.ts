/**
 * The emailed setup link. It carries an `mfa_enrollment` token (15 minutes)
 * that opens only the enrollment routes, so a user can enroll before they can
 * sign in, for instance after an administrator reset their authenticator.
 */
import type { IdentityService, MailService, RouteRequest, SettingsService, UserRef } from '../../../sdk/index.js'
import { identitySettingRefs, isPortcullisError } from '../../../sdk/index.js'
import { MfaErrors } from '../errors.js'

export const ENROLLMENT_TTL = 15 * 60

export interface LinkDeps {
  identity: IdentityService
  mail: MailService
  settings: SettingsService
}

type AnyRequest = RouteRequest<unknown, unknown, unknown>

/**
 * Falling back to the request's origin is safe here, unlike for a public
 * password reset: only a caller already trusted with the account (mfa.manage,
 * or the user's own session) can have a link sent, and a bearer token cannot
 * be ridden by a cross-site request to send one with a forged Host.
 */
async function baseUrl(settings: SettingsService, req: AnyRequest): Promise<string> {
  const configured = await settings.get(identitySettingRefs.publicUrl)
  const base = configured ?? `${req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http'}://${req.headers.host}`
  return base.replace(/\/+$/, '')
}

/** Checks the user can receive a link, issues the token and mails it; throws the coded error otherwise. */
export async function sendEnrollmentLink(d: LinkDeps, req: AnyRequest, user: UserRef, alreadyEnrolled: boolean): Promise<void> {
  if (!user.email) throw MfaErrors.emailMissing()
  if (alreadyEnrolled) throw MfaErrors.alreadyEnrolled()
  const issued = await d.identity.issueToken(user, 'mfa_enrollment', ENROLLMENT_TTL)
  const link = `${await baseUrl(d.settings, req)}/mfa/setup?token=${encodeURIComponent(issued.token)}`
  const vars = { username: user.username, link, token: issued.token, minutes: ENROLLMENT_TTL / 60 }
  try {
    await d.mail.send({ to: user.email, subject: req.t('mfa:mail.subject', vars), text: req.t('mfa:mail.body', vars) })
  } catch (e) {
    // The token was never delivered: void it rather than leave a live credential nobody holds.
    await d.identity.revokeToken(issued.jti, issued.exp)
    if (isPortcullisError(e)) throw e
    req.log.error({ err: (e as Error).message, user: user.id }, 'MFA setup mail not sent')
    throw MfaErrors.mailFailed({ cause: e })
  }
}
