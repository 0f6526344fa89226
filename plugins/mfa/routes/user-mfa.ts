/**
 * An administrator's view of a user's second factor: its status, and the reset.
 * mfa.manage reaches only the users its holder may manage (never an
 * administrator, never someone holding a permission the holder lacks): otherwise
 * it would remove a stronger account's factor on the way to taking it over.
 */
import { defineRoute, ErrorBody, reply, type Actor } from '../../../sdk/index.js'
import { MFA_MANAGE } from '../permissions.js'
import { UserParams } from '../schemas/common.js'
import { MfaStatus } from '../schemas/enrollment.js'
import type { MfaRouteDeps } from './deps.js'

export const MANAGE_RULE =
  'Only an administrator may act on an administrator (403 ADMIN_REQUIRED); anyone else only on a user who holds no permission they lack (403 USER_EXCEEDS_OWN_PERMISSIONS).'

export function userMfaRoutes(d: MfaRouteDeps) {
  const manageable = (actor: Actor | null, id: string) => d.identity.assertMayManage(actor!, id)
  return [
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/mfa',
      permission: MFA_MANAGE,
      summary: "A user's MFA status",
      description: `\`enrolled\` is true when a confirmed TOTP authenticator guards the sign-in; a pending enrollment does not count. ${MANAGE_RULE}`,
      tags: ['mfa'],
      schema: { params: UserParams, response: { 200: MfaStatus, 403: ErrorBody, 404: ErrorBody } },
      handler: async ({ params, actor }) => {
        const user = await manageable(actor, params.user_id)
        return d.store.status(user.id)
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/{user_id}/mfa',
      permission: MFA_MANAGE,
      summary: "Reset a user's MFA",
      description:
        `Removes the authenticator, pending or confirmed, and the user's recovery codes: the next sign-in asks for no code. Send a new setup link (POST /api/v1/users/{user_id}/mfa/enrollment-link) to enroll again. Answers 204 also when there was nothing to remove. ${MANAGE_RULE}`,
      tags: ['mfa'],
      schema: { params: UserParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const user = await manageable(req.actor, req.params.user_id)
        return req.transaction(async (trx) => {
          const before = await d.store.status(user.id, trx)
          // Resetting the factors ends the recovery codes that backed them up.
          const codes = await d.recovery.revoke(user.id, trx)
          if ((await d.store.reset(user.id, trx)) || codes) {
            await req.audit({ action: 'mfa.reset', resourceType: 'user', resourceId: user.id, before }, trx)
          }
          return reply({ status: 204 })
        })
      },
    }),
  ]
}
