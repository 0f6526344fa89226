/** /api/v1/users: CRUD, strict bodies, list behaviour, passwords and verifiers, escalation guards, last-admin rules. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { sha512CryptMatches } from '../../kernel/identity/sha512-crypt.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { actorWith, auditRows, createGroup, createRole, createUser, expectError, STRONG, STRONG_2, uniq } from './helpers.js'

const FIELDS = [
  'id', 'username', 'display_name', 'email', 'enabled', 'source', 'is_admin', 'network_login', 'network_verifiers_set', 'chap_enabled', 'must_change_password',
  'password_set', 'password_changed_at', 'expires_at', 'lockout_cleared_at', 'group_ids', 'role_ids', 'created_at', 'updated_at',
]
const NIL = '00000000-0000-4000-8000-000000000000'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('users API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  describe('create and read', () => {
    it('creates a user with defaults, never answering the password or its hash', async () => {
      const username = uniq('alice')
      const r = await t.admin('POST', '/api/v1/users', { body: { username, password: STRONG, display_name: '  ', email: 'alice@example.org' } })
      expect(r.status).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ username, display_name: null, email: 'alice@example.org', enabled: true, source: 'local', is_admin: false })
      expect(r.body).to.include({ network_login: false, network_verifiers_set: false, must_change_password: false, password_set: true })
      expect(r.body.password_changed_at).to.be.a('string')
      expect(r.text).to.not.include(STRONG).and.not.include('argon2')
      const got = await t.admin('GET', `/api/v1/users/${r.body.id}`)
      expect(got.status).to.equal(200)
      expect(got.body).to.deep.equal(r.body)
      expect(got.text).to.not.include('argon2')
      const row = (await t.app.db.knex('users').where({ id: r.body.id }).first())!
      expect(row.password_hash).to.match(/^\$argon2id\$/)
    })

    it('creates a local user without a password, who then cannot sign in', async () => {
      const u = await createUser(t)
      expect(u.password_set).to.equal(false)
      expect(u.password_changed_at).to.equal(null)
      const login = await t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: STRONG } })
      expect(login.status).to.equal(401)
    })

    it('lets a created user sign in with the password set', async () => {
      const u = await createUser(t, { password: STRONG })
      const login = await t.req('POST', '/api/v1/auth/login', { body: { username: u.username.toUpperCase(), password: STRONG } })
      expect(login.status).to.equal(200)
      expect(login.body.access_token).to.be.a('string')
    })

    it('answers 404 naming user_id for an unknown id, 422 for a malformed one', async () => {
      for (const m of ['GET', 'PUT', 'DELETE']) {
        const r = await t.admin(m, `/api/v1/users/${randomUUID()}`, m === 'PUT' ? { body: {} } : {})
        expectError(r, 404, 'NOT_FOUND', 'user_id')
        expectError(await t.admin(m, '/api/v1/users/not-a-uuid', m === 'PUT' ? { body: {} } : {}), 422, 'VALIDATION_FAILED', 'user_id')
      }
    })

    it('links groups and roles, and refuses unknown ids naming the item', async () => {
      const g = await createGroup(t)
      const role = await createRole(t, ['users.read'])
      const u = await createUser(t, { group_ids: [g], role_ids: [role] })
      expect(u.group_ids).to.deep.equal([g])
      expect(u.role_ids).to.deep.equal([role])
      expectError(await t.admin('POST', '/api/v1/users', { body: { username: uniq('x'), group_ids: [g, randomUUID()] } }), 422, 'REFERENCE_NOT_FOUND', 'group_ids[1]')
      expectError(await t.admin('POST', '/api/v1/users', { body: { username: uniq('x'), role_ids: [randomUUID()] } }), 422, 'REFERENCE_NOT_FOUND', 'role_ids[0]')
    })
  })

  describe('strict bodies', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['an unknown field', { username: 'bob', colour: 'red' }, 'UNKNOWN_FIELD', 'colour'],
      ['no username', { display_name: 'Bob' }, 'FIELD_REQUIRED', 'username'],
      ['an empty username', { username: '' }, 'VALIDATION_FAILED', 'username'],
      ['a username with a space', { username: 'bob smith' }, 'VALIDATION_FAILED', 'username'],
      ['a username with a quote', { username: 'bob"x' }, 'VALIDATION_FAILED', 'username'],
      ['a username of 65 characters', { username: 'b'.repeat(65) }, 'VALIDATION_FAILED', 'username'],
      ['a bad email', { username: 'bob', email: 'not-an-email' }, 'VALIDATION_FAILED', 'email'],
      ['an overlong email', { username: 'bob', email: `${'a'.repeat(250)}@x.io` }, 'VALIDATION_FAILED', 'email'],
      ['an overlong display name', { username: 'bob', display_name: 'x'.repeat(129) }, 'VALIDATION_FAILED', 'display_name'],
      ['an unknown source', { username: 'bob', source: 'ldap' }, 'VALIDATION_FAILED', 'source'],
      ['a string boolean', { username: 'bob', enabled: 'true' }, 'VALIDATION_FAILED', 'enabled'],
      ['a malformed group id', { username: 'bob', group_ids: ['nope'] }, 'VALIDATION_FAILED', 'group_ids[0]'],
      ['duplicate role ids', { username: 'bob', role_ids: [NIL, NIL] }, 'VALIDATION_FAILED', 'role_ids'],
      ['101 group ids', { username: 'bob', group_ids: Array.from({ length: 101 }, () => randomUUID()) }, 'VALIDATION_FAILED', 'group_ids'],
      ['a password that breaks the policy', { username: 'bob', password: 'short' }, 'PASSWORD_POLICY', 'password'],
      ['a password for a directory user', { username: 'bob', source: 'directory', password: STRONG }, 'PASSWORD_NOT_ALLOWED', 'password'],
    ]
    for (const [name, body, code, field] of cases) {
      it(`refuses ${name} (422 ${code} at ${field})`, async () => {
        expectError(await t.admin('POST', '/api/v1/users', { body }), 422, code, field)
      })
    }

    it('applies the same rules on update, and PUT is strict too', async () => {
      const u = await createUser(t)
      expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { password_hash: 'x' } }), 422, 'UNKNOWN_FIELD', 'password_hash')
      expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { username: 'a b' } }), 422, 'VALIDATION_FAILED', 'username')
      expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { source: 'directory', password: STRONG } }), 422, 'PASSWORD_NOT_ALLOWED', 'password')
      expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { password: u.username + '-Long-Enough-1' } }), 422, 'PASSWORD_POLICY', 'password')
    })
  })

  describe('username uniqueness', () => {
    it('answers 409 USERNAME_TAKEN, case-insensitively, on create and rename', async () => {
      const a = await createUser(t, { username: uniq('Carol') })
      expectError(await t.admin('POST', '/api/v1/users', { body: { username: a.username.toLowerCase() } }), 409, 'USERNAME_TAKEN', 'username')
      const b = await createUser(t)
      expectError(await t.admin('PUT', `/api/v1/users/${b.id}`, { body: { username: a.username.toUpperCase() } }), 409, 'USERNAME_TAKEN', 'username')
      const self = await t.admin('PUT', `/api/v1/users/${a.id}`, { body: { username: a.username.toUpperCase() } })
      expect(self.status).to.equal(200)
      expect(self.body.username).to.equal(a.username.toUpperCase())
    })

    it('localizes the conflict', async () => {
      const a = await createUser(t)
      const r = await t.admin('POST', '/api/v1/users', { body: { username: a.username }, headers: { 'accept-language': 'ru' } })
      expect(r.body.detail).to.equal(`Имя пользователя «${a.username}» уже занято.`)
    })

    it('lets only one of several racing creations of a name win', async () => {
      const username = uniq('race')
      const answers = await Promise.all([0, 1, 2, 3].map(() => t.admin('POST', '/api/v1/users', { body: { username } })))
      expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 409, 409, 409])
    })
  })

  describe('list', () => {
    const tag = uniq('lst')
    const ids: Record<string, string> = {}
    before(async () => {
      const g = await createGroup(t)
      const viaGroup = await createRole(t, ['users.read'])
      const direct = await createRole(t, ['roles.read'])
      await t.admin('PUT', `/api/v1/user-groups/${g}`, { body: { role_ids: [viaGroup] } })
      Object.assign(ids, { g, viaGroup, direct })
      const mk = async (n: string, body: Record<string, unknown>) => (ids[n] = (await createUser(t, { username: `${tag}-${n}`, ...body })).id)
      await mk('a', { display_name: 'Zed', email: 'a@corp.example', group_ids: [g] })
      await mk('b', { display_name: 'Yan', enabled: false, role_ids: [direct] })
      await mk('c', { display_name: 'Xia', source: 'directory', email: 'c@corp.example' })
      await mk('d', { display_name: 'Wu', is_admin: true, group_ids: [g], role_ids: [direct] })
      await mk('e', { display_name: 'Vic' })
    })
    const list = (q: string) => t.admin('GET', `/api/v1/users?search=${tag}&${q}`)
    const names = (r: { body: { items: { username: string }[] } }) => r.body.items.map((i) => i.username.slice(tag.length + 1))

    it('counts total (all users) apart from total_by_filter', async () => {
      const all = Number((await t.app.db.knex('users').count({ n: '*' }).first())!.n)
      const r = await list('')
      expect(r.status).to.equal(200)
      expect(r.body).to.include({ total: all, total_by_filter: 5, page: 1, per_page: 20, pages: 1 })
      expect(names(r)).to.deep.equal(['a', 'b', 'c', 'd', 'e'])
    })

    it('filters by enabled, source, is_admin, group_id and role_id (direct or through a group)', async () => {
      expect(names(await list('enabled=false'))).to.deep.equal(['b'])
      expect(names(await list('enabled=true'))).to.deep.equal(['a', 'c', 'd', 'e'])
      expect(names(await list('source=directory'))).to.deep.equal(['c'])
      expect(names(await list('is_admin=true'))).to.deep.equal(['d'])
      expect(names(await list(`group_id=${ids.g}`))).to.deep.equal(['a', 'd'])
      expect(names(await list(`role_id=${ids.direct}`))).to.deep.equal(['b', 'd'])
      expect(names(await list(`role_id=${ids.viaGroup}`))).to.deep.equal(['a', 'd'])
      expect(names(await list(`is_admin=false&group_id=${ids.g}`))).to.deep.equal(['a'])
      expect((await list('is_admin=false&enabled=false')).body.total_by_filter).to.equal(1)
    })

    it('searches username, display name and email, case-insensitively', async () => {
      const r = await t.admin('GET', '/api/v1/users?search=CORP.EXAMPLE')
      expect(r.body.items.map((i: { id: string }) => i.id).sort()).to.deep.equal([ids.a, ids.c].sort())
      const byName = await t.admin('GET', '/api/v1/users?search=xia')
      expect(byName.body.items.map((i: { id: string }) => i.id)).to.deep.equal([ids.c])
      const wild = await t.admin('GET', '/api/v1/users?search=%25')
      expect(wild.body.total_by_filter).to.equal(0)
    })

    it('sorts by the allowed names in both orders, and refuses others', async () => {
      expect(names(await list('sort_by=display_name'))).to.deep.equal(['e', 'd', 'c', 'b', 'a'])
      expect(names(await list('sort_by=display_name&sort_order=desc'))).to.deep.equal(['a', 'b', 'c', 'd', 'e'])
      expect(names(await list('sort_by=username&sort_order=desc'))).to.deep.equal(['e', 'd', 'c', 'b', 'a'])
      expect(names(await list('sort_by=created_at'))).to.deep.equal(['a', 'b', 'c', 'd', 'e'])
      expect((await list('sort_by=email')).status).to.equal(200)
      expect((await list('sort_by=updated_at')).status).to.equal(200)
      expectError(await list('sort_by=password_hash'), 422, 'VALIDATION_FAILED', 'sort_by')
    })

    it('pages, with per_page bounded to 1..100', async () => {
      const p2 = await list('per_page=2&page=2')
      expect(p2.body).to.include({ total_by_filter: 5, page: 2, per_page: 2, pages: 3 })
      expect(names(p2)).to.deep.equal(['c', 'd'])
      expect(names(await list('per_page=2&page=3'))).to.deep.equal(['e'])
      expect((await list('per_page=2&page=4')).body.items).to.deep.equal([])
      expectError(await list('per_page=101'), 422, 'VALIDATION_FAILED', 'per_page')
      expectError(await list('per_page=0'), 422, 'VALIDATION_FAILED', 'per_page')
      expectError(await list('page=0'), 422, 'VALIDATION_FAILED', 'page')
      expectError(await list('enabled=maybe'), 422, 'VALIDATION_FAILED', 'enabled')
      expectError(await list('group_id=nope'), 422, 'VALIDATION_FAILED', 'group_id')
      expectError(await list('colour=red'), 422, 'UNKNOWN_FIELD', 'colour')
    })

    it('never returns hashes or verifiers in a list', async () => {
      const r = await t.admin('GET', '/api/v1/users?per_page=100')
      expect(r.text).to.not.include('argon2').and.not.include('password_hash').and.not.include('"network_verifiers"')
    })
  })

  describe('update', () => {
    it('changes only the fields given, and replaces group and role lists', async () => {
      const [g1, g2] = [await createGroup(t), await createGroup(t)]
      const role = await createRole(t, ['users.read'])
      const u = await createUser(t, { display_name: 'Dee', email: 'dee@example.org', group_ids: [g1], role_ids: [role] })
      const r = await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { display_name: 'Dee Dee', group_ids: [g2] } })
      expect(r.status).to.equal(200)
      expect(r.body).to.include({ display_name: 'Dee Dee', email: 'dee@example.org', username: u.username })
      expect(r.body.group_ids).to.deep.equal([g2])
      expect(r.body.role_ids).to.deep.equal([role])
      const cleared = await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { email: '', role_ids: [], group_ids: [] } })
      expect(cleared.body).to.include({ email: null })
      expect(cleared.body.role_ids).to.deep.equal([])
      expect(cleared.body.group_ids).to.deep.equal([])
      expect(new Date(cleared.body.updated_at).getTime()).to.be.greaterThan(new Date(u.updated_at).getTime())
    })

    it('sets a password, voiding the sessions issued before', async () => {
      const u = await createUser(t, { password: STRONG })
      const login = await t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: STRONG } })
      const old = login.body.access_token as string
      expect((await t.req('GET', '/api/v1/auth/me', { token: old })).status).to.equal(200)
      await sleep(1100) // token iat has second precision
      const r = await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { password: STRONG_2 } })
      expect(r.status).to.equal(200)
      expect(r.text).to.not.include(STRONG_2)
      expect(new Date(r.body.password_changed_at).getTime()).to.be.greaterThan(new Date(u.password_changed_at).getTime())
      expect((await t.req('GET', '/api/v1/auth/me', { token: old })).status).to.equal(401)
      expect((await t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: STRONG } })).status).to.equal(401)
      expect((await t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: STRONG_2 } })).status).to.equal(200)
    })

    it('disabling a user voids their sessions, and re-enabling does not revive them', async () => {
      const u = await createUser(t, { password: STRONG })
      const old = (await t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: STRONG } })).body.access_token as string
      await sleep(1100)
      expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { enabled: false } })).body.enabled).to.equal(false)
      expect((await t.req('GET', '/api/v1/auth/me', { token: old })).status).to.equal(401)
      expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { enabled: true } })).body.enabled).to.equal(true)
      expect((await t.req('GET', '/api/v1/auth/me', { token: old })).status).to.equal(401)
      expect((await t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: STRONG } })).status).to.equal(200)
    })

    it('switching to directory (and network login off: a directory user has none) drops the local password', async () => {
      const u = await createUser(t, { password: STRONG, network_login: true })
      const r = await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { source: 'directory', network_login: false } })
      expect(r.body).to.include({ source: 'directory', password_set: false, network_verifiers_set: false, password_changed_at: null })
      const row = (await t.app.db.knex('users').where({ id: u.id }).first())!
      expect(row.password_hash).to.equal(null)
      expect(row.network_verifiers).to.equal(null)
    })
  })

  describe('network verifiers', () => {
    it('derives sealed verifiers when network_login and a password are set', async () => {
      const u = await createUser(t, { password: STRONG, network_login: true })
      expect(u.network_verifiers_set).to.equal(true)
      const row = (await t.app.db.knex('users').where({ id: u.id }).first())!
      expect(row.network_verifiers).to.be.a('string').and.not.include(STRONG)
      expect(row.network_verifiers).to.not.include('$6$')
      const v = await t.app.identity.networkVerifiers(u.id)
      expect(v!.sha512_crypt).to.match(/^\$6\$/)
      expect(v!.nt_hash).to.match(/^[0-9A-Fa-f]{32}$/)
      const plain = await createUser(t, { password: STRONG })
      expect(plain.network_verifiers_set).to.equal(false)
      expect(await t.app.identity.networkVerifiers(plain.id)).to.equal(null)
    })

    it('turning network_login on for a user with a password asks for it in the same request; turning it off discards the verifiers', async () => {
      const u = await createUser(t, { password: STRONG })
      expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { network_login: true } }), 422, 'NETWORK_PASSWORD_REQUIRED', 'password')
      expect(await t.app.identity.networkVerifiers(u.id)).to.equal(null)
      const pw = await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { network_login: true, password: STRONG_2 } })
      expect(pw.body).to.include({ network_login: true, network_verifiers_set: true })
      const v = await t.app.identity.networkVerifiers(u.id)
      expect(v!.sha512_crypt).to.match(/^\$6\$/)
      const off = await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { network_login: false } })
      expect(off.body).to.include({ network_login: false, network_verifiers_set: false })
      expect((await t.app.db.knex('users').where({ id: u.id }).first())!.network_verifiers).to.equal(null)
      expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { network_login: true } }), 422, 'NETWORK_PASSWORD_REQUIRED', 'password')
    })

    it('derives verifiers of the password itself: SHA-512 crypt and the NT hash', async () => {
      const u = await createUser(t, { password: STRONG, network_login: true })
      const v = (await t.app.identity.networkVerifiers(u.id))!
      expect(sha512CryptMatches(STRONG, v.sha512_crypt)).to.equal(true)
      expect(sha512CryptMatches(STRONG_2, v.sha512_crypt)).to.equal(false)
      // MD4 of the UTF-16LE password, from OpenSSL's legacy provider: an implementation apart from the kernel's.
      expect(v.nt_hash.toUpperCase()).to.equal('23F3B58FA2E74135D183169D2D4C8134')
    })
  })

  describe('delete', () => {
    it('deletes a user with their links, then answers 404', async () => {
      const g = await createGroup(t)
      const u = await createUser(t, { group_ids: [g], role_ids: [await createRole(t, ['users.read'])] })
      const r = await t.admin('DELETE', `/api/v1/users/${u.id}`)
      expect(r.status).to.equal(204)
      expect(r.text).to.equal('')
      expectError(await t.admin('GET', `/api/v1/users/${u.id}`), 404, 'NOT_FOUND', 'user_id')
      expect(await t.app.db.knex('user_group_members').where({ user_id: u.id })).to.have.length(0)
      expect(await t.app.db.knex('user_roles').where({ user_id: u.id })).to.have.length(0)
      expect((await t.admin('GET', `/api/v1/user-groups/${g}`)).body.member_count).to.equal(0)
    })

    it('refuses to delete yourself', async () => {
      const me = await t.admin('GET', '/api/v1/auth/me')
      expectError(await t.admin('DELETE', `/api/v1/users/${me.body.id}`), 409, 'CANNOT_DELETE_SELF', 'user_id')
      const writer = await actorWith(t, ['users.write'])
      expectError(await t.req('DELETE', `/api/v1/users/${writer.id}`, { token: writer.token }), 409, 'CANNOT_DELETE_SELF', 'user_id')
    })
  })

  describe('audit', () => {
    it('records create, update and delete with before and after, and no hash or password', async () => {
      const u = await createUser(t, { password: STRONG, network_login: true })
      await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { display_name: 'Audited', password: STRONG_2 } })
      await t.admin('DELETE', `/api/v1/users/${u.id}`)
      const rows = await auditRows(t, u.id)
      expect(rows.map((r) => r.action)).to.deep.equal(['user.create', 'user.update', 'user.delete'])
      expect(rows[0]).to.include({ before: null })
      expect((rows[0].after as { username: string }).username).to.equal(u.username)
      expect((rows[1].before as { display_name: unknown }).display_name).to.equal(null)
      expect((rows[1].after as { display_name: unknown }).display_name).to.equal('Audited')
      expect(rows[2]).to.include({ after: null })
      const me = await t.admin('GET', '/api/v1/auth/me')
      expect(rows.every((r) => r.actor_id === me.body.id)).to.equal(true)
      const text = JSON.stringify(rows)
      for (const secret of [STRONG, STRONG_2, 'argon2', '$6$', 'password_hash', 'network_verifiers"']) expect(text).to.not.include(secret)
    })
  })

  describe('privilege escalation guards', () => {
    let writer: { id: string; token: string }
    before(async () => {
      writer = await actorWith(t, ['users.write', 'users.read'])
    })
    const as = (m: string, p: string, body?: unknown) => t.req(m, p, { token: writer.token, body })

    it('needs users.write to change and users.read to read', async () => {
      const reader = await actorWith(t, ['users.read'])
      expect((await t.req('GET', '/api/v1/users', { token: reader.token })).status).to.equal(200)
      expectError(await t.req('POST', '/api/v1/users', { token: reader.token, body: { username: uniq('x') } }), 403, 'PERMISSION_DENIED')
      const nobody = await actorWith(t, [])
      expectError(await t.req('GET', '/api/v1/users', { token: nobody.token }), 403, 'PERMISSION_DENIED')
      expectError(await t.req('GET', '/api/v1/users'), 401, 'TOKEN_INVALID')
    })

    it('only an administrator may set is_admin', async () => {
      expectError(await as('POST', '/api/v1/users', { username: uniq('x'), is_admin: true }), 403, 'ADMIN_REQUIRED', 'is_admin')
      const u = await createUser(t)
      expectError(await as('PUT', `/api/v1/users/${u.id}`, { is_admin: true }), 403, 'ADMIN_REQUIRED', 'is_admin')
      expectError(await as('PUT', `/api/v1/users/${writer.id}`, { is_admin: true }), 403, 'ADMIN_REQUIRED', 'is_admin')
      // Saying what is already so is not a change.
      expect((await as('PUT', `/api/v1/users/${u.id}`, { is_admin: false, display_name: 'ok' })).status).to.equal(200)
      expect((await as('POST', '/api/v1/users', { username: uniq('x'), is_admin: false })).status).to.equal(201)
    })

    it('a non-administrator may not touch an administrator', async () => {
      const admin = await createUser(t, { is_admin: true, password: STRONG })
      expectError(await as('PUT', `/api/v1/users/${admin.id}`, { password: STRONG_2 }), 403, 'ADMIN_REQUIRED', 'user_id')
      expectError(await as('PUT', `/api/v1/users/${admin.id}`, { email: 'mine@evil.example' }), 403, 'ADMIN_REQUIRED', 'user_id')
      expectError(await as('DELETE', `/api/v1/users/${admin.id}`), 403, 'ADMIN_REQUIRED', 'user_id')
      expect((await t.req('POST', '/api/v1/auth/login', { body: { username: admin.username, password: STRONG } })).status).to.equal(200)
    })

    it('a non-administrator may only give roles and groups whose permissions they hold', async () => {
      const strong = await createRole(t, ['users.read', 'settings.write'])
      const weak = await createRole(t, ['users.read'])
      const strongGroup = await createGroup(t, [weak, strong])
      const weakGroup = await createGroup(t, [weak])
      const e1 = await as('POST', '/api/v1/users', { username: uniq('x'), role_ids: [weak, strong] })
      expectError(e1, 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'role_ids[1]')
      expect(e1.body.detail).to.include('settings.write')
      expectError(await as('POST', '/api/v1/users', { username: uniq('x'), group_ids: [strongGroup] }), 403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'group_ids[0]')
      expectError(await as('PUT', `/api/v1/users/${writer.id}`, { role_ids: [strong] }), 403, 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'role_ids[0]')
      expectError(await as('PUT', `/api/v1/users/${writer.id}`, { group_ids: [weakGroup, strongGroup] }), 403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'group_ids[1]')
      const ok = await as('POST', '/api/v1/users', { username: uniq('x'), role_ids: [weak], group_ids: [weakGroup] })
      expect(ok.status).to.equal(201)
    })

    it('a non-administrator may not change or delete a user holding more than they do', async () => {
      const stronger = await createUser(t, { password: STRONG, role_ids: [await createRole(t, ['settings.write'])] })
      const e = await as('PUT', `/api/v1/users/${stronger.id}`, { password: STRONG_2 })
      expectError(e, 403, 'USER_EXCEEDS_OWN_PERMISSIONS', 'user_id')
      expect(e.body.detail).to.include('settings.write')
      expectError(await as('DELETE', `/api/v1/users/${stronger.id}`), 403, 'USER_EXCEEDS_OWN_PERMISSIONS', 'user_id')
      const viaGroup = await createUser(t, { group_ids: [await createGroup(t, [await createRole(t, ['audit.read'])])] })
      expectError(await as('PUT', `/api/v1/users/${viaGroup.id}`, { display_name: 'x' }), 403, 'USER_EXCEEDS_OWN_PERMISSIONS', 'user_id')
      const weaker = await createUser(t, { role_ids: [await createRole(t, ['users.read'])] })
      expect((await as('PUT', `/api/v1/users/${weaker.id}`, { password: STRONG_2 })).status).to.equal(200)
      expect((await as('DELETE', `/api/v1/users/${weaker.id}`)).status).to.equal(204)
    })
  })
})

describe('users API: the last administrator', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  const enabledAdmins = async () => t.app.db.knex('users').where({ is_admin: true, enabled: true }).pluck('id')

  it('refuses to disable, demote or delete the last enabled administrator', async () => {
    const me = (await t.admin('GET', '/api/v1/auth/me')).body.id as string
    const boot = (await t.app.db.knex('users').where({ username: 'admin' }).first('id'))!.id
    expect((await t.admin('PUT', `/api/v1/users/${boot}`, { body: { enabled: false } })).status).to.equal(200)
    expect(await enabledAdmins()).to.deep.equal([me])
    expectError(await t.admin('PUT', `/api/v1/users/${me}`, { body: { is_admin: false } }), 409, 'LAST_ADMIN', 'is_admin')
    expectError(await t.admin('PUT', `/api/v1/users/${me}`, { body: { enabled: false } }), 409, 'LAST_ADMIN', 'enabled')
    expectError(await t.admin('DELETE', `/api/v1/users/${me}`), 409, 'CANNOT_DELETE_SELF', 'user_id')
    // A disabled administrator does not count: it may be demoted and deleted.
    expect((await t.admin('PUT', `/api/v1/users/${boot}`, { body: { is_admin: false } })).status).to.equal(200)
    expect((await t.admin('DELETE', `/api/v1/users/${boot}`)).status).to.equal(204)
    expect(await enabledAdmins()).to.deep.equal([me])
  })

  it('two administrators deleting each other at once leave one', async () => {
    const [aId, bId] = [randomUUID(), randomUUID()]
    const [a, b] = [await t.token({ sub: aId, admin: true }), await t.token({ sub: bId, admin: true })]
    // Leave only a and b enabled.
    const me = (await t.admin('GET', '/api/v1/auth/me')).body.id as string
    expect((await t.req('PUT', `/api/v1/users/${me}`, { token: a, body: { enabled: false } })).status).to.equal(200)
    expect((await enabledAdmins()).sort()).to.deep.equal([aId, bId].sort())
    const answers = await Promise.all([
      t.req('DELETE', `/api/v1/users/${bId}`, { token: a }),
      t.req('DELETE', `/api/v1/users/${aId}`, { token: b }),
    ])
    const statuses = answers.map((x) => x.status).sort()
    expect(statuses[0]).to.equal(204)
    expect(statuses[1]).to.be.oneOf([401, 409])
    expect(await enabledAdmins()).to.have.length(1)
  })

  it('two administrators demoting each other at once leave one', async () => {
    const [survivor] = await enabledAdmins()
    const s = await t.token({ sub: survivor })
    const cId = randomUUID()
    const c = await t.token({ sub: cId, admin: true })
    const answers = await Promise.all([
      t.req('PUT', `/api/v1/users/${cId}`, { token: s, body: { is_admin: false } }),
      t.req('PUT', `/api/v1/users/${survivor}`, { token: c, body: { is_admin: false } }),
    ])
    const statuses = answers.map((x) => x.status).sort()
    expect(statuses[0]).to.equal(200)
    expect(statuses[1]).to.be.oneOf([403, 409])
    expect(await enabledAdmins()).to.have.length(1)
  })
})

