/** /api/v1/log-exclusions: rules that keep matching events out of the AAA logs. */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, paginate, reply, uniqueColumn, type IdentityService, type UpdateOf, lockForChange, orNotFound } from '../../../sdk/index.js'
import { AaaLogsErrors } from '../errors.js'
import { EXCLUSIONS_READ, EXCLUSIONS_WRITE } from '../permissions.js'
import {
  LogExclusionCreate,
  LogExclusionListQuery,
  LogExclusionPage,
  LogExclusionParams,
  LogExclusionResponse,
  LogExclusionUpdate,
} from '../schemas/exclusions.js'
import { DROPS, EXCLUSIONS, exclusionsWithDrops, loadExclusion, toExclusion, type MatchType } from '../services/exclusions.js'
import { hasControl } from '../services/glob.js'
import type { ExclusionTable } from '../tables.js'

/** Names are unique case-insensitively (index aaa_log_exclusions_name on lower(name)). */
const names = uniqueColumn({ table: EXCLUSIONS, taken: AaaLogsErrors.exclusionNameTaken })

/** The value checked against its type; for a group, the group's stored spelling. */
async function checkValue(identity: IdentityService, trx: Knex.Transaction, type: MatchType, value: string): Promise<string> {
  if (hasControl(value)) throw (type === 'username_pattern' ? AaaLogsErrors.patternInvalid : AaaLogsErrors.usernameInvalid)({ field: 'match_value' })
  if (type === 'user_group') {
    const group = (await identity.userGroups(trx)).find((g) => g.name.toLowerCase() === value.toLowerCase())
    if (!group) throw AaaLogsErrors.groupUnknown({ field: 'match_value', vars: { name: value } })
    return group.name
  }
  return value
}

const RULES =
  'A matching event is not stored; it is only counted (`dropped_total`). `username` matches the whole name exactly and case-sensitively; `username_pattern` is a glob over the whole name (`*` any run, `?` one character), case-sensitive, matched in linear time; `user_group` matches the members of the named group (422 USER_GROUP_UNKNOWN when no such group exists). A name taken (case-insensitively) answers 409 LOG_EXCLUSION_NAME_TAKEN. The ingester picks changes up when it next reloads the rules.'

export function exclusionRoutes(knex: Knex, identity: IdentityService) {
  return [
    defineRoute({
      method: 'GET',
      path: '/log-exclusions',
      permission: EXCLUSIONS_READ,
      summary: 'List log exclusion rules',
      description: '`search` matches name, description and match_value. Each item carries `dropped_total`.',
      tags: ['aaa-logs'],
      schema: { query: LogExclusionListQuery, response: { 200: LogExclusionPage } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => exclusionsWithDrops(knex),
          equals: { protocol: 'e.protocol', match_type: 'e.match_type' },
          searchColumns: ['e.name', 'e.description', 'e.match_value'],
          sortColumns: { name: 'e.name', protocol: 'e.protocol', match_type: 'e.match_type', created_at: 'e.created_at', updated_at: 'e.updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'e.id',
          map: toExclusion,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/log-exclusions',
      permission: EXCLUSIONS_WRITE,
      summary: 'Create a log exclusion rule',
      description: RULES,
      tags: ['aaa-logs'],
      schema: { body: LogExclusionCreate, response: { 201: LogExclusionResponse, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        return req.transaction(async (trx) => {
          const value = await checkValue(identity, trx, b.match_type, b.match_value)
          await names.assertFree(trx, b.name)
          const [{ id }] = await trx(EXCLUSIONS)
            .insert({ name: b.name, description: b.description ?? null, protocol: b.protocol ?? 'all', match_type: b.match_type, match_value: value })
            .returning('id')
            .catch(names.onViolation(b.name))
          const created = (await loadExclusion(trx, id))!
          await req.audit({ action: 'log_exclusion.create', resourceType: 'log_exclusion', resourceId: id, after: created }, trx)
          return created
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/log-exclusions/{exclusion_id}',
      permission: EXCLUSIONS_READ,
      summary: 'Get a log exclusion rule',
      tags: ['aaa-logs'],
      schema: { params: LogExclusionParams, response: { 200: LogExclusionResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await loadExclusion(knex, params.exclusion_id), 'exclusion_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/log-exclusions/{exclusion_id}',
      permission: EXCLUSIONS_WRITE,
      summary: 'Change a log exclusion rule',
      description: `Partial: only the fields given change. ${RULES}`,
      tags: ['aaa-logs'],
      schema: { params: LogExclusionParams, body: LogExclusionUpdate, response: { 200: LogExclusionResponse, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        return req.transaction(async (trx) => {
          const before = await lockForChange(trx, EXCLUSIONS, req.params.exclusion_id, 'exclusion_id', loadExclusion)
          const cols: UpdateOf<typeof ExclusionTable> = { updated_at: new Date(), ...givenFields(b, ['name', 'description', 'protocol']) }
          if (b.match_type !== undefined || b.match_value !== undefined) {
            cols.match_type = b.match_type ?? before.match_type
            cols.match_value = await checkValue(identity, trx, b.match_type ?? before.match_type, b.match_value ?? before.match_value)
          }
          if (b.name !== undefined) await names.assertFree(trx, b.name, before.id)
          await trx(EXCLUSIONS).where({ id: before.id }).update(cols).catch(names.onViolation(b.name ?? before.name))
          const after = (await loadExclusion(trx, before.id))!
          await req.audit({ action: 'log_exclusion.update', resourceType: 'log_exclusion', resourceId: before.id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/log-exclusions/{exclusion_id}',
      permission: EXCLUSIONS_WRITE,
      summary: 'Delete a log exclusion rule',
      description: 'Its drop counts are deleted with it.',
      tags: ['aaa-logs'],
      schema: { params: LogExclusionParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) => {
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, EXCLUSIONS, req.params.exclusion_id, 'exclusion_id', loadExclusion)
          await trx(EXCLUSIONS).where({ id: before.id }).delete()
          await trx(DROPS).where({ exclusion_id: before.id }).delete()
          await req.audit({ action: 'log_exclusion.delete', resourceType: 'log_exclusion', resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
