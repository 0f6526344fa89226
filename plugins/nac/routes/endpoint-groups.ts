/**
 * Endpoint groups: static membership, one group per endpoint (docs/nac.md says
 * why). MAB allow-lists are endpoint groups: the NAC policy will name them
 * through the plugin's `references.endpoint_group`, never a foreign key.
 */
import type { Knex } from 'knex'
import { CommonErrors, defineRoute, jsonText, ErrorBody, givenFields, isReferenceViolation, lockForChange, orNotFound, paginate, referrerList, reply, uniqueColumn, uniqueViolation } from '../../../sdk/index.js'
import { NacErrors as E } from '../errors.js'
import { NAC_READ, NAC_WRITE } from '../permissions.js'
import type { EndpointAuthorizationChange } from '../api.js'
import { replaceAll } from '../services/placement.js'
import { GROUPS, loadGroupWithCount, selectGroupsWithCount, toGroupWithCount } from '../services/rows.js'
import { NacReferenceReport } from '../schemas/common.js'
import { EndpointGroupCreate, EndpointGroupListQuery, EndpointGroupListResponse, EndpointGroupParams, EndpointGroupResponse, EndpointGroupUpdate } from '../schemas/endpoint-groups.js'
import type { NacRouteDeps } from './deps.js'

/** Group names: unique case-insensitively (409 ENDPOINT_GROUP_NAME_TAKEN), the index having the last word. */
const groupNames = uniqueColumn({ table: GROUPS, taken: E.groupNameTaken, index: 'nac_endpoint_groups_name_unique' })

const onWriteError = (name: string) => (e: unknown) => {
  if (uniqueViolation(e) === 'nac_endpoint_groups_name_unique') throw groupNames.taken(name)
  throw e
}

/** The placement rules as stored: lower-case, each once. */
const placementTypes = (list: readonly string[]) => jsonText([...new Set(list.map((t) => t.toLowerCase()))])

/** After a group's placement rules changed: re-place the profiled endpoints; the moves, for the events. */
async function replaced(trx: Knex.Transaction): Promise<EndpointAuthorizationChange[]> {
  return (await replaceAll(trx)).map((m) => ({
    endpoint_id: m.id,
    mac: m.mac,
    cause: 'admin' as const,
    before: { device_type: m.device_type, endpoint_group_id: m.before },
    after: { device_type: m.device_type, endpoint_group_id: m.after },
    last_nas_ip: m.last_nas_ip,
    last_nas_port: m.last_nas_port,
  }))
}

