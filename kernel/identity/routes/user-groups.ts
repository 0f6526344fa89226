/** User groups: members get the group's roles. Membership itself is set on the user (`group_ids`). */
import type { Knex } from 'knex'
import { CommonErrors, defineRoute, ErrorBody, givenFields, paginate, referrerList, reply, uniqueColumn, type Actor, type RowOf, type Static, type UpdateOf, lockForChange, orNotFound } from '../../../sdk/index.js'
import type { UserGroupsTable } from '../../db/tables.js'
import {
  UserGroupCreate, UserGroupListQuery, UserGroupListResponse, UserGroupMemberListResponse, UserGroupMemberQuery, UserGroupParams, UserGroupResponse, UserGroupUpdate,
} from '../schemas/user-groups.js'
import type { IdentityRouteDeps } from './deps.js'
import { assertRolesHeld, checkRefs, E, groupPermissions, iso, notHeld, type Capabilities } from './guards.js'

/** The row with its roles and member count: select() adds them as raw subqueries, which knex's typing cannot see, hence load()'s cast. */
type Row = RowOf<typeof UserGroupsTable> & { role_ids: string[]; member_count: number }

const select = (db: Knex | Knex.Transaction) =>
  db('user_groups').select(
    'id', 'name', 'description', 'directory_group_dn', 'created_at', 'updated_at',
    db.raw(`(SELECT coalesce(json_agg(gr.role_id ORDER BY gr.role_id), '[]'::json) FROM group_roles gr WHERE gr.group_id = user_groups.id) AS role_ids`),
    db.raw('(SELECT count(*)::int FROM user_group_members m WHERE m.group_id = user_groups.id) AS member_count'),
  )

const toGroup = (r: Row): Static<typeof UserGroupResponse> => ({ ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) })

async function load(db: Knex | Knex.Transaction, id: string) {
  const row = (await select(db).where({ id }).first()) as Row | undefined
  return row ? toGroup(row) : null
}

const names = uniqueColumn({ table: 'user_groups', taken: E.groupNameTaken })

async function writeRoles(trx: Knex.Transaction, groupId: string, roleIds: string[] | undefined) {
  if (!roleIds) return
  await trx('group_roles').where({ group_id: groupId }).delete()
  if (roleIds.length) await trx('group_roles').insert(roleIds.map((role_id) => ({ group_id: groupId, role_id })))
}

/** A non-administrator may change or delete only a group whose roles grant nothing they lack. */
async function assertGroupManageable(trx: Knex.Transaction, actor: Actor, groupId: string, caps: Capabilities) {
  const p = notHeld(actor, (await groupPermissions(trx, [groupId], caps)).get(groupId) ?? [])
  if (p) throw E.groupExceeds({ field: 'group_id', vars: { permission: p } })
}

const GUARDS =
  'Anyone but an administrator may only give roles whose permissions they hold (403 ROLE_EXCEEDS_OWN_PERMISSIONS at `role_ids[i]`), and only change or delete a group whose roles grant nothing they lack (403 GROUP_EXCEEDS_OWN_PERMISSIONS).'

