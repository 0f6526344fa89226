/** Users: the accounts of the management API and, with network_login, of the TACACS+/RADIUS daemons. */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, paginate, referrerList, reply, uniqueColumn, type Actor, type RowOf, type Static, type UpdateOf, lockForChange, orNotFound } from '../../../sdk/index.js'
import type { UsersTable } from '../../db/tables.js'
import { accessEndedBy } from '../lifecycle.js'
import { checkNetworkLoginChange } from '../network-password.js'
import { passwordColumns } from '../passwords-set.js'
import { withoutCleartext } from '../verifiers.js'
import { voidResetLinks, VOIDS_RESET_LINKS } from '../reset-links.js'
import { UserCreate, UserListQuery, UserListResponse, UserParams, UserResponse, UserUpdate } from '../schemas/users.js'
import type { IdentityRouteDeps } from './deps.js'
import { assertGroupsHeld, assertRolesHeld, assertUserManageable, checkRefs, E, iso, isoOrNull, lockEnabledAdmins, type Capabilities } from './guards.js'

/**
 * The row as read for the API: flags instead of the hash and the sealed verifiers, which never leave the
 * database here. select() computes the flags and lists in raw expressions, which knex's typing cannot see,
 * hence load()'s cast.
 */
type Row = Omit<RowOf<typeof UsersTable>, 'password_hash' | 'network_verifiers' | 'sessions_valid_after'> & {
  password_set: boolean
  network_verifiers_set: boolean
  group_ids: string[]
  role_ids: string[]
}

const select = (db: Knex | Knex.Transaction) =>
  db('users').select(
    'id', 'username', 'display_name', 'email', 'enabled', 'source', 'is_admin', 'network_login', 'chap_enabled', 'must_change_password', 'password_changed_at', 'expires_at', 'lockout_cleared_at', 'created_at', 'updated_at',
    db.raw('(password_hash IS NOT NULL) AS password_set'),
    db.raw('(network_verifiers IS NOT NULL) AS network_verifiers_set'),
    db.raw(`(SELECT coalesce(json_agg(m.group_id ORDER BY m.group_id), '[]'::json) FROM user_group_members m WHERE m.user_id = users.id) AS group_ids`),
    db.raw(`(SELECT coalesce(json_agg(r.role_id ORDER BY r.role_id), '[]'::json) FROM user_roles r WHERE r.user_id = users.id) AS role_ids`),
  )

