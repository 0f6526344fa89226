/**
 * Device groups: a tree (region → site → closet…). A device in a group also
 * belongs to every ancestor, so a policy written for a region covers its sites.
 */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, isReferenceViolation, paginate, referrerList, reply, uniqueColumn, uniqueViolation, lockForChange, orNotFound } from '../../../sdk/index.js'
import { InventoryErrors as E } from '../errors.js'
import { INVENTORY_READ, INVENTORY_WRITE } from '../permissions.js'
import { groupAncestry, lockTree, MAX_GROUP_DEPTH, subtreeHeight } from '../services/hierarchy.js'
import { GROUPS, loadGroup, loadGroupWithCounts, selectGroupsWithCounts, toGroupWithCounts } from '../services/rows.js'
import {
  DeviceGroupCreate, DeviceGroupListQuery, DeviceGroupListResponse, DeviceGroupParams, DeviceGroupResponse, DeviceGroupUpdate,
} from '../schemas/device-groups.js'
import type { InventoryRouteDeps } from './deps.js'
import { assertGroupExists } from './device-writes.js'

/** Group names: unique case-insensitively (409 DEVICE_GROUP_NAME_TAKEN). */
const groupNames = uniqueColumn({ table: GROUPS, taken: E.groupNameTaken, index: 'inventory_device_groups_name_unique' })

/**
 * Placing a subtree `height` levels tall under `parentId` (null: top level).
 * Refuses a loop (the parent is the group itself or below it) and a tree
 * deeper than MAX_GROUP_DEPTH. Call with the tree lock held.
 */
async function assertPlacement(trx: Knex.Transaction, parentId: string, groupId: string | null, height: number) {
  await assertGroupExists(trx, parentId, 'parent_id')
  const ancestry = await groupAncestry(trx, parentId)
  if (groupId && ancestry.includes(groupId)) throw E.groupCycle({ field: 'parent_id' })
  const depth = ancestry.length + height
  if (depth > MAX_GROUP_DEPTH) throw E.groupTooDeep({ field: 'parent_id', vars: { max: MAX_GROUP_DEPTH, depth } })
}

/** The unique index and the parent's foreign key are the last word when two requests race past the checks. */
const onWriteError = (name: string, parentId: string | null) => (e: unknown) => {
  if (uniqueViolation(e) === 'inventory_device_groups_name_unique') throw groupNames.taken(name)
  if (isReferenceViolation(e) && parentId) throw E.groupNotFound({ field: 'parent_id', vars: { id: parentId } })
  throw e
}

const RULES = `Devices of a group belong to all its ancestors too. Name taken (case-insensitively): 409 DEVICE_GROUP_NAME_TAKEN. A parent that is the group itself or one of its subgroups: 422 GROUP_CYCLE; more than ${MAX_GROUP_DEPTH} levels: 422 GROUP_TOO_DEEP.`

