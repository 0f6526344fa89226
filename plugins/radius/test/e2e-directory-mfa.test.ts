/**
 * Directory users with the second factor on FreeRADIUS (radius.mfa_mode challenge): after the bind as
 * the user passes (Auth-Type LDAP), a directory user with MFA is challenged and accepted with the code
 * sent back with the State; the password alone never lets them in (post-auth refuses an accept the
 * second factor did not decide); a directory user without MFA is unaffected. Skipped where FreeRADIUS,
 * radclient, rlm_ldap, rlm_rest or slapd are missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { codeAt, enroll, freeTcpPort, internalSurface, setInternalKey, wrongCode } from '../../../test/kit/mfa.js'
import { PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd, type Slapd } from '../../../test/kit/slapd.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { deployFreeradius, FREERADIUS_PRESENT, FREERADIUS_SKIP, radclient, rcString, type RadclientResult, type RunningFreeradius } from './e2e-support.js'

const SECRET = 'dir-mfa-radius-secret'
const modulePresent = (name: string) => ['/usr/lib/freeradius', '/usr/lib64/freeradius', '/usr/local/lib/freeradius'].some((d) => existsSync(path.join(d, name)))
const DIRK = { uid: 'dirk', password: 'Dirk-Directory-Pass-1' }
const DANA = { uid: 'dana', password: 'Dana-Directory-Pass-2' }
const attr = (r: RadclientResult, name: string) => r.attributes.filter((a) => a.name === name).map((a) => a.value)

// What FreeRADIUS does with the deployed tree is the same whatever the engine: once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('radius: directory users with the second factor (challenge after the directory bind)', function () {
  this.timeout(180_000)
  let t: TestApp
  let ldap: Slapd
  let dir: string
  let daemon: RunningFreeradius | undefined
  let port = 0
  let danaSeed = ''

  const send = (pairs: string[]) => radclient(port, 'auth', SECRET, [...pairs, 'Message-Authenticator = 0x00'])
  const pap = (user: string, password: string) => send([`User-Name = ${rcString(user)}`, `User-Password = ${rcString(password)}`])
  const answer = (user: string, state: string, code: string) => send([`User-Name = ${rcString(user)}`, `User-Password = ${rcString(code)}`, `State = ${state}`])

  before(async function () {
    if (!FREERADIUS_PRESENT) return skipBecause(this, FREERADIUS_SKIP)
    if (!modulePresent('rlm_ldap.so')) return skipBecause(this, 'FreeRADIUS rlm_ldap (Debian: freeradius-ldap) is not installed')
    if (!modulePresent('rlm_rest.so')) return skipBecause(this, 'FreeRADIUS rlm_rest (Debian: freeradius-rest) is not installed')
    if (!slapdBinary()) return skipBecause(this, SLAPD_SKIP)
    ldap = await startSlapd([DIRK, DANA])
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-radius-dir-mfa-'))
    const surface = internalSurface(await freeTcpPort())
    t = await startTestApp({
      plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'mfa'],
      env: surface.env,
      options: { ...surface.options, 'radius.log_directory': path.join(dir, 'logs'), 'radius.run_directory': path.join(dir, 'run') },
    })
    for (const [key, value] of [['directory.url', ldap.url], ['directory.bind_dn', READER.dn], ['directory.bind_password', READER.password], ['directory.user_base_dn', PEOPLE_DN]] as const) {
      expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status).to.equal(200)
    }
    const group = await t.admin('POST', '/api/v1/user-groups', { body: { name: 'dir-ops' } })
    const device = await t.admin('POST', '/api/v1/devices', { body: { name: 'sw1', address: '127.0.0.1/32', radius_secret: SECRET } })
    const profile = await t.admin('POST', '/api/v1/radius/profiles', { body: { name: 'admin', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] } })
    const rule = await t.admin('POST', '/api/v1/aaa/policy/rules', { body: { name: 'ops-sw1', who: { group_id: group.body.id }, where: { device_id: device.body.id }, radius_profile_id: profile.body.id } })
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201)
    for (const u of ['dirk', 'dana']) {
      const r = await t.admin('POST', '/api/v1/users', { body: { username: u, source: 'directory', network_login: true, group_ids: [group.body.id] } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
    }
    danaSeed = await enroll(t, 'dana', DANA.password)
    await setInternalKey(t)
    ;({ daemon, port } = await deployFreeradius(t, path.join(dir, 'release')))
  })
  after(async () => {
    await daemon?.stop()
    await t?.stop()
    await ldap?.destroy()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
  beforeEach(async () => {
    await t?.app.db.knex('rate_limit_hits').delete()
  })

  it('a directory user without MFA: the directory password alone, and a wrong one refused', async () => {
    expect((await pap('dirk', DIRK.password)).code).to.equal('Access-Accept')
    expect((await pap('dirk', 'Dirk-Directory-Pass-9')).code).to.equal('Access-Reject')
  })

  it('a directory user with MFA is challenged after the bind, and accepted with the code and the State', async () => {
    const first = await pap('dana', DANA.password)
    expect(first.code, first.raw).to.equal('Access-Challenge')
    const [state] = attr(first, 'State')
    const second = await answer('dana', state, codeAt(danaSeed, 1))
    expect(second.code, second.raw).to.equal('Access-Accept')
    expect(attr(second, 'Service-Type')).to.deep.equal(['Administrative-User'])
  })

  it('a wrong directory password is refused before any challenge; a wrong code is not accepted', async () => {
    expect((await pap('dana', 'Dana-Directory-Pass-9')).code).to.equal('Access-Reject')
    const first = await pap('dana', DANA.password)
    expect(first.code, first.raw).to.equal('Access-Challenge')
    const wrong = await answer('dana', attr(first, 'State')[0], wrongCode(danaSeed))
    expect(wrong.code, wrong.raw).to.not.equal('Access-Accept')
  })
})
