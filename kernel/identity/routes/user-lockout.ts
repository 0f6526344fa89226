/**
 * Clearing a user's account lockout. The lockout itself is the daemon's: FreeRADIUS counts wrong
 * passwords in memory (rlm_cache, plugins/radius/renderers/lockout.ts), tac_plus-ng in MAVIS count
 * files (plugins/tacacs/renderers/lockout.ts), and the platform cannot
 * reach into that memory. What it can do is tell the daemon, in the next release, to forget every
 * failure it counted before now: the clear instant is rendered with the user's verifiers, and a
 * counter older than it is dropped at the user's next request. docs/security.md, Account lockout.
 */
import { CommonErrors, defineRoute, ErrorBody } from '../../../sdk/index.js'
import { UserParams, UserResponse } from '../schemas/users.js'
import type { IdentityRouteDeps } from './deps.js'
import { assertUserManageable, iso } from './guards.js'
import { load } from './users.js'

export function userLockoutRoutes(d: IdentityRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/users/{user_id}/lockout/clear',
      permission: 'users.write',
      summary: "Clear a user's lockout",
      description:
        'Sets `lockout_cleared_at` to now: from the next deploy, FreeRADIUS forgets every failed login it counted for the user before that instant and tac_plus-ng starts the user on a new count (the instant is part of the name of its MAVIS count file), so a locked-out user can log in at once with the right password (without a deploy the lockout ends by itself, `identity.lockout_seconds` after the failure that caused it). A lockout in force shows in the RADIUS log as rejects with `reject_reason` `locked_out` (GET /api/v1/aaa/logs/radius/authentication), and in the TACACS+ authentication log as failures saying `banned for another N seconds`; the platform cannot read the counts the daemons keep (docs/security.md, Account lockout). Audited as `user.lockout_clear`. Only an administrator may act on an administrator (403 ADMIN_REQUIRED); anyone else only on a user who holds no permission they lack (403 USER_EXCEEDS_OWN_PERMISSIONS). Answers the user.',
      tags: ['identity'],
      schema: { params: UserParams, response: { 200: UserResponse, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        return d.identity.actors.change(req.transaction, async (trx) => {
          const target = await trx('users').where({ id: req.params.user_id }).forUpdate().first('id', 'username', 'is_admin', 'lockout_cleared_at')
          if (!target) throw CommonErrors.notFound({ field: 'user_id' })
          await assertUserManageable(trx, req.actor!, target, d.identity.capabilities)
          const now = new Date()
          await trx('users').where({ id: target.id }).update({ lockout_cleared_at: now, updated_at: now })
          await req.audit(
            {
              action: 'user.lockout_clear',
              resourceType: 'user',
              resourceId: target.id,
              before: { username: target.username, lockout_cleared_at: target.lockout_cleared_at ? iso(target.lockout_cleared_at) : null },
              after: { username: target.username, lockout_cleared_at: iso(now) },
            },
            trx,
          )
          return (await load(trx, target.id))!
        })
      },
    }),
  ]
}
