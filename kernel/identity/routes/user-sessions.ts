/**
 * Sign a user out everywhere: every session and password-change token issued
 * before now stops working on every node within a second (the actor cache
 * follows the identity version). For a stolen laptop or a leaver's last day.
 */
import { CommonErrors, defineRoute, ErrorBody, reply } from '../../../sdk/index.js'
import { UserParams } from '../schemas/users.js'
import type { IdentityRouteDeps } from './deps.js'
import { assertUserManageable } from './guards.js'
import { voidResetLinks } from '../reset-links.js'

export function userSessionRoutes(d: IdentityRouteDeps) {
  return [
    defineRoute({
      method: 'DELETE',
      path: '/users/{user_id}/sessions',
      permission: 'users.write',
      summary: "Revoke a user's sessions",
      description:
        'Voids every token the user holds (sessions, password-change and MFA tokens issued before this call) and every pending password-reset link; they sign in again. Tokens issued in the same second as the call may survive it (token times have one-second precision). Only an administrator may act on an administrator (403 ADMIN_REQUIRED); anyone else only on a user who holds no permission they lack (403 USER_EXCEEDS_OWN_PERMISSIONS). Revoking your own sessions is allowed and ends the session making the call.',
      tags: ['identity'],
      schema: { params: UserParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        await d.identity.actors.change(req.transaction, async (trx) => {
          const target = await trx('users').where({ id: req.params.user_id }).forUpdate().first('id', 'username', 'is_admin')
          if (!target) throw CommonErrors.notFound({ field: 'user_id' })
          await assertUserManageable(trx, req.actor!, target, d.identity.capabilities)
          await trx('users').where({ id: target.id }).update({ sessions_valid_after: new Date() })
          await voidResetLinks(trx, target.id)
          await req.audit({ action: 'user.sessions_revoke', resourceType: 'user', resourceId: target.id, after: { username: target.username } }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
