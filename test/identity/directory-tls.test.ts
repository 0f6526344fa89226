/**
 * The directory over TLS, against a real slapd with a server certificate (test/kit/slapd.ts `tls`):
 * ldaps:// and StartTLS sign in with the CA given in directory.ca_certificate; without it, or with
 * another CA, the server is not trusted and the sign-in fails closed (directory_unavailable), the
 * password never sent in the clear.
 */
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { startTestApp, type TestApp } from '../kit/app.js'
import { PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd, type Slapd } from '../kit/slapd.js'
import { skipBecause } from '../kit/skip.js'
import { createUser, expectError } from './helpers.js'

const ALICE = { uid: 'alice', password: 'Directory-Tls-Pass-2026' }

describe('directory users: LDAP over TLS (ldaps:// and StartTLS)', function () {
  this.timeout(60_000)
  let t: TestApp
  let ldap: Slapd
  let otherCa: string
  before(async function () {
    if (!slapdBinary()) skipBecause(this, SLAPD_SKIP)
    if (spawnSync('openssl', ['version']).status !== 0) skipBecause(this, 'openssl not found (Debian package openssl; .ci/run installs it)')
    ldap = await startSlapd([ALICE], { tls: true })
    // A CA of its own, unrelated to the server's: trusting it must not trust the server.
    otherCa = (await startSlapd([], { tls: true }).then(async (s) => (await s.destroy(), s.caPem)))!
    t = await startTestApp()
    await createUser(t, { username: 'alice', source: 'directory' })
    for (const [key, value] of [['directory.bind_dn', READER.dn], ['directory.bind_password', READER.password], ['directory.user_base_dn', PEOPLE_DN]] as const) await set(key, value)
  })
  after(async () => {
    await t?.stop()
    await ldap?.destroy()
  })
  beforeEach(async () => {
    await t.app.db.knex('rate_limit_hits').delete()
  })

  const set = async (key: string, value: unknown) => {
    const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
  }
  const login = (password = ALICE.password) => t.req('POST', '/api/v1/auth/login', { body: { username: 'alice', password } })
  const lastRefusal = async () => (await t.app.db.knex('audit_log').where({ action: 'auth.login', outcome: 'failure' }).orderBy('at', 'desc').first('reason'))?.reason
  const use = async (url: string, startTls: boolean, ca: string | null) => {
    await set('directory.url', url)
    await set('directory.start_tls', startTls)
    await set('directory.ca_certificate', ca)
  }

  it('ldaps:// with the directory CA: the right password signs in, a wrong one is refused', async () => {
    await use(ldap.ldapsUrl!, false, ldap.caPem!)
    const ok = await login()
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200)
    expectError(await login('Directory-Tls-Pass-2025'), 401, 'INVALID_CREDENTIALS')
    expect(await lastRefusal()).to.equal('bad_password')
  })

  it('StartTLS on ldap:// with the directory CA signs in', async () => {
    await use(ldap.url, true, ldap.caPem!)
    const ok = await login()
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200)
  })

  for (const [name, url, startTls] of [['ldaps://', 'ldapsUrl', false], ['StartTLS', 'url', true]] as const) {
    it(`${name}: a server certificate no trusted CA signed is refused (directory_unavailable), with no CA and with another one`, async () => {
      for (const ca of [null, otherCa]) {
        await use(ldap[url]!, startTls, ca)
        expectError(await login(), 401, 'INVALID_CREDENTIALS')
        expect(await lastRefusal(), `CA ${ca ? 'other' : 'none'}`).to.equal('directory_unavailable')
      }
    })
  }
})