export function deviceGroupRoutes(d: InventoryRouteDeps) {
  const { knex } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/device-groups',
      permission: INVENTORY_READ,
      summary: 'List device groups',
      description: '`search` matches name and description. `device_count` counts the devices directly in a group, `child_count` its direct subgroups.',
      tags: ['inventory'],
      schema: { query: DeviceGroupListQuery, response: { 200: DeviceGroupListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => selectGroupsWithCounts(knex),
          equals: { parent_id: `${GROUPS}.parent_id` },
          filter: (qb) => {
            if (query.top_level === true) qb.whereNull(`${GROUPS}.parent_id`)
            if (query.top_level === false) qb.whereNotNull(`${GROUPS}.parent_id`)
          },
          searchColumns: [`${GROUPS}.name`, `${GROUPS}.description`],
          sortColumns: { name: `${GROUPS}.name`, created_at: `${GROUPS}.created_at`, updated_at: `${GROUPS}.updated_at` },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: `${GROUPS}.id`,
          map: toGroupWithCounts,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/device-groups',
      permission: INVENTORY_WRITE,
      summary: 'Create a device group',
      description: RULES,
      tags: ['inventory'],
      schema: { body: DeviceGroupCreate, response: { 201: DeviceGroupResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const parentId = b.parent_id ?? null
        return req.transaction(async (trx) => {
          await groupNames.assertFree(trx, b.name)
          if (parentId) {
            await lockTree(trx)
            await assertPlacement(trx, parentId, null, 1)
          }
          const [{ id }] = await trx(GROUPS)
            .insert({ name: b.name, description: b.description ?? null, parent_id: parentId })
            .returning('id')
            .catch(onWriteError(b.name, parentId))
          await req.audit({ action: 'device_group.create', resourceType: 'device_group', resourceId: id, after: await loadGroup(trx, id) }, trx)
          return (await loadGroupWithCounts(trx, id))!
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/device-groups/{device_group_id}',
      permission: INVENTORY_READ,
      summary: 'Get a device group',
      tags: ['inventory'],
      schema: { params: DeviceGroupParams, response: { 200: DeviceGroupResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await loadGroupWithCounts(knex, params.device_group_id), 'device_group_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/device-groups/{device_group_id}',
      permission: INVENTORY_WRITE,
      summary: 'Change a device group',
      description: `Partial: only the fields given change. A new \`parent_id\` moves the group with its subgroups and devices; \`null\` makes it top-level. ${RULES}`,
      tags: ['inventory'],
      schema: { params: DeviceGroupParams, body: DeviceGroupUpdate, response: { 200: DeviceGroupResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const id = req.params.device_group_id
        return req.transaction(async (trx) => {
          // The tree lock first, then the row: every tree change takes them in this order, so two cannot deadlock.
          const moves = b.parent_id !== undefined
          if (moves) await lockTree(trx)
          const before = await lockForChange(trx, GROUPS, id, 'device_group_id', loadGroup)
          if (b.name !== undefined) await groupNames.assertFree(trx, b.name, id)
          if (b.parent_id === id) throw E.groupCycle({ field: 'parent_id' })
          if (b.parent_id && b.parent_id !== before.parent_id) await assertPlacement(trx, b.parent_id, id, await subtreeHeight(trx, id))
          await trx(GROUPS)
            .where({ id })
            .update({ ...givenFields(b, ['name', 'description', 'parent_id']), updated_at: new Date() })
            .catch(onWriteError(b.name ?? before.name, b.parent_id ?? null))
          if (b.name !== undefined && b.name !== before.name) await d.references.device_group.renamed([id], trx)
          const after = await loadGroup(trx, id)
          await req.audit({ action: 'device_group.update', resourceType: 'device_group', resourceId: id, before, after }, trx)
          return (await loadGroupWithCounts(trx, id))!
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/device-groups/{device_group_id}',
      permission: INVENTORY_WRITE,
      summary: 'Delete a device group',
      description:
        'Only an empty group goes: one still holding devices or subgroups answers 409 GROUP_IN_USE (move or delete them first; nothing is re-parented behind your back). So does a group still referenced by another plugin (an AAA policy rule naming it); the detail names the references.',
      tags: ['inventory'],
      schema: { params: DeviceGroupParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.device_group_id
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, GROUPS, id, 'device_group_id', loadGroupWithCounts)
          if (before.device_count || before.child_count) {
            throw E.groupInUse({ field: 'device_group_id', vars: { devices: before.device_count, children: before.child_count } })
          }
          const referrers = await d.references.device_group.beforeDelete([id], trx)
          if (referrers.length) throw E.groupReferenced({ field: 'device_group_id', vars: { referrers: referrerList(referrers) } })
          await trx(GROUPS)
            .where({ id })
            .delete()
            .catch((e: unknown) => {
              // A foreign key that still points here (an out-of-tree plugin's schema): a 409 all the same.
              throw isReferenceViolation(e) ? E.groupReferenced({ field: 'device_group_id', vars: { referrers: '…' } }) : e
            })
          const { device_count: _d, child_count: _c, ...group } = before
          await req.audit({ action: 'device_group.delete', resourceType: 'device_group', resourceId: id, before: group }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
