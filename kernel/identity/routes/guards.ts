/**
 * What the user, group and role routes share: their coded errors, reference
 * checks, and the rule against privilege escalation. That rule: an actor who
 * is not an administrator may only hand out permissions they hold themselves,
 * and may only act on users, groups and roles whose permissions they hold, so
 * that no combination of users.write, groups.write and roles.write is a path
 * to more (setting a stronger user's password and signing in as them, adding
 * a permission to a role of one's own, joining a stronger group). A group
 * whose membership grants a capability (a plugin's, such as EST enrollment)
 * counts as granting the permission the plugin says it stands for.
 */
import type { Knex } from 'knex'
import { defineError, type Actor, type CapabilityGroups } from '../../../sdk/index.js'

export const E = {
  usernameTaken: defineError(409, 'USERNAME_TAKEN', 'core:identity.username_taken'),
  groupNameTaken: defineError(409, 'GROUP_NAME_TAKEN', 'core:identity.group_name_taken'),
  roleNameTaken: defineError(409, 'ROLE_NAME_TAKEN', 'core:identity.role_name_taken'),
  cannotDeleteSelf: defineError(409, 'CANNOT_DELETE_SELF', 'core:identity.cannot_delete_self'),
  lastAdmin: defineError(409, 'LAST_ADMIN', 'core:identity.last_admin'),
  lastLastingAdmin: defineError(409, 'LAST_ADMIN', 'core:identity.last_lasting_admin'),
  /** Another plugin's record (an AAA policy rule) still names the user or group: its reference guard said so (sdk/references.ts). */
  userReferenced: defineError(409, 'RECORD_IN_USE', 'core:identity.user_referenced'),
  groupReferenced: defineError(409, 'RECORD_IN_USE', 'core:identity.group_referenced'),
  groupNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'core:identity.group_not_found'),
  roleNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'core:identity.role_not_found'),
  permissionUnknown: defineError(422, 'PERMISSION_UNKNOWN', 'core:identity.permission_unknown'),
  passwordNotAllowed: defineError(422, 'PASSWORD_NOT_ALLOWED', 'core:identity.password_directory'),
  adminRequired: defineError(403, 'ADMIN_REQUIRED', 'core:identity.admin_required'),
  roleExceeds: defineError(403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'core:identity.role_exceeds'),
  groupExceeds: defineError(403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'core:identity.group_exceeds'),
  userExceeds: defineError(403, 'USER_EXCEEDS_OWN_PERMISSIONS', 'core:identity.user_exceeds'),
}

export const iso = (d: Date | string) => new Date(d).toISOString()
export const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d))

/** Throws 422 naming `field[i]` for the first id that is not a row of `table`. */
export async function checkRefs(trx: Knex.Transaction, table: 'roles' | 'user_groups', ids: readonly string[] | undefined, field: string): Promise<void> {
  if (!ids?.length) return
  const found = new Set(await trx(table).whereIn('id', ids).pluck('id'))
  const i = ids.findIndex((id) => !found.has(id))
  if (i < 0) return
  const err = table === 'roles' ? E.roleNotFound : E.groupNotFound
  throw err({ field: `${field}[${i}]`, vars: { id: ids[i] } })
}

/** The first permission in `perms` the actor does not hold; null for an administrator. */
export function notHeld(actor: Actor, perms: Iterable<string>): string | null {
  if (actor.isAdmin) return null
  for (const p of perms) if (!actor.permissions.has(p)) return p
  return null
}

/** Permissions each role grants. */
export async function rolePermissions(trx: Knex.Transaction, roleIds: readonly string[]): Promise<Map<string, string[]>> {
  if (!roleIds.length) return new Map()
  const rows = await trx('roles').whereIn('id', roleIds).select('id', 'permissions')
  return new Map(rows.map((r) => [r.id, r.permissions]))
}

/**
 * The groups whose membership grants a capability no role names (EST enrollment), as plugins declared
 * them (IdentityService.registerCapabilityGroups): for the rule, such a group grants the capability's
 * permission as if one of its roles did, so users.write alone never hands it out.
 */
export type Capabilities = readonly CapabilityGroups[]

