/**
 * Directory users sign in to the API against a real OpenLDAP (test/kit/slapd.ts): the right password
 * is accepted, a wrong one refused; a user the directory lacks, a name crafted as a filter, no
 * directory set and the directory stopped all fail closed, with the reason in the audit trail; the
 * sign-in works again once the directory is back. The settings refuse what is not an LDAP server.
 */
import { expect } from 'chai'
import { escapeLdapFilterValue, directorySettingRefs } from '../../sdk/index.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd, type Slapd } from '../kit/slapd.js'
import { skipBecause } from '../kit/skip.js'
import { createUser, expectError } from './helpers.js'

const ALICE = { uid: 'alice', password: 'Directory-Pass-2026' }

describe('directory users: the API sign-in against LDAP', function () {
  this.timeout(60_000)
  let t: TestApp
  let ldap: Slapd
  before(async function () {
    if (!slapdBinary()) skipBecause(this, SLAPD_SKIP)
    ldap = await startSlapd([ALICE, { uid: 'bob', password: 'Bob-Directory-Pass-1' }, { uid: 'twin', password: 'x' }])
    t = await startTestApp()
  })
  after(async () => {
    await t?.stop()
    await ldap?.destroy()
  })
  beforeEach(async () => {
    await t.app.db.knex('rate_limit_hits').delete()
  })

  const set = async (key: string, value: unknown) => expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status).to.equal(200)
  const configure = async () => {
    await set('directory.url', ldap.url)
    await set('directory.bind_dn', READER.dn)
    await set('directory.bind_password', READER.password)
    await set('directory.user_base_dn', PEOPLE_DN)
  }
  const login = (username: string, password: string) => t.req('POST', '/api/v1/auth/login', { body: { username, password } })
  const lastRefusal = async () => (await t.app.db.knex('audit_log').where({ action: 'auth.login', outcome: 'failure' }).orderBy('at', 'desc').first('reason'))?.reason

  it('without a directory set, a directory user is refused (directory_not_configured), as before', async () => {
    await createUser(t, { username: 'alice', source: 'directory' })
    expectError(await login('alice', ALICE.password), 401, 'INVALID_CREDENTIALS')
    expect(await lastRefusal()).to.equal('directory_not_configured')
  })

  it('accepts the directory password and refuses a wrong one, an empty one, and the name of someone Portcullis does not know', async () => {
    await configure()
    const ok = await login('alice', ALICE.password)
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200)
    expect(ok.body.token_type).to.equal('bearer')
    // The session works: the user reads itself.
    expect((await t.req('GET', '/api/v1/auth/me', { token: ok.body.access_token })).body).to.include({ username: 'alice' })
    expectError(await login('alice', 'Directory-Pass-2025'), 401, 'INVALID_CREDENTIALS')
    expect(await lastRefusal()).to.equal('bad_password')
    expectError(await login('alice', ''), 422, 'VALIDATION_FAILED')
    // In the directory, not in Portcullis: nobody (the roles and groups live here).
    expectError(await login('bob', 'Bob-Directory-Pass-1'), 401, 'INVALID_CREDENTIALS')
    expect(await lastRefusal()).to.equal('unknown_user')
  })

  it('a Portcullis directory user the directory lacks is refused (directory_user_not_found)', async () => {
    await createUser(t, { username: 'carol', source: 'directory' })
    expectError(await login('carol', 'Whatever-Pass-123'), 401, 'INVALID_CREDENTIALS')
    expect(await lastRefusal()).to.equal('directory_user_not_found')
  })

  it('a user name crafted as a filter finds nobody: every special character is escaped (RFC 4515)', async () => {
    expect(escapeLdapFilterValue('*)(uid=*')).to.equal('\\2a\\29\\28uid=\\2a')
    expect(escapeLdapFilterValue('a\\b\u0000')).to.equal('a\\5cb\\00')
    const directory = t.app.identity.directory
    for (const name of ['*)(uid=*', '*', 'al*', 'alice)(|(uid=*'])
      expect(await directory.authenticate(name, ALICE.password), name).to.deep.include({ ok: false, reason: 'directory_user_not_found' })
    expect(await directory.authenticate('alice', ALICE.password)).to.deep.include({ ok: true, dn: `uid=alice,${PEOPLE_DN}` })
  })

  it('fails closed while the directory is down, saying so, and signs in again once it is back', async () => {
    await ldap.stop()
    try {
      expectError(await login('alice', ALICE.password), 401, 'INVALID_CREDENTIALS')
      expect(await lastRefusal()).to.equal('directory_unavailable')
    } finally {
      await ldap.start()
    }
    expect((await login('alice', ALICE.password)).status).to.equal(200)
  })

  it('a wrong reader password is an unusable directory, not a wrong user password', async () => {
    await set('directory.bind_password', 'not-the-reader-password')
    try {
      expectError(await login('alice', ALICE.password), 401, 'INVALID_CREDENTIALS')
      expect(await lastRefusal()).to.equal('directory_unavailable')
    } finally {
      await set('directory.bind_password', READER.password)
    }
  })

  it('the settings refuse what is not an LDAP server, and never show the bind password', async () => {
    for (const [key, value] of [
      ['directory.url', 'http://dc1.example.org'],
      ['directory.url', 'ldap://dc1.example.org/ou=x?uid'],
      ['directory.user_attribute', 'uid)(x'],
      ['directory.ca_certificate', 'not a certificate'],
      ['directory.timeout_seconds', 0],
    ] as const) {
      const before = await t.admin('GET', `/api/v1/settings/${key}`)
      expectError(await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } }), 422, 'VALIDATION_FAILED')
      expect((await t.admin('GET', `/api/v1/settings/${key}`)).body).to.deep.equal(before.body)
    }
    const secret = await t.admin('GET', `/api/v1/settings/${directorySettingRefs.bindPassword.key}`)
    expect(JSON.stringify(secret.body)).not.to.contain(READER.password)
  })
})
