/**
 * Directory users and the second factor together on the real tac_plus-ng: the MAVIS chain is the
 * second factor's backend (local passwords, then the code), then the LDAP module for the names it has
 * no password for. A directory user without MFA signs in with the directory password; a directory user
 * who owes a code is refused, with or without a code (the code is not checked for directory users on
 * tac_plus-ng yet: refused, never let through on the password alone); a local user with MFA still needs
 * the code. Skips without TAC_PLUS_NG, Net::LDAP or slapd.
 */
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../../test/kit/app.js'
import { codeAt, enroll, freeTcpPort, internalSurface, setInternalKey } from '../../../../test/kit/mfa.js'
import { PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd, type Slapd } from '../../../../test/kit/slapd.js'
import { skipBecause } from '../../../../test/kit/skip.js'
import { freePort, startTacPlusNg, TAC_PLUS_NG_SKIP, tacPlusNgBinary, type RunningTacPlusNg } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, PLUGINS, RULES, setSetting, strongPassword } from './support.js'

const KEY = 'directory-mfa-e2e-key'
const FROM = '127.27.0.3'
const DIRK = { uid: 'dirk', password: 'Dirk-Directory-Pass-1' }
const DANA = { uid: 'dana', password: 'Dana-Directory-Pass-2' }
// The upstream backend loads IO::Socket::SSL too, whatever the URL.
const hasNetLdap = () => spawnSync('perl', ['-MNet::LDAP', '-MIO::Socket::SSL', '-e', '1']).status === 0

describe('tacacs e2e: directory users with the second factor on (MAVIS: the MFA backend, then the LDAP module)', function () {
  this.timeout(180_000)
  let t: TestApp
  let ldap: Slapd
  let daemon: RunningTacPlusNg | undefined
  let port = 0
  const localPw = strongPassword()
  let localSeed = ''
  let danaSeed = ''

  before(async function () {
    const missing = !tacPlusNgBinary() ? TAC_PLUS_NG_SKIP : !slapdBinary() ? SLAPD_SKIP : !hasNetLdap() ? 'Perl Net::LDAP or IO::Socket::SSL not found (Debian packages libnet-ldap-perl, libio-socket-ssl-perl; .ci/run installs them)' : null
    if (missing) return skipBecause(this, missing)
    ldap = await startSlapd([DIRK, DANA])
    const surface = internalSurface(await freeTcpPort())
    t = await startTestApp({ plugins: [...PLUGINS, 'mfa'], env: surface.env, options: surface.options })
    port = await freePort()
    await setSetting(t, 'tacacs.listen_address', '127.0.0.1')
    await setSetting(t, 'tacacs.listen_port', port)
    await setSetting(t, 'directory.url', ldap.url)
    await setSetting(t, 'directory.bind_dn', READER.dn)
    await setSetting(t, 'directory.bind_password', READER.password)
    await setSetting(t, 'directory.user_base_dn', PEOPLE_DN)
    const device = await created(t, '/api/v1/devices', { name: 'dm-sw', address: FROM, tacacs_key: KEY })
    const profile = await created(t, '/api/v1/tacacs/profiles', { name: 'dm-p', privilege_level: 15, default_action: 'permit' })
    const staff = await created(t, '/api/v1/user-groups', { name: 'dm-staff' })
    await created(t, '/api/v1/users', { username: 'dirk', source: 'directory', network_login: true, group_ids: [staff.id] })
    await created(t, '/api/v1/users', { username: 'dana', source: 'directory', network_login: true, group_ids: [staff.id] })
    await created(t, '/api/v1/users', { username: 'l-mfa', password: localPw, network_login: true, must_change_password: false, group_ids: [staff.id] })
    await created(t, RULES, { name: 'staff-sw', who: { group_id: staff.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id, position: 0 })
    // Enrolled through the API sign-in: dana's against the directory.
    danaSeed = await enroll(t, 'dana', DANA.password)
    localSeed = await enroll(t, 'l-mfa', localPw)
    await setInternalKey(t)
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'directory + mfa e2e' } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    const current = path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current')
    daemon = await startTacPlusNg({ configFile: path.join(current, 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
  })
  after(async () => {
    await daemon?.stop()
    await t?.stop()
    await ldap?.destroy()
  })
  beforeEach(async () => {
    await t?.app.db.knex('rate_limit_hits').delete()
  })

  const client = () => new TacacsClient({ host: '127.0.0.1', port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
  const pap = async (u: string, p: string) => (await client().authenticatePap(u, p)).pass

  it('chains the MFA backend before the LDAP module, under one MAVIS path', () => {
    const config = readFileSync(path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'tac_plus-ng.cfg'), 'utf8')
    expect(config.indexOf('portcullis-mfa.pl')).to.be.greaterThan(-1).and.lessThan(config.indexOf('mavis_tacplus-ng_ldap.pl'))
    expect(config.match(/^\s*mavis path = /gm), 'one MAVIS path').to.have.length(1)
  })

  it('a directory user without MFA signs in with the directory password, and not with a wrong one', async () => {
    expect(await pap('dirk', DIRK.password)).to.equal(true)
    expect(await pap('dirk', 'Dirk-Directory-Pass-9')).to.equal(false)
  })

  it('a directory user who owes a code is refused, with the password alone and with the code', async () => {
    expect(await pap('dana', DANA.password)).to.equal(false)
    expect(await pap('dana', DANA.password + codeAt(danaSeed, 1))).to.equal(false)
  })

  it('a local user with MFA still needs the code', async () => {
    expect(await pap('l-mfa', localPw)).to.equal(false)
    expect(await pap('l-mfa', localPw + codeAt(localSeed, 1))).to.equal(true)
  })
})
