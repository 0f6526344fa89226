/** Roles: named sets of permissions, given to users directly or through their groups. */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, jsonText, paginate, reply, uniqueColumn, type Actor, type RowOf, type Static, type UpdateOf, lockForChange, orNotFound } from '../../../sdk/index.js'
import type { RolesTable } from '../../db/tables.js'
import { RoleCreate, RoleListQuery, RoleListResponse, RoleParams, RoleResponse, RoleUpdate } from '../schemas/roles.js'
import type { IdentityRouteDeps } from './deps.js'
import { E, iso, notHeld } from './guards.js'

/** The row with its counts: select() adds them as raw subqueries, which knex's typing cannot see, hence load()'s cast. */
type Row = RowOf<typeof RolesTable> & { user_count: number; group_count: number }

const select = (db: Knex | Knex.Transaction) =>
  db('roles').select(
    'id', 'name', 'description', 'permissions', 'created_at', 'updated_at',
    db.raw('(SELECT count(*)::int FROM user_roles ur WHERE ur.role_id = roles.id) AS user_count'),
    db.raw('(SELECT count(*)::int FROM group_roles gr WHERE gr.role_id = roles.id) AS group_count'),
  )

const toRole = (r: Row): Static<typeof RoleResponse> => ({
  ...r,
  permissions: [...r.permissions].sort(),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

async function load(db: Knex | Knex.Transaction, id: string) {
  const row = (await select(db).where({ id }).first()) as Row | undefined
  return row ? toRole(row) : null
}

const names = uniqueColumn({ table: 'roles', taken: E.roleNameTaken })

const GUARDS =
  'Anyone but an administrator may only grant permissions they hold (403 ROLE_EXCEEDS_OWN_PERMISSIONS at `permissions[i]`), and only change or delete a role that grants nothing they lack (403 ROLE_EXCEEDS_OWN_PERMISSIONS at `role_id`).'

export function roleRoutes(d: IdentityRouteDeps) {
  const { knex, identity } = d

  /** Each name must be declared (422 at the item), and held by a non-administrator (403 at the item). */
  const checkPermissions = (actor: Actor, perms: readonly string[] | undefined) => {
    if (!perms) return
    for (const [i, p] of perms.entries()) if (!d.registry.permissions.has(p)) throw E.permissionUnknown({ field: `permissions[${i}]`, vars: { permission: p } })
    for (const [i, p] of perms.entries()) if (notHeld(actor, [p])) throw E.roleExceeds({ field: `permissions[${i}]`, vars: { permission: p } })
  }

  const assertRoleManageable = (actor: Actor, role: { permissions: string[] }) => {
    const p = notHeld(actor, role.permissions)
    if (p) throw E.roleExceeds({ field: 'role_id', vars: { permission: p } })
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/roles',
      permission: 'roles.read',
      summary: 'List roles',
      description: '`search` matches name and description; `permission` keeps the roles granting that permission.',
      tags: ['identity'],
      schema: { query: RoleListQuery, response: { 200: RoleListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => select(knex),
          filter: (qb) => {
            if (query.permission) qb.whereRaw('roles.permissions @> ?::jsonb', [JSON.stringify([query.permission])])
          },
          searchColumns: ['roles.name', 'roles.description'],
          sortColumns: { name: 'roles.name', created_at: 'roles.created_at', updated_at: 'roles.updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'roles.id',
          map: toRole,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/roles',
      permission: 'roles.write',
      summary: 'Create a role',
      description: `Every permission must be declared by the kernel or a loaded plugin (422 PERMISSION_UNKNOWN at \`permissions[i]\`); a name taken (case-insensitively) answers 409 ROLE_NAME_TAKEN. ${GUARDS}`,
      tags: ['identity'],
      schema: { body: RoleCreate, response: { 201: RoleResponse, 403: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        checkPermissions(req.actor!, b.permissions)
        const created = await identity.actors.change(req.transaction, async (trx) => {
          await names.assertFree(trx, b.name)
          const [{ id }] = await trx('roles')
            .insert({ name: b.name, description: b.description ?? null, permissions: jsonText(b.permissions ?? []) })
            .returning('id')
            .catch(names.onViolation(b.name))
          const role = (await load(trx, id))!
          await req.audit({ action: 'role.create', resourceType: 'role', resourceId: id, after: role }, trx)
          return role
        })
        return created
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/roles/{role_id}',
      permission: 'roles.read',
      summary: 'Get a role',
      tags: ['identity'],
      schema: { params: RoleParams, response: { 200: RoleResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await load(knex, params.role_id), 'role_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/roles/{role_id}',
      permission: 'roles.write',
      summary: 'Change a role',
      description: `Partial: only the fields given change; \`permissions\` replaces the whole list, and everyone holding the role, directly or through a group, has the new set from their next request. ${GUARDS}`,
      tags: ['identity'],
      schema: { params: RoleParams, body: RoleUpdate, response: { 200: RoleResponse, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const updated = await identity.actors.change(req.transaction, async (trx) => {
          const before = await lockForChange(trx, 'roles', req.params.role_id, 'role_id', load)
          assertRoleManageable(req.actor!, before)
          checkPermissions(req.actor!, b.permissions)
          if (b.name !== undefined) await names.assertFree(trx, b.name, before.id)
          const cols: UpdateOf<typeof RolesTable> = { updated_at: new Date(), ...givenFields(b, ['name', 'description']) }
          if (b.permissions !== undefined) cols.permissions = jsonText(b.permissions)
          await trx('roles').where({ id: before.id }).update(cols).catch(names.onViolation(b.name ?? before.name))
          const after = (await load(trx, before.id))!
          await req.audit({ action: 'role.update', resourceType: 'role', resourceId: before.id, before, after }, trx)
          return after
        })
        return updated
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/roles/{role_id}',
      permission: 'roles.write',
      summary: 'Delete a role',
      description: `Allowed while the role is in use: it is taken from every user and group holding it (see \`user_count\` and \`group_count\` before deleting), and they lose its permissions from their next request. ${GUARDS}`,
      tags: ['identity'],
      schema: { params: RoleParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        await identity.actors.change(req.transaction, async (trx) => {
          const before = await lockForChange(trx, 'roles', req.params.role_id, 'role_id', load)
          assertRoleManageable(req.actor!, before)
          await trx('roles').where({ id: before.id }).delete()
          await req.audit({ action: 'role.delete', resourceType: 'role', resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
