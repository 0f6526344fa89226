/**
 * The emailed setup token. It is an `mfa_enrollment` token (15 minutes) that
 * opens only the enrollment routes, so a user can enroll before they can sign
 * in, for instance after an administrator reset their authenticator.
 */
import type { IdentityService, MailService, RouteRequest, SettingsService, UserRef } from '../../../sdk/index.js'
import { identitySettingRefs, isPortcullisError } from '../../../sdk/index.js'
import { MfaErrors } from '../errors.js'

export const ENROLLMENT_TTL = 15 * 60

export interface LinkDeps {
  identity: IdentityService
  mail: MailService
  settings: SettingsService
  consoleServed: boolean
}

type AnyRequest = RouteRequest<unknown, unknown, unknown>

/**
 * Where the mail sends the user: only ever the configured `identity.public_url`
 * (an administrator's setting), never the request's Host header, which whoever
 * sends the request chooses. Unset: the mail names the API path alone, and no
 * page (a link needs a host). The page is the console's, when it is served; the
 * token goes in the URL's fragment, which browsers send to no server.
 */
async function destinations(d: LinkDeps, token: string): Promise<{ api: string; page: string | null }> {
  const configured = (await d.settings.get(identitySettingRefs.publicUrl))?.replace(/\/+$/, '') ?? ''
  return { api: `${configured}/api/v1`, page: configured && d.consoleServed ? `${configured}/mfa/setup#token=${encodeURIComponent(token)}` : null }
}

/** Checks the user can receive a token, issues it and mails it; throws the coded error otherwise. */
export async function sendEnrollmentLink(d: LinkDeps, req: AnyRequest, user: UserRef, alreadyEnrolled: boolean): Promise<void> {
  if (!user.email) throw MfaErrors.emailMissing()
  if (alreadyEnrolled) throw MfaErrors.alreadyEnrolled()
  const issued = await d.identity.issueToken(user, 'mfa_enrollment', ENROLLMENT_TTL)
  const to = await destinations(d, issued.token)
  const vars = { username: user.username, api: to.api, page: to.page, token: issued.token, minutes: ENROLLMENT_TTL / 60 }
  try {
    await d.mail.send({ to: user.email, subject: req.t('mfa:mail.subject', vars), text: req.t(to.page ? 'mfa:mail.body_page' : 'mfa:mail.body', vars) })
  } catch (e) {
    // The token was never delivered: void it rather than leave a live credential nobody holds.
    await d.identity.revokeToken(issued.jti, issued.exp)
    if (isPortcullisError(e)) throw e
    req.log.error({ err: (e as Error).message, user: user.id }, 'MFA setup mail not sent')
    throw MfaErrors.mailFailed({ cause: e })
  }
}
