/**
 * What refers to a user or a user group (an AAA policy rule naming it, a portal's sponsor group…):
 * the report a console shows in the delete confirmation, before the delete answers 409 naming them.
 * The referring plugins answer through their guards (sdk/references.ts); the kernel knows none.
 */
import { CommonErrors, defineRoute, ErrorBody } from '../../../sdk/index.js'
import { IdentityReferenceReport } from '../schemas/references.js'
import { UserGroupParams } from '../schemas/user-groups.js'
import { UserParams } from '../schemas/users.js'
import type { IdentityRouteDeps } from './deps.js'

export function identityReferenceRoutes(d: IdentityRouteDeps) {
  const { knex, identity } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/references',
      permission: 'users.read',
      summary: 'What refers to a user',
      description:
        '`blocking`: records of other plugins naming the user (an AAA policy rule whose WHO is the user…); while there is one, DELETE answers 409 RECORD_IN_USE. `auto_clearing`: what a delete removes by itself (the user\'s second factors…). Only the plugins the edition loads answer.',
      tags: ['identity'],
      schema: { params: UserParams, response: { 200: IdentityReferenceReport, 404: ErrorBody } },
      handler: async ({ params }) => {
        if (!(await knex('users').where({ id: params.user_id }).first('id'))) throw CommonErrors.notFound({ field: 'user_id' })
        return identity.ownedReferences.user.report([params.user_id], knex)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user-groups/{group_id}/references',
      permission: 'groups.read',
      summary: 'What refers to a user group',
      description:
        '`blocking`: records of other plugins naming the group (an AAA policy rule whose WHO is the group, a captive portal\'s sponsor group…); while there is one, DELETE answers 409 RECORD_IN_USE. `auto_clearing`: references a delete removes by itself. The members are listed by GET …/members, not here.',
      tags: ['identity'],
      schema: { params: UserGroupParams, response: { 200: IdentityReferenceReport, 404: ErrorBody } },
      handler: async ({ params }) => {
        if (!(await knex('user_groups').where({ id: params.group_id }).first('id'))) throw CommonErrors.notFound({ field: 'group_id' })
        return identity.ownedReferences.user_group.report([params.group_id], knex)
      },
    }),
  ]
}
