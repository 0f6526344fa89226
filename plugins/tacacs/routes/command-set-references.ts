/** What refers to command sets: the report of one set, and counts for many (a list page's "in use" column). */
import { CommonErrors, defineRoute, ErrorBody } from '../../../sdk/index.js'
import { TACACS_READ } from '../permissions.js'
import { CommandSetParams } from '../schemas/command-sets.js'
import { ReferenceReport, RefCountsRequest, RefCountsResponse } from '../schemas/common.js'
import { profileCountsBySet, profilesUsingSet } from '../services/references.js'
import type { TacacsRouteDeps } from './deps.js'

export function commandSetReferenceRoutes(d: TacacsRouteDeps) {
  const { knex } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/tacacs/command-sets/{command_set_id}/references',
      permission: TACACS_READ,
      summary: 'What refers to a command set',
      description:
        '`blocking`: the TACACS+ profiles using the set (`type: tacacs_profile`); while there is one, DELETE answers 409 COMMAND_SET_IN_USE. `auto_clearing`: references a delete would remove by itself; nothing refers to a command set that way today, so it is empty.',
      tags: ['tacacs'],
      schema: { params: CommandSetParams, response: { 200: ReferenceReport, 404: ErrorBody } },
      handler: async ({ params }) => {
        if (!(await knex('tacacs_command_sets').where({ id: params.command_set_id }).first('id'))) throw CommonErrors.notFound({ field: 'command_set_id' })
        return { blocking: await profilesUsingSet(knex, params.command_set_id), auto_clearing: [] }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/tacacs/command-sets/references/counts',
      permission: TACACS_READ,
      summary: 'Count references of many command sets',
      description:
        'Answers an object with one key per requested id (as sent) and its `{ blocking, auto_clearing }` counts. An id that names no command set counts 0 and 0: the answer for a set deleted meanwhile is "nothing refers to it", and one stale id does not fail the whole page.',
      tags: ['tacacs'],
      schema: { body: RefCountsRequest, response: { 200: RefCountsResponse } },
      handler: async ({ body }) => {
        const counts = await profileCountsBySet(knex, body.command_set_ids)
        return Object.fromEntries(body.command_set_ids.map((id) => [id, { blocking: counts.get(id.toLowerCase()) ?? 0, auto_clearing: 0 }]))
      },
    }),
  ]
}