export function endpointGroupRoutes(d: NacRouteDeps) {
  const { knex } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/nac/endpoint-groups',
      permission: NAC_READ,
      summary: 'List endpoint groups',
      description: '`search` matches name and description. `endpoint_count` counts the endpoints in each group.',
      tags: ['nac'],
      schema: { query: EndpointGroupListQuery, response: { 200: EndpointGroupListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => selectGroupsWithCount(knex),
          searchColumns: [`${GROUPS}.name`, `${GROUPS}.description`],
          sortColumns: { name: `${GROUPS}.name`, created_at: `${GROUPS}.created_at`, updated_at: `${GROUPS}.updated_at` },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: `${GROUPS}.id`,
          map: toGroupWithCount,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/nac/endpoint-groups',
      permission: NAC_WRITE,
      summary: 'Create an endpoint group',
      description: 'Name taken (case-insensitively): 409 ENDPOINT_GROUP_NAME_TAKEN.',
      tags: ['nac'],
      schema: { body: EndpointGroupCreate, response: { 201: EndpointGroupResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        let moves: EndpointAuthorizationChange[] = []
        const out = await req.transaction(async (trx) => {
          await groupNames.assertFree(trx, b.name)
          const [{ id }] = await trx
            .transaction((sp) => sp(GROUPS).insert({ name: b.name, description: b.description ?? null, placement_device_types: placementTypes(b.placement_device_types ?? []) }).returning('id'))
            .catch(onWriteError(b.name))
          if (b.placement_device_types?.length) moves = await replaced(trx)
          const group = (await loadGroupWithCount(trx, id))!
          await req.audit({ action: 'endpoint_group.create', resourceType: 'endpoint_group', resourceId: id, after: group }, trx)
          return group
        })
        await d.events.emit(moves)
        return out
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/endpoint-groups/{endpoint_group_id}',
      permission: NAC_READ,
      summary: 'Get an endpoint group',
      tags: ['nac'],
      schema: { params: EndpointGroupParams, response: { 200: EndpointGroupResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await loadGroupWithCount(knex, params.endpoint_group_id), 'endpoint_group_id'),
    }),
    defineRoute({
      method: 'PUT',
      path: '/nac/endpoint-groups/{endpoint_group_id}',
      permission: NAC_WRITE,
      summary: 'Change an endpoint group',
      description: 'Partial: only the fields given change. Name taken (case-insensitively): 409 ENDPOINT_GROUP_NAME_TAKEN. Members are set on the endpoints (`endpoint_group_id`).',
      tags: ['nac'],
      schema: { params: EndpointGroupParams, body: EndpointGroupUpdate, response: { 200: EndpointGroupResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const id = req.params.endpoint_group_id
        let moves: EndpointAuthorizationChange[] = []
        const out = await req.transaction(async (trx) => {
          const before = await lockForChange(trx, GROUPS, id, 'endpoint_group_id', loadGroupWithCount)
          if (b.name !== undefined) await groupNames.assertFree(trx, b.name, id)
          const placement = b.placement_device_types === undefined ? {} : { placement_device_types: placementTypes(b.placement_device_types) }
          await trx
            .transaction((sp) => sp(GROUPS).where({ id }).update({ ...givenFields(b, ['name', 'description']), ...placement, updated_at: new Date() }))
            .catch(onWriteError(b.name ?? before.name))
          if (b.name !== undefined && b.name !== before.name) await d.references.endpoint_group.renamed([id], trx)
          if (b.placement_device_types !== undefined) moves = await replaced(trx)
          const after = (await loadGroupWithCount(trx, id))!
          await req.audit({ action: 'endpoint_group.update', resourceType: 'endpoint_group', resourceId: id, before, after }, trx)
          return after
        })
        await d.events.emit(moves)
        return out
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/nac/endpoint-groups/{endpoint_group_id}',
      permission: NAC_WRITE,
      summary: 'Delete an endpoint group',
      description:
        'Only an empty group goes: one still holding endpoints answers 409 GROUP_IN_USE (move or delete them first; nothing is ungrouped behind your back). So does a group still referenced by another plugin (a NAC policy rule, a MAB allow-list); the detail names the references.',
      tags: ['nac'],
      schema: { params: EndpointGroupParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.endpoint_group_id
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, GROUPS, id, 'endpoint_group_id', loadGroupWithCount)
          if (before.endpoint_count) throw E.groupInUse({ field: 'endpoint_group_id', vars: { count: before.endpoint_count } })
          const referrers = await d.references.endpoint_group.beforeDelete([id], trx)
          if (referrers.length) throw E.groupReferenced({ field: 'endpoint_group_id', vars: { referrers: referrerList(referrers) } })
          await trx(GROUPS)
            .where({ id })
            .delete()
            .catch((e: unknown) => {
              // An endpoint put in the group after the count (its insert holds the group FOR KEY SHARE, so this waited for it): a 409 all the same.
              throw isReferenceViolation(e) ? E.groupInUse({ field: 'endpoint_group_id', vars: { count: 1 } }) : e
            })
          const { endpoint_count: _n, ...group } = before
          await req.audit({ action: 'endpoint_group.delete', resourceType: 'endpoint_group', resourceId: id, before: group }, trx)
        })
        return reply({ status: 204 })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/endpoint-groups/{endpoint_group_id}/references',
      permission: NAC_READ,
      summary: 'What refers to an endpoint group',
      description:
        '`blocking`: NAC policy rules whose conditions name the group, and records of other plugins naming it; while there is one, DELETE answers 409 GROUP_IN_USE. `auto_clearing`: references a delete would remove by itself. The endpoints in the group are counted in `endpoint_count`, not here.',
      tags: ['nac'],
      schema: { params: EndpointGroupParams, response: { 200: NacReferenceReport, 404: ErrorBody } },
      handler: async ({ params }) => {
        if (!(await knex(GROUPS).where({ id: params.endpoint_group_id }).first('id'))) throw CommonErrors.notFound({ field: 'endpoint_group_id' })
        return d.references.endpoint_group.report([params.endpoint_group_id], knex)
      },
    }),
  ]
}