const toUser = (r: Row): Static<typeof UserResponse> => ({
  ...r,
  password_changed_at: isoOrNull(r.password_changed_at),
  expires_at: isoOrNull(r.expires_at),
  lockout_cleared_at: isoOrNull(r.lockout_cleared_at),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export async function load(db: Knex | Knex.Transaction, id: string): Promise<Static<typeof UserResponse> | null> {
  const row = (await select(db).where({ id }).first()) as Row | undefined
  return row ? toUser(row) : null
}

/** Unknown ids are a 422 on the item; ids granting more than the actor holds, a 403. */
async function checkLinks(trx: Knex.Transaction, actor: Actor, b: { group_ids?: string[]; role_ids?: string[] }, caps: Capabilities) {
  await checkRefs(trx, 'user_groups', b.group_ids, 'group_ids')
  await checkRefs(trx, 'roles', b.role_ids, 'role_ids')
  await assertGroupsHeld(trx, actor, b.group_ids, caps)
  await assertRolesHeld(trx, actor, b.role_ids)
}

async function writeLinks(trx: Knex.Transaction, userId: string, b: { group_ids?: string[]; role_ids?: string[] }) {
  if (b.group_ids) {
    await trx('user_group_members').where({ user_id: userId }).delete()
    if (b.group_ids.length) await trx('user_group_members').insert(b.group_ids.map((group_id) => ({ group_id, user_id: userId })))
  }
  if (b.role_ids) {
    await trx('user_roles').where({ user_id: userId }).delete()
    if (b.role_ids.length) await trx('user_roles').insert(b.role_ids.map((role_id) => ({ role_id, user_id: userId })))
  }
}

const usernames = uniqueColumn({ table: 'users', column: 'username', taken: E.usernameTaken })

/** What a new user starts from, for the network-login rules (network-password.ts). */
const NEW_USER = { source: 'local', network_login: false, chap_enabled: false, password_set: false, network_verifiers_set: false } as const

/** The network-login rules, as both the create and the change describe them. */
const NETWORK =
  'With `network_login`, the password must also work on a device: no NUL byte and at most 128 bytes in UTF-8 (RADIUS PAP carries 128, TACACS+ 255), else 422 PASSWORD_POLICY saying how many bytes over. A `source: directory` user may have network login: the daemons check the password against the directory (PAP, TACACS+ ASCII/PAP), and never CHAP (`chap_enabled` for a directory user: 422 NETWORK_LOGIN_NOT_ALLOWED; docs/directory.md).'

const GUARDS =
  'Only an administrator may set `is_admin` or act on an administrator (403 ADMIN_REQUIRED). Anyone else may only give roles and groups whose permissions they hold (403 ROLE_EXCEEDS_OWN_PERMISSIONS at `role_ids[i]`, GROUP_EXCEEDS_OWN_PERMISSIONS at `group_ids[i]`), and only act on users who hold nothing they lack (403 USER_EXCEEDS_OWN_PERMISSIONS).'

/**
 * POST /users without its audit entry: every check of the route (administrators, roles and groups
 * held, password rules, unique name), then the insert with the password hashed. The import calls it
 * for each row, so a file can do nothing a request could not.
 */
export async function insertUser(trx: Knex.Transaction, actor: Actor, b: Static<typeof UserCreate>, d: Pick<IdentityRouteDeps, 'identity' | 'secrets'>): Promise<Static<typeof UserResponse>> {
  if (b.is_admin && !actor.isAdmin) throw E.adminRequired({ field: 'is_admin' })
  const source = b.source ?? 'local'
  if (b.password !== undefined && source === 'directory') throw E.passwordNotAllowed({ field: 'password' })
  checkNetworkLoginChange(NEW_USER, b)
  const networkLogin = b.network_login ?? false
  const chap = b.chap_enabled ?? false
  await checkLinks(trx, actor, b, d.identity.capabilities)
  await usernames.assertFree(trx, b.username)
  const pw = b.password !== undefined ? await passwordColumns(d.secrets, b.username, b.password, 'password', networkLogin, chap) : {}
  const [{ id }] = await trx('users')
    .insert({
      username: b.username,
      display_name: b.display_name ?? null,
      email: b.email ?? null,
      enabled: b.enabled ?? true,
      source,
      is_admin: b.is_admin ?? false,
      network_login: networkLogin,
      chap_enabled: chap,
      must_change_password: b.must_change_password ?? false,
      expires_at: b.expires_at ? new Date(b.expires_at) : null,
      ...pw,
    })
    .returning('id')
    .catch(usernames.onViolation(b.username))
  await writeLinks(trx, id, b)
  return (await load(trx, id))!
}

export function userRoutes(d: IdentityRouteDeps) {
  const { knex, identity } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/users',
      permission: 'users.read',
      summary: 'List users',
      description: '`search` matches username, display name and email. `role_id` matches roles held directly or through a group. Password hashes and network verifiers are never returned.',
      tags: ['identity'],
      schema: { query: UserListQuery, response: { 200: UserListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => select(knex),
          equals: { enabled: 'users.enabled', source: 'users.source', is_admin: 'users.is_admin' },
          filter: (qb) => {
            if (query.group_id) qb.whereExists((s) => s.select(1).from('user_group_members as fm').whereRaw('fm.user_id = users.id').where('fm.group_id', query.group_id!))
            if (query.role_id) {
              qb.whereRaw(
                `(EXISTS (SELECT 1 FROM user_roles fr WHERE fr.user_id = users.id AND fr.role_id = ?)
                  OR EXISTS (SELECT 1 FROM group_roles fg JOIN user_group_members fm ON fm.group_id = fg.group_id WHERE fm.user_id = users.id AND fg.role_id = ?))`,
                [query.role_id, query.role_id],
              )
            }
          },
          searchColumns: ['users.username', 'users.display_name', 'users.email'],
          sortColumns: { username: 'users.username', display_name: 'users.display_name', email: 'users.email', created_at: 'users.created_at', updated_at: 'users.updated_at' },
          defaultSort: 'username',
          defaultPerPage: 20,
          tieBreaker: 'users.id',
          map: toUser,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/users',
      permission: 'users.write',
      summary: 'Create a user',
      description: `A local user without a password exists but cannot sign in until one is set. \`password\` is refused for \`source: directory\` (422 PASSWORD_NOT_ALLOWED). With \`network_login\` and a password, the daemons' verifiers (SHA-512 crypt, NT hash) are derived and sealed; with \`chap_enabled\` too, the password is kept reversibly encrypted (sealed with the master key) so that FreeRADIUS can check CHAP. ${NETWORK} ${GUARDS}`,
      tags: ['identity'],
      schema: { body: UserCreate, response: { 201: UserResponse, 403: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        identity.actors.change(req.transaction, async (trx) => {
          const user = await insertUser(trx, req.actor!, req.body, d)
          await req.audit({ action: 'user.create', resourceType: 'user', resourceId: user.id, after: user }, trx)
          return user
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}',
      permission: 'users.read',
      summary: 'Get a user',
      tags: ['identity'],
      schema: { params: UserParams, response: { 200: UserResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await load(knex, params.user_id), 'user_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/users/{user_id}',
      permission: 'users.write',
      summary: 'Change a user',
      description: `Partial: only the fields given change; \`group_ids\` and \`role_ids\` replace the whole list. A new \`password\` voids every older session of the user (theirs included, when they change themselves) and, with \`network_login\` on, derives the verifiers. The platform keeps no cleartext to derive them from later, so a request that turns \`network_login\` on for a user who has a password but no verifiers (\`network_verifiers_set\` false), or turns \`chap_enabled\` on for a network-login user with a password, must give the \`password\` too (422 NETWORK_PASSWORD_REQUIRED at \`password\`); a user without any password gets the verifiers with the first one. Turning \`network_login\` off, or switching to \`source: directory\` (with \`network_login: false\` in the same request), discards the verifiers (and, for directory, the local password). \`chap_enabled\` keeps the password reversibly encrypted (sealed with the master key) so that FreeRADIUS can check CHAP; turning it off discards the kept password at once. ${NETWORK} Disabling a user voids their sessions. A new \`password\`, \`email\`, \`enabled\`, \`source\` or \`expires_at\` voids the user's pending password-reset links. Disabling, turning \`network_login\` off, or an \`expires_at\` already past ends the user's access: after the commit, the plugins that follow users act on it (where the edition has them: live network sessions ended). Disabling or demoting the last enabled administrator answers 409 LAST_ADMIN, and so does giving an \`expires_at\` to the last enabled administrator without one. ${GUARDS}`,
      tags: ['identity'],
      schema: { params: UserParams, body: UserUpdate, response: { 200: UserResponse, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const actor = req.actor!
        const updated = await identity.actors.change(req.transaction, async (trx) => {
          const admins = await lockEnabledAdmins(trx)
          const before = await lockForChange(trx, 'users', req.params.user_id, 'user_id', load)
          await assertUserManageable(trx, actor, before, identity.capabilities)
          if (b.is_admin !== undefined && b.is_admin !== before.is_admin && !actor.isAdmin) throw E.adminRequired({ field: 'is_admin' })
          const source = b.source ?? before.source
          if (b.password !== undefined && source === 'directory') throw E.passwordNotAllowed({ field: 'password' })
          checkNetworkLoginChange(before, b)
          await checkLinks(trx, actor, b, identity.capabilities)
          const username = b.username ?? before.username
          if (b.username !== undefined) await usernames.assertFree(trx, b.username, before.id)
          const enabled = b.enabled ?? before.enabled
          const isAdmin = b.is_admin ?? before.is_admin
          if (before.is_admin && before.enabled && (!enabled || !isAdmin) && admins.length <= 1) {
            throw E.lastAdmin({ field: isAdmin ? 'enabled' : 'is_admin' })
          }
          // An expiry would lock everyone out once it passes: one enabled administrator must never expire.
          if (b.expires_at && before.is_admin && before.enabled && before.expires_at === null) {
            const lasting = await trx('users').whereIn('id', admins).whereNull('expires_at').pluck('id')
            if (lasting.length <= 1) throw E.lastLastingAdmin({ field: 'expires_at' })
          }
          const networkLogin = b.network_login ?? before.network_login
          const chap = b.chap_enabled ?? before.chap_enabled
          const now = new Date()
          const cols: UpdateOf<typeof UsersTable> = {
            updated_at: now,
            ...givenFields(b, ['username', 'display_name', 'email', 'enabled', 'source', 'is_admin', 'network_login', 'chap_enabled', 'must_change_password']),
          }
          if (b.expires_at !== undefined) cols.expires_at = b.expires_at === null ? null : new Date(b.expires_at)
          if (b.password !== undefined) {
            Object.assign(cols, await passwordColumns(d.secrets, username, b.password, 'password', networkLogin, chap), { sessions_valid_after: now })
          } else if (!chap && before.chap_enabled) {
            // CHAP turned off: the kept cleartext goes now, the other verifiers stay.
            const row = (await trx('users').where({ id: before.id }).first('network_verifiers'))!
            cols.network_verifiers = withoutCleartext(d.secrets, row.network_verifiers)
          }
          // Verifiers exist only while network login is on: a stale set must not come back when it is switched on again.
          if (!networkLogin) cols.network_verifiers = null
          if (source === 'directory' && before.source !== 'directory') Object.assign(cols, { password_hash: null, network_verifiers: null, password_changed_at: null })
          if (before.enabled && !enabled) cols.sessions_valid_after = now
          await trx('users').where({ id: before.id }).update(cols).catch(usernames.onViolation(username))
          if (username !== before.username) await identity.ownedReferences.user.renamed([before.id], trx)
          await writeLinks(trx, before.id, b)
          if (VOIDS_RESET_LINKS.some((k) => b[k] !== undefined)) await voidResetLinks(trx, before.id)
          const after = (await load(trx, before.id))!
          await req.audit({ action: 'user.update', resourceType: 'user', resourceId: before.id, before, after }, trx)
          return { before, after }
        })
        // After the commit: the NAC ends the user's live sessions (CoA), for instance.
        const ended = accessEndedBy(updated.before, updated.after)
        if (ended) await d.lifecycle.accessEnded([{ user_id: updated.after.id, username: updated.before.username, reason: ended, actor, requestId: req.requestId }])
        return updated.after
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/{user_id}',
      permission: 'users.write',
      summary: 'Delete a user',
      description: `Removes the user with their group memberships, directly given roles and pending password resets. After the commit, the plugins that follow users act on it (where the edition has them: the user's certificates revoked, their live network sessions ended). Deleting yourself answers 409 CANNOT_DELETE_SELF; deleting the last enabled administrator, 409 LAST_ADMIN; a user another plugin still references (an AAA policy rule naming the user), 409 RECORD_IN_USE naming those references. ${GUARDS}`,
      tags: ['identity'],
      schema: { params: UserParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const actor = req.actor!
        const deleted = await identity.actors.change(req.transaction, async (trx) => {
          const admins = await lockEnabledAdmins(trx)
          const before = await lockForChange(trx, 'users', req.params.user_id, 'user_id', load)
          if (before.id === actor.id) throw E.cannotDeleteSelf({ field: 'user_id' })
          await assertUserManageable(trx, actor, before, identity.capabilities)
          if (before.is_admin && before.enabled && admins.length <= 1) throw E.lastAdmin({ field: 'user_id' })
          const referrers = await identity.ownedReferences.user.beforeDelete([before.id], trx)
          if (referrers.length) throw E.userReferenced({ field: 'user_id', vars: { referrers: referrerList(referrers) } })
          await trx('users').where({ id: before.id }).delete()
          await req.audit({ action: 'user.delete', resourceType: 'user', resourceId: before.id, before }, trx)
          return before
        })
        // After the commit: the PKI revokes the user's certificates (else a device certificate), the NAC ends their sessions.
        await d.lifecycle.accessEnded([{ user_id: deleted.id, username: deleted.username, reason: 'deleted', actor, requestId: req.requestId }])
        return reply({ status: 204 })
      },
    }),
  ]
}