export function userGroupRoutes(d: IdentityRouteDeps) {
  const { knex, identity } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/user-groups',
      permission: 'groups.read',
      summary: 'List user groups',
      description: '`search` matches name and description.',
      tags: ['identity'],
      schema: { query: UserGroupListQuery, response: { 200: UserGroupListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => select(knex),
          filter: (qb) => {
            if (query.role_id) qb.whereExists((s) => s.select(1).from('group_roles as fr').whereRaw('fr.group_id = user_groups.id').where('fr.role_id', query.role_id!))
          },
          searchColumns: ['user_groups.name', 'user_groups.description'],
          sortColumns: { name: 'user_groups.name', created_at: 'user_groups.created_at', updated_at: 'user_groups.updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'user_groups.id',
          map: toGroup,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/user-groups',
      permission: 'groups.write',
      summary: 'Create a user group',
      description: `Unknown role ids answer 422 at \`role_ids[i]\`; a name taken (case-insensitively), 409 GROUP_NAME_TAKEN. ${GUARDS}`,
      tags: ['identity'],
      schema: { body: UserGroupCreate, response: { 201: UserGroupResponse, 403: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const created = await identity.actors.change(req.transaction, async (trx) => {
          await checkRefs(trx, 'roles', b.role_ids, 'role_ids')
          await assertRolesHeld(trx, req.actor!, b.role_ids)
          await names.assertFree(trx, b.name)
          const [{ id }] = await trx('user_groups')
            .insert({ name: b.name, description: b.description ?? null, directory_group_dn: b.directory_group_dn ?? null })
            .returning('id')
            .catch(names.onViolation(b.name))
          await writeRoles(trx, id, b.role_ids)
          const group = (await load(trx, id))!
          await req.audit({ action: 'user_group.create', resourceType: 'user_group', resourceId: id, after: group }, trx)
          return group
        })
        return created
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user-groups/{group_id}',
      permission: 'groups.read',
      summary: 'Get a user group',
      tags: ['identity'],
      schema: { params: UserGroupParams, response: { 200: UserGroupResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await load(knex, params.group_id), 'group_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/user-groups/{group_id}',
      permission: 'groups.write',
      summary: 'Change a user group',
      description: `Partial: only the fields given change; \`role_ids\` replaces the whole list, and every member's permissions follow at their next request. ${GUARDS}`,
      tags: ['identity'],
      schema: { params: UserGroupParams, body: UserGroupUpdate, response: { 200: UserGroupResponse, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const updated = await identity.actors.change(req.transaction, async (trx) => {
          const before = await lockForChange(trx, 'user_groups', req.params.group_id, 'group_id', load)
          await assertGroupManageable(trx, req.actor!, before.id, identity.capabilities)
          await checkRefs(trx, 'roles', b.role_ids, 'role_ids')
          await assertRolesHeld(trx, req.actor!, b.role_ids)
          if (b.name !== undefined) await names.assertFree(trx, b.name, before.id)
          const cols: UpdateOf<typeof UserGroupsTable> = { updated_at: new Date(), ...givenFields(b, ['name', 'description', 'directory_group_dn']) }
          await trx('user_groups').where({ id: before.id }).update(cols).catch(names.onViolation(b.name ?? before.name))
          if (b.name !== undefined && b.name !== before.name) await identity.ownedReferences.user_group.renamed([before.id], trx)
          await writeRoles(trx, before.id, b.role_ids)
          const after = (await load(trx, before.id))!
          await req.audit({ action: 'user_group.update', resourceType: 'user_group', resourceId: before.id, before, after }, trx)
          return after
        })
        return updated
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/user-groups/{group_id}',
      permission: 'groups.write',
      summary: 'Delete a user group',
      description: `The members stay; they lose the group's membership and the roles it gave them, from their next request. A group another plugin still references (an AAA policy rule naming the group) answers 409 RECORD_IN_USE naming those references. ${GUARDS}`,
      tags: ['identity'],
      schema: { params: UserGroupParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        await identity.actors.change(req.transaction, async (trx) => {
          const before = await lockForChange(trx, 'user_groups', req.params.group_id, 'group_id', load)
          await assertGroupManageable(trx, req.actor!, before.id, identity.capabilities)
          const referrers = await identity.ownedReferences.user_group.beforeDelete([before.id], trx)
          if (referrers.length) throw E.groupReferenced({ field: 'group_id', vars: { referrers: referrerList(referrers) } })
          await trx('user_groups').where({ id: before.id }).delete()
          await req.audit({ action: 'user_group.delete', resourceType: 'user_group', resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user-groups/{group_id}/members',
      permission: 'groups.read',
      summary: 'List the members of a user group',
      description: 'Members as the group sees them (id, username, display name, enabled, source); the full record is at GET /api/v1/users/{user_id} under users.read. `search` matches username and display name.',
      tags: ['identity'],
      schema: { params: UserGroupParams, query: UserGroupMemberQuery, response: { 200: UserGroupMemberListResponse, 404: ErrorBody } },
      handler: async ({ params, query }) => {
        if (!(await knex('user_groups').where({ id: params.group_id }).first('id'))) throw CommonErrors.notFound({ field: 'group_id' })
        return paginate(query, {
          base: () =>
            knex('users')
              .join('user_group_members', 'user_group_members.user_id', 'users.id')
              .where('user_group_members.group_id', params.group_id)
              .select('users.id', 'users.username', 'users.display_name', 'users.enabled', 'users.source'),
          equals: { enabled: 'users.enabled' },
          searchColumns: ['users.username', 'users.display_name'],
          sortColumns: { username: 'users.username', display_name: 'users.display_name' },
          defaultSort: 'username',
          defaultPerPage: 20,
          tieBreaker: 'users.id',
          map: (r: Static<typeof UserGroupMemberListResponse>['items'][number]) => r,
        })
      },
    }),
  ]
}
