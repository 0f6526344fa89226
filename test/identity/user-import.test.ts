/** POST /users/import: new users through the checks of POST /users, escalation refused row by row, passwords never echoed. */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'
import { actorWith, createGroup, createRole, createUser, expectError, STRONG, uniq } from './helpers.js'

describe('identity: user import', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  const importCsv = (csv: string, query = '', token?: string) =>
    t.req('POST', `/api/v1/users/import${query}`, { token: token ?? t.adminToken, raw: csv, headers: { 'content-type': 'text/csv' } })
  const snapshot = async () => JSON.stringify(await t.app.db.knex('users').orderBy('id').select('id', 'username', 'is_admin', 'password_hash'))

  it('creates users with groups, roles and hashed passwords; existing names are skipped; one audit entry without passwords', async () => {
    const role = await createRole(t, ['users.read'], uniq('Role'))
    const gname = uniq('Ops Team')
    const group = await createGroup(t, [role], gname)
    const existing = await createUser(t)
    const [a, b] = [uniq('alice'), uniq('bob')]
    const csv = `Username,display_name,email,password,network_login,groups,roles\r\n${a},Alice A,alice@example.org,${STRONG},yes,${gname.toUpperCase()},\r\n${b},,,,,,${(await t.admin('GET', `/api/v1/roles/${role}`)).body.name}\r\n${existing.username},,,,,,\r\n`
    const r = await importCsv(csv)
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.include({ applied: true, rows: 3, created: 2, skipped: 1, refused: 0 })
    expect(r.text).to.not.include(STRONG)
    const alice = (await t.admin('GET', `/api/v1/users/${r.body.results[0].id}`)).body
    expect(alice).to.include({ username: a, display_name: 'Alice A', password_set: true, network_login: true, network_verifiers_set: true, is_admin: false })
    expect(alice.group_ids).to.deep.equal([group])
    expect((await t.admin('GET', `/api/v1/users/${r.body.results[1].id}`)).body).to.include({ password_set: false }).and.to.have.deep.property('role_ids', [role])
    expect(r.body.results[2]).to.include({ outcome: 'skipped', id: existing.id })
    const hash = (await t.app.db.knex('users').where({ username: a }).first('password_hash'))!.password_hash as string
    expect(hash).to.match(/^\$argon2id\$/)
    const audit = await t.app.db.knex('audit_log').where({ action: 'user.import' }).orderBy('at', 'desc').first('after')
    expect(JSON.stringify(audit)).to.include(a).and.not.include(STRONG).and.not.include('argon2')
    // Signs in with the imported password.
    expect((await t.req('POST', '/api/v1/auth/login', { body: { username: a, password: STRONG } })).status).to.be.oneOf([200, 201])
  })

  it('bad rows: row numbers, the single route codes at the file column, atomic, nothing written', async () => {
    const before = await snapshot()
    const dup = uniq('dup')
    const csv = [
      'username,password,source,email,enabled,groups,expires_at',
      `${uniq('ok')},,,,,,`,
      `bad user,,,,,,`,
      `${uniq('weak')},short,,,,,`,
      `${uniq('dir')},${STRONG},directory,,,,`,
      `${uniq('em')},,,not-an-email,,,`,
      `${uniq('en')},,,,perhaps,,`,
      `${uniq('gr')},,,,,no-such-group,`,
      `${uniq('ex')},,,,,,tomorrow`,
      `${dup},,,,,,`,
      `${dup.toUpperCase()},,,,,,`,
    ].join('\n')
    const r = await importCsv(csv)
    expect(r.status, r.text).to.equal(200)
    expect(r.body.results.map((x: any) => [x.row, x.line, x.outcome, x.code, x.field])).to.deep.equal([
      [1, 2, 'created', null, null],
      [2, 3, 'refused', 'VALIDATION_FAILED', 'username'],
      [3, 4, 'refused', 'PASSWORD_POLICY', 'password'],
      [4, 5, 'refused', 'PASSWORD_NOT_ALLOWED', 'password'],
      [5, 6, 'refused', 'VALIDATION_FAILED', 'email'],
      [6, 7, 'refused', 'IMPORT_ROW_INVALID', 'enabled'],
      [7, 8, 'refused', 'REFERENCE_NOT_FOUND', 'groups'],
      [8, 9, 'refused', 'VALIDATION_FAILED', 'expires_at'],
      [9, 10, 'created', null, null],
      [10, 11, 'refused', 'DUPLICATE_IN_FILE', 'username'],
    ])
    expect(r.body).to.include({ applied: false, created: 2, refused: 8 })
    expect(r.text).to.not.include(STRONG)
    expect(await snapshot()).to.equal(before)
    for (const [csv, what] of [['display_name\nx\n', 'no username'], ['username,is_root\nx,1\n', 'unknown column'], ['username\n' + 'u\n'.repeat(501), 'too many rows']]) {
      const bad = await importCsv(csv)
      expect(bad.status, what).to.equal(422)
      expectError(bad, 422, 'IMPORT_INVALID', 'body')
    }
    expect(await snapshot()).to.equal(before)
  })

  describe('escalation: a users.write holder can do through a file only what POST /users lets them', () => {
    let writer: { id: string; token: string }
    let strongGroup: string
    let strongRole: string
    let weakGroup: string
    before(async () => {
      writer = await actorWith(t, ['users.write', 'users.read', 'users.read'])
      strongRole = await createRole(t, ['users.write', 'roles.write'], uniq('Strong'))
      strongGroup = uniq('Strong Group')
      await createGroup(t, [strongRole], strongGroup)
      weakGroup = uniq('Weak Group')
      await createGroup(t, [await createRole(t, ['users.read'])], weakGroup)
    })

    it('refuses administrators, stronger groups and stronger roles, at their columns, and writes nothing', async () => {
      const before = await snapshot()
      const roleName = (await t.admin('GET', `/api/v1/roles/${strongRole}`)).body.name
      const csv = `username,is_admin,groups,roles\n${uniq('a')},true,,\n${uniq('b')},,${weakGroup};${strongGroup},\n${uniq('c')},,,${roleName}\n${uniq('d')},false,${weakGroup},\n`
      const r = await importCsv(csv, '', writer.token)
      expect(r.status, r.text).to.equal(200)
      expect(r.body.results.map((x: any) => [x.outcome, x.code, x.field])).to.deep.equal([
        ['refused', 'ADMIN_REQUIRED', 'is_admin'],
        ['refused', 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'groups'],
        ['refused', 'ROLE_EXCEEDS_OWN_PERMISSIONS', 'roles'],
        ['created', null, null],
      ])
      expect(r.body.applied).to.equal(false)
      expect(await snapshot()).to.equal(before)
      // Per row: only the row the writer could have created by itself is written.
      const partial = await importCsv(csv, '?atomic=false', writer.token)
      expect(partial.body).to.include({ applied: true, created: 1, refused: 3 })
      expect(await t.app.db.knex('users').where({ is_admin: true }).whereIn('username', csv.split('\n').slice(1).map((l) => l.split(',')[0])).count({ n: '*' }).first()).to.deep.include({ n: 0 })
      // The same file from an administrator passes whole.
      expect((await importCsv(csv.replace(/\n(\w)/g, '\nx$1'))).body).to.include({ applied: true, refused: 0 })
    })

    it('needs users.write', async () => {
      const reader = await actorWith(t, ['users.read'])
      expectError(await importCsv(`username\n${uniq('x')}\n`, '', reader.token), 403, 'PERMISSION_DENIED')
    })
  })
})
