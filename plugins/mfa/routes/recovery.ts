/**
 * Recovery codes (docs/mfa.md "Recovery codes"): a user makes (and remakes) their own set and sees
 * how many are left; an administrator sees the count and may revoke the set of a user they may
 * manage. Nobody ever reads a code after the answer that made it. Using one is POST /mfa/verify.
 */
import { AUTHENTICATED, CommonErrors, defineRoute, ErrorBody, reply } from '../../../sdk/index.js'
import { MfaErrors } from '../errors.js'
import { MFA_MANAGE } from '../permissions.js'
import { UserParams } from '../schemas/common.js'
import { RecoveryCodeSet, RecoveryStatus } from '../schemas/recovery.js'
import type { MfaRouteDeps } from './deps.js'
import { MANAGE_RULE } from './user-mfa.js'

/** Making a set costs ten scrypt runs: enough to redo it, not enough to keep the cores busy. */
export const REGENERATE_LIMIT = { max: 5, windowSeconds: 900 }

export function recoveryRoutes(d: MfaRouteDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/mfa/recovery-codes',
      permission: AUTHENTICATED,
      summary: 'How many of my recovery codes are left',
      description: 'The count of unused recovery codes and when the set was made. The codes themselves are shown only once, by POST.',
      tags: ['mfa'],
      schema: { response: { 200: RecoveryStatus } },
      handler: async (req) => d.recovery.status(req.actor!.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/mfa/recovery-codes',
      permission: AUTHENTICATED,
      rateLimit: REGENERATE_LIMIT,
      summary: 'Make a new set of recovery codes',
      description:
        'Makes ten one-time recovery codes and answers them this once: only a hash of each is kept, so they cannot be shown again. Replaces the whole earlier set, used or not. Each code signs in once in place of a code from the authenticator app or a push approval (POST /api/v1/mfa/verify with `recovery_code`); the console sign-in only, never a device login (RADIUS, TACACS+). 409 MFA_RECOVERY_NEEDS_FACTOR without a confirmed authenticator or a push phone. Audited as `mfa.recovery_codes_generated`.',
      tags: ['mfa'],
      schema: { response: { 200: RecoveryCodeSet, 409: ErrorBody } },
      handler: async (req) => {
        const userId = req.actor!.id
        return req.transaction(async (trx) => {
          // The user, locked until commit: a racing delete waits, then its guard clears the new set.
          if (!(await d.identity.references.user.lockExisting([userId], trx)).size) throw CommonErrors.unauthorized()
          if (!(await d.recovery.hasFactor(userId, trx))) throw MfaErrors.recoveryNeedsFactor()
          const codes = await d.recovery.regenerate(userId, trx)
          await req.audit({ action: 'mfa.recovery_codes_generated', resourceType: 'user', resourceId: userId, after: { count: codes.length } }, trx)
          const status = await d.recovery.status(userId, trx)
          return { codes, remaining: status.remaining, created_at: status.created_at! }
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/mfa/recovery-codes',
      permission: MFA_MANAGE,
      summary: "How many recovery codes a user has left",
      description: `The count only: nobody reads another user's codes. ${MANAGE_RULE}`,
      tags: ['mfa'],
      schema: { params: UserParams, response: { 200: RecoveryStatus, 403: ErrorBody, 404: ErrorBody } },
      handler: async ({ params, actor }) => {
        const user = await d.identity.assertMayManage(actor!, params.user_id)
        return d.recovery.status(user.id)
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/{user_id}/mfa/recovery-codes',
      permission: MFA_MANAGE,
      summary: "Revoke a user's recovery codes",
      description: `Deletes all of the user's unused recovery codes (a printout that went missing, say); the user can make a new set. Answers 204 also when there were none. Audited as \`mfa.recovery_codes_revoked\`. ${MANAGE_RULE}`,
      tags: ['mfa'],
      schema: { params: UserParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const user = await d.identity.assertMayManage(req.actor!, req.params.user_id)
        return req.transaction(async (trx) => {
          const before = await d.recovery.status(user.id, trx)
          if (await d.recovery.revoke(user.id, trx)) {
            await req.audit({ action: 'mfa.recovery_codes_revoked', resourceType: 'user', resourceId: user.id, before: { remaining: before.remaining } }, trx)
          }
          return reply({ status: 204 })
        })
      },
    }),
  ]
}
