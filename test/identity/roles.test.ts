/** /api/v1/roles: CRUD, declared permissions only, list behaviour, guards, and permission changes taking effect at once. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'
import { actorWith, auditRows, createGroup, createRole, createUser, expectError, uniq } from './helpers.js'

const FIELDS = ['id', 'name', 'description', 'permissions', 'user_count', 'group_count', 'created_at', 'updated_at']

describe('roles API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  describe('create, read, update, delete', () => {
    it('creates a role with sorted permissions and usage counts', async () => {
      const name = uniq('Auditors')
      const r = await t.admin('POST', '/api/v1/roles', { body: { name, description: '', permissions: ['users.read', 'audit.read'] } })
      expect(r.status).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, description: null, user_count: 0, group_count: 0 })
      expect(r.body.permissions).to.deep.equal(['audit.read', 'users.read'])
      expect((await t.admin('GET', `/api/v1/roles/${r.body.id}`)).body).to.deep.equal(r.body)
      const empty = await t.admin('POST', '/api/v1/roles', { body: { name: uniq('empty') } })
      expect(empty.body.permissions).to.deep.equal([])
    })

    it('counts the users and groups holding a role', async () => {
      const role = await createRole(t, ['users.read'])
      await createUser(t, { role_ids: [role] })
      await createUser(t, { role_ids: [role] })
      await createGroup(t, [role])
      expect((await t.admin('GET', `/api/v1/roles/${role}`)).body).to.include({ user_count: 2, group_count: 1 })
    })

    it('updates only the fields given; permissions replaces the list', async () => {
      const role = (await t.admin('POST', '/api/v1/roles', { body: { name: uniq('r'), description: 'd1', permissions: ['users.read'] } })).body
      const a = await t.admin('PUT', `/api/v1/roles/${role.id}`, { body: { description: 'd2' } })
      expect(a.status).to.equal(200)
      expect(a.body).to.include({ name: role.name, description: 'd2' })
      expect(a.body.permissions).to.deep.equal(['users.read'])
      const b = await t.admin('PUT', `/api/v1/roles/${role.id}`, { body: { permissions: ['roles.read', 'groups.read'], name: `${role.name}-x` } })
      expect(b.body.permissions).to.deep.equal(['groups.read', 'roles.read'])
      expect(b.body.name).to.equal(`${role.name}-x`)
    })

    it('deletes a role in use, taking it from its users and groups', async () => {
      const role = await createRole(t, ['users.read'])
      const u = await createUser(t, { role_ids: [role] })
      const g = await createGroup(t, [role])
      expect((await t.admin('DELETE', `/api/v1/roles/${role}`)).status).to.equal(204)
      expectError(await t.admin('GET', `/api/v1/roles/${role}`), 404, 'NOT_FOUND', 'role_id')
      expect((await t.admin('GET', `/api/v1/users/${u.id}`)).body.role_ids).to.deep.equal([])
      expect((await t.admin('GET', `/api/v1/user-groups/${g}`)).body.role_ids).to.deep.equal([])
    })

    it('answers 404 naming role_id for an unknown id, 422 for a malformed one', async () => {
      for (const m of ['GET', 'PUT', 'DELETE']) {
        const o = m === 'PUT' ? { body: {} } : {}
        expectError(await t.admin(m, `/api/v1/roles/${randomUUID()}`, o), 404, 'NOT_FOUND', 'role_id')
        expectError(await t.admin(m, '/api/v1/roles/abc', o), 422, 'VALIDATION_FAILED', 'role_id')
      }
    })
  })

  describe('validation and conflicts', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['an unknown field', { name: 'x', is_admin: true }, 'UNKNOWN_FIELD', 'is_admin'],
      ['no name', { permissions: [] }, 'FIELD_REQUIRED', 'name'],
      ['a blank name', { name: ' ' }, 'VALIDATION_FAILED', 'name'],
      ['a name of 65 characters', { name: 'r'.repeat(65) }, 'VALIDATION_FAILED', 'name'],
      ['a description of 501 characters', { name: 'x', description: 'd'.repeat(501) }, 'VALIDATION_FAILED', 'description'],
      ['duplicate permissions', { name: 'x', permissions: ['users.read', 'users.read'] }, 'VALIDATION_FAILED', 'permissions'],
      ['a permission that is not a string', { name: 'x', permissions: [1] }, 'VALIDATION_FAILED', 'permissions[0]'],
      ['an undeclared permission', { name: 'x', permissions: ['users.read', 'users.destroy'] }, 'PERMISSION_UNKNOWN', 'permissions[1]'],
      ['too many permissions', { name: 'x', permissions: Array.from({ length: 501 }, (_, i) => `p.${i}`) }, 'VALIDATION_FAILED', 'permissions'],
    ]
    for (const [name, body, code, field] of cases) {
      it(`refuses ${name} (422 ${code} at ${field})`, async () => {
        expectError(await t.admin('POST', '/api/v1/roles', { body }), 422, code, field)
      })
    }

    it('refuses undeclared permissions on update too', async () => {
      const role = await createRole(t, [])
      const r = await t.admin('PUT', `/api/v1/roles/${role}`, { body: { permissions: ['nope.never'] } })
      expectError(r, 422, 'PERMISSION_UNKNOWN', 'permissions[0]')
      expect(r.body.detail).to.include('nope.never')
    })

    it('answers 409 ROLE_NAME_TAKEN, case-insensitively, on create and rename', async () => {
      const name = uniq('Operators')
      await createRole(t, [], name)
      expectError(await t.admin('POST', '/api/v1/roles', { body: { name: name.toLowerCase() } }), 409, 'ROLE_NAME_TAKEN', 'name')
      const other = await createRole(t, [])
      expectError(await t.admin('PUT', `/api/v1/roles/${other}`, { body: { name: name.toUpperCase() } }), 409, 'ROLE_NAME_TAKEN', 'name')
      const ru = await t.admin('POST', '/api/v1/roles', { body: { name }, headers: { 'accept-language': 'ru' } })
      expect(ru.body.detail).to.equal(`Роль «${name}» уже существует.`)
    })
  })

  describe('list', () => {
    const tag = uniq('rlist')
    before(async () => {
      await t.admin('POST', '/api/v1/roles', { body: { name: `${tag}-a`, description: 'Read only helpdesk', permissions: ['users.read'] } })
      await t.admin('POST', '/api/v1/roles', { body: { name: `${tag}-b`, permissions: ['users.read', 'users.write'] } })
      await t.admin('POST', '/api/v1/roles', { body: { name: `${tag}-c`, permissions: ['audit.read'] } })
    })
    const list = (q: string) => t.admin('GET', `/api/v1/roles?search=${tag}&${q}`)
    const names = (r: { body: { items: { name: string }[] } }) => r.body.items.map((i) => i.name.slice(tag.length + 1))

    it('searches name and description; total counts every role', async () => {
      const all = Number((await t.app.db.knex('roles').count({ n: '*' }).first())!.n)
      expect((await list('')).body).to.include({ total: all, total_by_filter: 3 })
      const byDescription = await t.admin('GET', '/api/v1/roles?search=HELPDESK')
      expect(byDescription.body.items.map((i: { name: string }) => i.name)).to.deep.equal([`${tag}-a`])
    })

    it('filters by permission, sorts and pages', async () => {
      expect(names(await list('permission=users.read'))).to.deep.equal(['a', 'b'])
      expect(names(await list('permission=users.write'))).to.deep.equal(['b'])
      expect(names(await list('permission=nothing.here'))).to.deep.equal([])
      expect(names(await list('sort_by=name&sort_order=desc'))).to.deep.equal(['c', 'b', 'a'])
      expect(names(await list('sort_by=created_at'))).to.deep.equal(['a', 'b', 'c'])
      expect((await list('sort_by=updated_at&sort_order=desc')).status).to.equal(200)
      const p = await list('per_page=1&page=3')
      expect(p.body).to.include({ pages: 3, page: 3, per_page: 1 })
      expect(names(p)).to.deep.equal(['c'])
      expectError(await list('sort_by=permissions'), 422, 'VALIDATION_FAILED', 'sort_by')
      expectError(await list('per_page=500'), 422, 'VALIDATION_FAILED', 'per_page')
    })
  })

  describe('permission changes take effect on the next request', () => {
    it('follows a role given, edited, taken and deleted', async () => {
      const role = await createRole(t, ['users.read'])
      const u = await actorWith(t, [])
      const probe = async () => (await t.req('GET', '/api/v1/users', { token: u.token })).status
      expect(await probe()).to.equal(403)
      await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { role_ids: [role] } })
      expect(await probe()).to.equal(200)
      await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { role_ids: [] } })
      expect(await probe()).to.equal(403)
      await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { role_ids: [role] } })
      expect(await probe()).to.equal(200)
      await t.admin('PUT', `/api/v1/roles/${role}`, { body: { permissions: ['roles.read'] } })
      expect(await probe()).to.equal(403)
      expect((await t.req('GET', '/api/v1/roles', { token: u.token })).status).to.equal(200)
      await t.admin('PUT', `/api/v1/roles/${role}`, { body: { permissions: ['users.read', 'roles.read'] } })
      expect(await probe()).to.equal(200)
      await t.admin('DELETE', `/api/v1/roles/${role}`)
      expect(await probe()).to.equal(403)
      const me = await t.req('GET', '/api/v1/auth/me', { token: u.token })
      expect(me.body.permissions).to.deep.equal([])
    })
  })

  describe('privilege escalation guards', () => {
    it('needs roles.write to change and roles.read to read', async () => {
      const reader = await actorWith(t, ['roles.read'])
      expect((await t.req('GET', '/api/v1/roles', { token: reader.token })).status).to.equal(200)
      expectError(await t.req('POST', '/api/v1/roles', { token: reader.token, body: { name: uniq('x') } }), 403, 'PERMISSION_DENIED')
      expectError(await t.req('GET', `/api/v1/roles/${randomUUID()}`, { token: (await actorWith(t, ['users.read'])).token }), 403, 'PERMISSION_DENIED')
    })

    it('a non-administrator may only grant permissions they hold, and only manage roles granting nothing more', async () => {
      const w = await actorWith(t, ['roles.write', 'roles.read', 'users.read'])
      const as = (m: string, p: string, body?: unknown) => t.req(m, p, { token: w.token, body })
      const e = await as('POST', '/api/v1/roles', { name: uniq('x'), permissions: ['users.read', 'settings.write'] })
      expectError(e, 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'permissions[1]')
      expect(e.body.detail).to.include('settings.write')
      // An undeclared name is a 422 before it is a 403.
      expectError(await as('POST', '/api/v1/roles', { name: uniq('x'), permissions: ['made.up'] }), 422, 'PERMISSION_UNKNOWN', 'permissions[0]')
      const mine = await as('POST', '/api/v1/roles', { name: uniq('x'), permissions: ['users.read'] })
      expect(mine.status).to.equal(201)
      expectError(await as('PUT', `/api/v1/roles/${mine.body.id}`, { permissions: ['users.read', 'users.write'] }), 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'permissions[1]')
      const theirs = await createRole(t, ['audit.read'])
      expectError(await as('PUT', `/api/v1/roles/${theirs}`, { name: uniq('renamed') }), 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'role_id')
      expectError(await as('PUT', `/api/v1/roles/${theirs}`, { permissions: [] }), 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'role_id')
      expectError(await as('DELETE', `/api/v1/roles/${theirs}`), 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'role_id')
      expect((await as('PUT', `/api/v1/roles/${mine.body.id}`, { permissions: ['roles.read'] })).status).to.equal(200)
      expect((await as('DELETE', `/api/v1/roles/${mine.body.id}`)).status).to.equal(204)
    })

    it('a non-administrator cannot widen their own role', async () => {
      const id = randomUUID()
      const token = await t.token({ sub: id, permissions: ['roles.write', 'roles.read'] })
      const own = (await t.admin('GET', `/api/v1/users/${id}`)).body.role_ids[0] as string
      expectError(await t.req('PUT', `/api/v1/roles/${own}`, { token, body: { permissions: ['roles.write', 'roles.read', 'users.write'] } }), 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'permissions[2]')
      expect((await t.req('GET', '/api/v1/users', { token })).status).to.equal(403)
    })
  })

  describe('audit', () => {
    it('records create, update and delete with before and after', async () => {
      const role = (await t.admin('POST', '/api/v1/roles', { body: { name: uniq('aud'), permissions: ['users.read'] } })).body
      await t.admin('PUT', `/api/v1/roles/${role.id}`, { body: { permissions: ['users.read', 'roles.read'] } })
      await t.admin('DELETE', `/api/v1/roles/${role.id}`)
      const rows = await auditRows(t, role.id)
      expect(rows.map((r) => r.action)).to.deep.equal(['role.create', 'role.update', 'role.delete'])
      expect((rows[0].after as { permissions: string[] }).permissions).to.deep.equal(['users.read'])
      expect((rows[1].before as { permissions: string[] }).permissions).to.deep.equal(['users.read'])
      expect((rows[1].after as { permissions: string[] }).permissions).to.deep.equal(['roles.read', 'users.read'])
      expect(rows[2].after).to.equal(null)
    })
  })
})