/** The permissions capability groups among `groupIds` stand for, by group. */
async function capabilityPermissions(db: Knex | Knex.Transaction, caps: Capabilities, groupIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  for (const c of caps) {
    for (const id of await c.groupIds(db)) if (groupIds.includes(id)) out.set(id, [...(out.get(id) ?? []), c.permission])
  }
  return out
}

/** Permissions each group grants its members, through its roles and as a capability group. */
export async function groupPermissions(trx: Knex.Transaction, groupIds: readonly string[], caps: Capabilities): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(groupIds.map((id) => [id, []]))
  if (!groupIds.length) return out
  const rows = await trx('group_roles').join('roles', 'roles.id', 'group_roles.role_id').whereIn('group_roles.group_id', groupIds).select('group_roles.group_id', 'roles.permissions')
  for (const r of rows) out.get(r.group_id)!.push(...r.permissions)
  for (const [id, perms] of await capabilityPermissions(trx, caps, groupIds)) out.get(id)!.push(...perms)
  return out
}

/** Throws 403 at `role_ids[i]` for the first role granting a permission the actor lacks. */
export async function assertRolesHeld(trx: Knex.Transaction, actor: Actor, roleIds: readonly string[] | undefined, field = 'role_ids'): Promise<void> {
  if (actor.isAdmin || !roleIds?.length) return
  const perms = await rolePermissions(trx, roleIds)
  for (const [i, id] of roleIds.entries()) {
    const p = notHeld(actor, perms.get(id) ?? [])
    if (p) throw E.roleExceeds({ field: `${field}[${i}]`, vars: { permission: p } })
  }
}

/** Throws 403 at `group_ids[i]` for the first group whose roles grant a permission the actor lacks. */
export async function assertGroupsHeld(trx: Knex.Transaction, actor: Actor, groupIds: readonly string[] | undefined, caps: Capabilities): Promise<void> {
  if (actor.isAdmin || !groupIds?.length) return
  const perms = await groupPermissions(trx, groupIds, caps)
  for (const [i, id] of groupIds.entries()) {
    const p = notHeld(actor, perms.get(id) ?? [])
    if (p) throw E.groupExceeds({ field: `group_ids[${i}]`, vars: { permission: p } })
  }
}

/** Everything a user may do, from roles given directly and through groups (what the actor cache computes). */
export async function effectivePermissions(trx: Knex | Knex.Transaction, userId: string): Promise<string[]> {
  const r = (await trx.raw(
    `SELECT DISTINCT jsonb_array_elements_text(r.permissions) AS p FROM roles r
     WHERE r.id IN (SELECT role_id FROM user_roles WHERE user_id = ?
                    UNION SELECT gr.role_id FROM group_roles gr JOIN user_group_members m ON m.group_id = gr.group_id WHERE m.user_id = ?)`,
    [userId, userId],
  )) as { rows: { p: string }[] }
  return r.rows.map((x) => x.p)
}

/**
 * A non-administrator may act only on a user who is not an administrator and holds nothing the actor
 * lacks, a capability group's permission included: setting the password of an EST group member would
 * otherwise let users.write enroll as them.
 */
export async function assertUserManageable(trx: Knex | Knex.Transaction, actor: Actor, target: { id: string; is_admin: boolean }, caps: Capabilities): Promise<void> {
  if (actor.isAdmin) return
  if (target.is_admin) throw E.adminRequired({ field: 'user_id' })
  const groups: string[] = caps.length ? await trx('user_group_members').where({ user_id: target.id }).pluck('group_id') : []
  const capability = [...(await capabilityPermissions(trx, caps, groups)).values()].flat()
  const p = notHeld(actor, [...(await effectivePermissions(trx, target.id)), ...capability])
  if (p) throw E.userExceeds({ field: 'user_id', vars: { permission: p } })
}

/**
 * Locks the enabled administrators (in id order, so two requests cannot
 * deadlock) and returns their ids. Every user write takes this lock before
 * touching its target, so two requests demoting, disabling or deleting the
 * last two administrators run one after the other and the second sees one left.
 */
export async function lockEnabledAdmins(trx: Knex.Transaction): Promise<string[]> {
  return trx('users').where({ is_admin: true, enabled: true }).orderBy('id').forUpdate().pluck('id')
}
