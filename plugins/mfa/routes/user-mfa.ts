/** An administrator's view of a user's second factor: its status, and the reset. */
import { CommonErrors, defineRoute, ErrorBody, reply } from '../../../sdk/index.js'
import { MFA_MANAGE } from '../permissions.js'
import { UserParams } from '../schemas/common.js'
import { MfaStatus } from '../schemas/enrollment.js'
import type { MfaRouteDeps } from './deps.js'

export function userMfaRoutes(d: MfaRouteDeps) {
  const existing = async (id: string) => {
    const user = await d.identity.findUser({ id })
    if (!user) throw CommonErrors.notFound({ field: 'user_id' })
    return user
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/mfa',
      permission: MFA_MANAGE,
      summary: "A user's MFA status",
      description: '`enrolled` is true when a confirmed TOTP authenticator guards the sign-in; a pending enrollment does not count.',
      tags: ['mfa'],
      schema: { params: UserParams, response: { 200: MfaStatus, 404: ErrorBody } },
      handler: async ({ params }) => {
        const user = await existing(params.user_id)
        return d.store.status(user.id)
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/{user_id}/mfa',
      permission: MFA_MANAGE,
      summary: "Reset a user's MFA",
      description:
        'Removes the authenticator, pending or confirmed: the next sign-in asks for no code. Send a new setup link (POST /api/v1/users/{user_id}/mfa/enrollment-link) to enroll again. Answers 204 also when there was nothing to remove.',
      tags: ['mfa'],
      schema: { params: UserParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) => {
        const user = await existing(req.params.user_id)
        return req.transaction(async (trx) => {
          const before = await d.store.status(user.id, trx)
          if (await d.store.reset(user.id, trx)) {
            await req.audit({ action: 'mfa.reset', resourceType: 'user', resourceId: user.id, before }, trx)
          }
          return reply({ status: 204 })
        })
      },
    }),
  ]
}
