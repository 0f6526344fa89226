/** Emailing the setup link: by an administrator for a user, or by a signed-in user for themselves. */
import { AUTHENTICATED, defineRoute, ErrorBody } from '../../../sdk/index.js'
import { MFA_MANAGE } from '../permissions.js'
import { Accepted, UserParams } from '../schemas/common.js'
import { sendEnrollmentLink } from '../services/enrollment-link.js'
import type { MfaRouteDeps } from './deps.js'
import { MANAGE_RULE } from './user-mfa.js'

/** A user asking for their own link: enough to retry, not enough to flood their mailbox. */
export const SELF_LINK_LIMIT = { max: 5, windowSeconds: 900 }

const LINK_DESCRIPTION =
  'Mails an `mfa_enrollment` token (valid 15 minutes) that opens only POST /api/v1/mfa/enrollment and POST /api/v1/mfa/enrollment/confirm, with those two calls spelled out and, when the admin console is served and `identity.public_url` is set, a link to the console\'s setup page (`/mfa/setup#token=…`) that makes them in a browser; the host it names is `identity.public_url` only, never the request\'s Host header (unset: the path alone, no link). 409 MFA_EMAIL_MISSING when the account has no email address; 409 MFA_ALREADY_ENROLLED when it already has a confirmed authenticator (reset it first); 503 MAIL_NOT_CONFIGURED or MFA_MAIL_FAILED when mail cannot be sent.'

export function enrollmentLinkRoutes(d: MfaRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/users/{user_id}/mfa/enrollment-link',
      permission: MFA_MANAGE,
      summary: "Email a user their MFA setup link",
      description: `${LINK_DESCRIPTION} ${MANAGE_RULE}`,
      tags: ['mfa'],
      schema: { params: UserParams, response: { 202: Accepted, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const user = await d.identity.assertMayManage(req.actor!, req.params.user_id)
        await sendEnrollmentLink(d, req, user, await d.store.isEnrolled(user.id))
        await req.transaction((trx) => req.audit({ action: 'mfa.enrollment_link', resourceType: 'user', resourceId: user.id }, trx))
        return { detail: req.t('mfa:enrollment.link_sent') }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/mfa/enrollment-link',
      permission: AUTHENTICATED,
      rateLimit: SELF_LINK_LIMIT,
      summary: 'Email me my MFA setup link',
      description: LINK_DESCRIPTION,
      tags: ['mfa'],
      schema: { response: { 202: Accepted, 409: ErrorBody } },
      handler: async (req) => {
        const user = (await d.identity.findUser({ id: req.actor!.id }))!
        await sendEnrollmentLink(d, req, user, await d.store.isEnrolled(user.id))
        await req.transaction((trx) => req.audit({ action: 'mfa.enrollment_link', resourceType: 'user', resourceId: user.id }, trx))
        return { detail: req.t('mfa:enrollment.link_sent') }
      },
    }),
  ]
}
