/** /api/v1/user-groups: CRUD, members, list behaviour, guards, and permissions granted through groups. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'
import { actorWith, auditRows, createGroup, createRole, createUser, expectError, uniq } from './helpers.js'

const NIL = '00000000-0000-4000-8000-000000000000'
const FIELDS = ['id', 'name', 'description', 'role_ids', 'directory_group_dn', 'member_count', 'created_at', 'updated_at']

describe('user groups API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  describe('create, read, update, delete', () => {
    it('creates a group, blank description as null, with its roles', async () => {
      const role = await createRole(t, ['users.read'])
      const name = uniq('Network Ops')
      const r = await t.admin('POST', '/api/v1/user-groups', { body: { name, description: '   ', role_ids: [role] } })
      expect(r.status).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, description: null, member_count: 0 })
      expect(r.body.role_ids).to.deep.equal([role])
      expect((await t.admin('GET', `/api/v1/user-groups/${r.body.id}`)).body).to.deep.equal(r.body)
    })

    it('updates only the fields given; role_ids replaces the list', async () => {
      const [r1, r2] = [await createRole(t, ['users.read']), await createRole(t, ['roles.read'])]
      const g = (await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('g'), description: 'first', role_ids: [r1] } })).body
      const a = await t.admin('PUT', `/api/v1/user-groups/${g.id}`, { body: { description: 'second' } })
      expect(a.status).to.equal(200)
      expect(a.body).to.include({ name: g.name, description: 'second' })
      expect(a.body.role_ids).to.deep.equal([r1])
      const b = await t.admin('PUT', `/api/v1/user-groups/${g.id}`, { body: { role_ids: [r2], description: '' } })
      expect(b.body.role_ids).to.deep.equal([r2])
      expect(b.body.description).to.equal(null)
      const c = await t.admin('PUT', `/api/v1/user-groups/${g.id}`, { body: { name: `${g.name}-renamed`, role_ids: [] } })
      expect(c.body).to.include({ name: `${g.name}-renamed` })
      expect(c.body.role_ids).to.deep.equal([])
    })

    it('deletes a group and its memberships, keeping the members', async () => {
      const g = await createGroup(t)
      const u = await createUser(t, { group_ids: [g] })
      expect((await t.admin('GET', `/api/v1/user-groups/${g}`)).body.member_count).to.equal(1)
      const r = await t.admin('DELETE', `/api/v1/user-groups/${g}`)
      expect(r.status).to.equal(204)
      expectError(await t.admin('GET', `/api/v1/user-groups/${g}`), 404, 'NOT_FOUND', 'group_id')
      const after = await t.admin('GET', `/api/v1/users/${u.id}`)
      expect(after.status).to.equal(200)
      expect(after.body.group_ids).to.deep.equal([])
    })

    it('answers 404 naming group_id for an unknown id, 422 for a malformed one', async () => {
      for (const m of ['GET', 'PUT', 'DELETE']) {
        const o = m === 'PUT' ? { body: {} } : {}
        expectError(await t.admin(m, `/api/v1/user-groups/${randomUUID()}`, o), 404, 'NOT_FOUND', 'group_id')
        expectError(await t.admin(m, '/api/v1/user-groups/123', o), 422, 'VALIDATION_FAILED', 'group_id')
      }
      expectError(await t.admin('GET', `/api/v1/user-groups/${randomUUID()}/members`), 404, 'NOT_FOUND', 'group_id')
    })
  })

  describe('validation and conflicts', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['an unknown field', { name: 'x', member_ids: [] }, 'UNKNOWN_FIELD', 'member_ids'],
      ['no name', { description: 'x' }, 'FIELD_REQUIRED', 'name'],
      ['a blank name', { name: '  ' }, 'VALIDATION_FAILED', 'name'],
      ['a name of 65 characters', { name: 'n'.repeat(65) }, 'VALIDATION_FAILED', 'name'],
      ['a description of 501 characters', { name: 'x', description: 'd'.repeat(501) }, 'VALIDATION_FAILED', 'description'],
      ['a malformed role id', { name: 'x', role_ids: ['x'] }, 'VALIDATION_FAILED', 'role_ids[0]'],
      ['duplicate role ids', { name: 'x', role_ids: [NIL, NIL] }, 'VALIDATION_FAILED', 'role_ids'],
      ['an unknown role id', { name: 'x', role_ids: [NIL] }, 'REFERENCE_NOT_FOUND', 'role_ids[0]'],
    ]
    for (const [name, body, code, field] of cases) {
      it(`refuses ${name} (422 ${code} at ${field})`, async () => {
        expectError(await t.admin('POST', '/api/v1/user-groups', { body }), 422, code, field)
      })
    }

    it('refuses unknown role ids on update, naming the item', async () => {
      const g = await createGroup(t)
      const role = await createRole(t, [])
      expectError(await t.admin('PUT', `/api/v1/user-groups/${g}`, { body: { role_ids: [role, randomUUID()] } }), 422, 'REFERENCE_NOT_FOUND', 'role_ids[1]')
      expectError(await t.admin('PUT', `/api/v1/user-groups/${g}`, { body: { id: g } }), 422, 'UNKNOWN_FIELD', 'id')
    })

    it('answers 409 GROUP_NAME_TAKEN, case-insensitively, on create and rename', async () => {
      const name = uniq('Admins')
      await createGroup(t, [], name)
      expectError(await t.admin('POST', '/api/v1/user-groups', { body: { name: name.toUpperCase() } }), 409, 'GROUP_NAME_TAKEN', 'name')
      const other = await createGroup(t)
      expectError(await t.admin('PUT', `/api/v1/user-groups/${other}`, { body: { name: name.toLowerCase() } }), 409, 'GROUP_NAME_TAKEN', 'name')
    })
  })

  describe('directory group mapping (directory_group_dn)', () => {
    it('stores a DN, changes and clears it, and gives the mapped directory group no roles', async () => {
      const dn = 'cn=NetOps,ou=groups,dc=example,dc=org'
      const c = await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('mapped'), directory_group_dn: dn } })
      expect(c.status, JSON.stringify(c.body)).to.equal(201)
      expect(c.body).to.include({ directory_group_dn: dn })
      expect((await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('plain') } })).body.directory_group_dn).to.equal(null)
      const u = await t.admin('PUT', `/api/v1/user-groups/${c.body.id}`, { body: { directory_group_dn: 'CN=Other Group,OU=Groups,DC=corp,DC=example' } })
      expect(u.body.directory_group_dn).to.equal('CN=Other Group,OU=Groups,DC=corp,DC=example')
      expect((await t.admin('PUT', `/api/v1/user-groups/${c.body.id}`, { body: { description: 'kept' } })).body.directory_group_dn).to.equal('CN=Other Group,OU=Groups,DC=corp,DC=example')
      expect((await t.admin('PUT', `/api/v1/user-groups/${c.body.id}`, { body: { directory_group_dn: null } })).body.directory_group_dn).to.equal(null)
      const rendered = (await t.app.identity.userGroups(t.app.db.knex)).find((g) => g.id === c.body.id)!
      expect(rendered).to.not.have.property('directory_group_dn')
    })

    it('refuses what is not a DN the daemons can match, changing nothing', async () => {
      const g = (await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('dn'), directory_group_dn: 'cn=a,dc=b' } })).body
      for (const bad of ['netops', '=x', 'cn=a"b', 'cn=a\\,b', 'cn=%{User-Name}', 'cn=${HOME}', 'cn=a\nb', 'cn=' + 'x'.repeat(1030)]) {
        expectError(await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('bad'), directory_group_dn: bad } }), 422, 'VALIDATION_FAILED', 'directory_group_dn')
        expectError(await t.admin('PUT', `/api/v1/user-groups/${g.id}`, { body: { directory_group_dn: bad } }), 422, 'VALIDATION_FAILED', 'directory_group_dn')
      }
      expect((await t.admin('GET', `/api/v1/user-groups/${g.id}`)).body.directory_group_dn).to.equal('cn=a,dc=b')
    })
  })

  describe('list', () => {
    const tag = uniq('glist')
    const ids: Record<string, string> = {}
    before(async () => {
      ids.role = await createRole(t, ['users.read'])
      for (const [n, description, roles] of [['a', 'Core routers', [ids.role]], ['b', null, []], ['c', 'Edge switches', [ids.role]]] as const) {
        ids[n] = (await t.admin('POST', '/api/v1/user-groups', { body: { name: `${tag}-${n}`, description, role_ids: roles } })).body.id
      }
    })
    const list = (q: string) => t.admin('GET', `/api/v1/user-groups?search=${tag}&${q}`)
    const names = (r: { body: { items: { name: string }[] } }) => r.body.items.map((i) => i.name.slice(tag.length + 1))

    it('searches name and description, counting total apart from total_by_filter', async () => {
      const all = Number((await t.app.db.knex('user_groups').count({ n: '*' }).first())!.n)
      const r = await list('')
      expect(r.body).to.include({ total: all, total_by_filter: 3, pages: 1, per_page: 20 })
      const byDescription = await t.admin('GET', '/api/v1/user-groups?search=EDGE%20SWITCH')
      expect(byDescription.body.items.map((i: { id: string }) => i.id)).to.deep.equal([ids.c])
    })

    it('filters by role_id, sorts, pages, and refuses unknown parameters', async () => {
      expect(names(await list(`role_id=${ids.role}`))).to.deep.equal(['a', 'c'])
      expect(names(await list('sort_by=name&sort_order=desc'))).to.deep.equal(['c', 'b', 'a'])
      expect(names(await list('sort_by=created_at'))).to.deep.equal(['a', 'b', 'c'])
      expect((await list('sort_by=updated_at')).status).to.equal(200)
      const p = await list('per_page=2&page=2')
      expect(p.body).to.include({ total_by_filter: 3, pages: 2, page: 2 })
      expect(names(p)).to.deep.equal(['c'])
      expectError(await list('sort_by=member_count'), 422, 'VALIDATION_FAILED', 'sort_by')
      expectError(await list('per_page=101'), 422, 'VALIDATION_FAILED', 'per_page')
      expectError(await list('role_id=x'), 422, 'VALIDATION_FAILED', 'role_id')
    })
  })

  describe('members', () => {
    it('lists the members, paginated, searchable, without administrative fields', async () => {
      const g = await createGroup(t)
      const tag = uniq('mem')
      for (const n of ['a', 'b', 'c']) await createUser(t, { username: `${tag}-${n}`, display_name: n === 'b' ? 'Bravo' : null, group_ids: [g], enabled: n !== 'c' })
      await createUser(t, { username: `${tag}-outsider` })
      const r = await t.admin('GET', `/api/v1/user-groups/${g}/members`)
      expect(r.status).to.equal(200)
      expect(r.body).to.include({ total: 3, total_by_filter: 3 })
      expect(r.body.items.map((i: { username: string }) => i.username)).to.deep.equal([`${tag}-a`, `${tag}-b`, `${tag}-c`])
      expect(Object.keys(r.body.items[0]).sort()).to.deep.equal(['display_name', 'enabled', 'id', 'source', 'username'])
      expect((await t.admin('GET', `/api/v1/user-groups/${g}/members?search=bravo`)).body.items).to.have.length(1)
      expect((await t.admin('GET', `/api/v1/user-groups/${g}/members?enabled=false`)).body).to.include({ total: 3, total_by_filter: 1 })
      const page = await t.admin('GET', `/api/v1/user-groups/${g}/members?per_page=1&page=2&sort_order=desc`)
      expect(page.body.items.map((i: { username: string }) => i.username)).to.deep.equal([`${tag}-b`])
      expect(page.body.pages).to.equal(3)
      expect((await t.admin('GET', `/api/v1/user-groups/${g}`)).body.member_count).to.equal(3)
    })

    it('is gated by groups.read', async () => {
      const g = await createGroup(t)
      const reader = await actorWith(t, ['groups.read'])
      expect((await t.req('GET', `/api/v1/user-groups/${g}/members`, { token: reader.token })).status).to.equal(200)
      const other = await actorWith(t, ['users.read'])
      expectError(await t.req('GET', `/api/v1/user-groups/${g}/members`, { token: other.token }), 403, 'PERMISSION_DENIED')
    })
  })

  describe('permissions through groups', () => {
    it('a member gets the group roles from the next request, and loses them when the group changes or goes', async () => {
      const role = await createRole(t, ['roles.read'])
      const g = await createGroup(t)
      const member = await actorWith(t, [])
      const probe = () => t.req('GET', '/api/v1/roles', { token: member.token })
      expect((await probe()).status).to.equal(403)
      await t.admin('PUT', `/api/v1/users/${member.id}`, { body: { group_ids: [g] } })
      expect((await probe()).status).to.equal(403)
      await t.admin('PUT', `/api/v1/user-groups/${g}`, { body: { role_ids: [role] } })
      expect((await probe()).status).to.equal(200)
      await t.admin('PUT', `/api/v1/user-groups/${g}`, { body: { role_ids: [] } })
      expect((await probe()).status).to.equal(403)
      await t.admin('PUT', `/api/v1/user-groups/${g}`, { body: { role_ids: [role] } })
      expect((await probe()).status).to.equal(200)
      await t.admin('DELETE', `/api/v1/user-groups/${g}`)
      expect((await probe()).status).to.equal(403)
    })
  })

  describe('privilege escalation guards', () => {
    it('needs groups.write to change and groups.read to read', async () => {
      const reader = await actorWith(t, ['groups.read'])
      expect((await t.req('GET', '/api/v1/user-groups', { token: reader.token })).status).to.equal(200)
      expectError(await t.req('POST', '/api/v1/user-groups', { token: reader.token, body: { name: uniq('x') } }), 403, 'PERMISSION_DENIED')
    })

    it('a non-administrator may only give roles whose permissions they hold, and only manage groups that grant nothing more', async () => {
      const w = await actorWith(t, ['groups.write', 'users.read'])
      const as = (m: string, p: string, body?: unknown) => t.req(m, p, { token: w.token, body })
      const weak = await createRole(t, ['users.read'])
      const strong = await createRole(t, ['settings.write'])
      expectError(await as('POST', '/api/v1/user-groups', { name: uniq('x'), role_ids: [weak, strong] }), 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'role_ids[1]')
      const mine = await as('POST', '/api/v1/user-groups', { name: uniq('x'), role_ids: [weak] })
      expect(mine.status).to.equal(201)
      expectError(await as('PUT', `/api/v1/user-groups/${mine.body.id}`, { role_ids: [strong] }), 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'role_ids[0]')
      const theirs = await createGroup(t, [strong])
      const e = await as('PUT', `/api/v1/user-groups/${theirs}`, { description: 'mine now' })
      expectError(e, 403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'group_id')
      expect(e.body.detail).to.include('settings.write')
      expectError(await as('DELETE', `/api/v1/user-groups/${theirs}`), 403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'group_id')
      expect((await as('PUT', `/api/v1/user-groups/${mine.body.id}`, { role_ids: [] })).status).to.equal(200)
      expect((await as('DELETE', `/api/v1/user-groups/${mine.body.id}`)).status).to.equal(204)
    })
  })

  describe('audit', () => {
    it('records create, update and delete with before and after', async () => {
      const role = await createRole(t, [])
      const g = (await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('aud') } })).body
      await t.admin('PUT', `/api/v1/user-groups/${g.id}`, { body: { role_ids: [role] } })
      await t.admin('DELETE', `/api/v1/user-groups/${g.id}`)
      const rows = await auditRows(t, g.id)
      expect(rows.map((r) => r.action)).to.deep.equal(['user_group.create', 'user_group.update', 'user_group.delete'])
      expect((rows[1].before as { role_ids: string[] }).role_ids).to.deep.equal([])
      expect((rows[1].after as { role_ids: string[] }).role_ids).to.deep.equal([role])
      expect((rows[2].before as { name: string }).name).to.equal(g.name)
      expect(rows[2].after).to.equal(null)
    })
  })
})

