/**
 * Directory users on the real tac_plus-ng (renderers/directory.ts) against a real OpenLDAP
 * (test/kit/slapd.ts), deployed through the API: PAP and ASCII with the directory password pass, a
 * wrong one fails; a user group mapped to a directory group decides a rule (authorization with the
 * profile's priv-lvl) for the directory's members only; a name crafted as an LDAP filter finds nobody;
 * a directory entry Portcullis does not know is refused; slapd stopped → refused, with the backend's
 * reason in the daemon's output, and accepted again once it is back; a local user never notices. With
 * the account lockout on, both MAVIS chains work together. Skips without TAC_PLUS_NG, Net::LDAP or slapd.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync as readdir, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../../test/kit/app.js'
import { GROUPS_DN, PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd, type Slapd } from '../../../../test/kit/slapd.js'
import { freePort, startTacPlusNg, TAC_PLUS_NG_SKIP, tacPlusNgBinary, type RunningTacPlusNg } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, PLUGINS, RULES, setSetting, strongPassword } from './support.js'

const KEY = 'directory-e2e-key'
const FROM = '127.27.0.3'
const DIRK = { uid: 'dirk', password: 'Dirk-Directory-Pass-1', groups: ['netops'] }
const DORA = { uid: 'dora', password: 'Dora-Directory-Pass-2', groups: ['other'] }
const HOSTILE_READER = `Rd'"\\ %{User-Name} $ENV{HOME} $x #x } => 1, die`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
// The upstream backend loads IO::Socket::SSL too, whatever the URL.
const hasNetLdap = () => spawnSync('perl', ['-MNet::LDAP', '-MIO::Socket::SSL', '-e', '1']).status === 0

for (const lockout of [false, true]) {
  describe(`tacacs e2e: directory users on tac_plus-ng through the LDAP MAVIS backend${lockout ? ', with the account lockout on' : ''}`, function () {
    this.timeout(180_000)
    let t: TestApp
    let ldap: Slapd
    let daemon: RunningTacPlusNg | undefined
    let port = 0
    let lockDir = ''
    const localPw = strongPassword()

    const current = () => path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current')
    async function deployAndRun(): Promise<void> {
      await daemon?.stop()
      const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'directory e2e' } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      for (const d of r.body.deploys) expect(d.status, JSON.stringify(d)).to.equal('active')
      daemon = await startTacPlusNg({ configFile: path.join(current(), 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
    }

    before(async function () {
      const missing = !tacPlusNgBinary() ? TAC_PLUS_NG_SKIP : !slapdBinary() ? SLAPD_SKIP : !hasNetLdap() ? 'Perl Net::LDAP or IO::Socket::SSL not found (Debian packages libnet-ldap-perl, libio-socket-ssl-perl; .ci/run installs them)' : null
      if (missing) {
        console.log(`      skipped: ${missing}`)
        return this.skip()
      }
      ldap = await startSlapd([DIRK, DORA, { uid: 'eve', password: 'Eve-Directory-Pass-3' }, { uid: 'l-local', password: 'directory-password-of-local' }])
      lockDir = mkdtempSync('/tmp/td-')
      t = await startTestApp({ plugins: PLUGINS, options: { 'tacacs.lockout_directory': lockDir } })
      port = await freePort()
      await setSetting(t, 'tacacs.listen_address', '127.0.0.1')
      await setSetting(t, 'tacacs.listen_port', port)
      if (lockout) await setSetting(t, 'identity.lockout_threshold', 5)
      await setSetting(t, 'directory.url', ldap.url)
      await setSetting(t, 'directory.bind_dn', READER.dn)
      await setSetting(t, 'directory.bind_password', READER.password)
      await setSetting(t, 'directory.user_base_dn', PEOPLE_DN)
      await setSetting(t, 'directory.group_base_dn', GROUPS_DN)
      await setSetting(t, 'directory.timeout_seconds', 2)
      const device = await created(t, '/api/v1/devices', { name: 'dir-sw', address: FROM, tacacs_key: KEY })
      const admin = await created(t, '/api/v1/tacacs/profiles', { name: 'dir-admin', privilege_level: 15, default_action: 'permit', enable_mode: 'login' })
      const ops = await created(t, '/api/v1/user-groups', { name: 'dir-netops', directory_group_dn: `CN=NetOps,${GROUPS_DN}` })
      const locals = await created(t, '/api/v1/user-groups', { name: 'dir-locals' })
      await created(t, RULES, { name: 'netops-sw', who: { group_id: ops.id }, where: { device_id: device.id }, tacacs_profile_id: admin.id, position: 0 })
      await created(t, RULES, { name: 'locals-sw', who: { group_id: locals.id }, where: { device_id: device.id }, tacacs_profile_id: admin.id, position: 1 })
      for (const u of ['dirk', 'dora']) await created(t, '/api/v1/users', { username: u, source: 'directory', network_login: true })
      await created(t, '/api/v1/users', { username: 'l-local', password: localPw, network_login: true, group_ids: [locals.id] })
      await deployAndRun()
    })
    after(async () => {
      await daemon?.stop()
      await t?.stop()
      await ldap?.destroy()
      if (lockDir) rmSync(lockDir, { recursive: true, force: true })
    })

    const client = () => new TacacsClient({ host: '127.0.0.1', port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
    const pap = async (u: string, p: string) => (await client().authenticatePap(u, p)).pass
    const ascii = async (u: string, p: string) => (await client().authenticateAscii(u, p)).pass
    const shell = async (u: string) => client().authorize(u, { service: 'shell', cmd: '' })

    it('renders the directory users into the MAVIS script only, the reader password only into tac_plus-ng.cfg', () => {
      const config = readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')
      expect(config).to.include('user backend = mavis').and.include('mavis_tacplus-ng_ldap.pl')
      expect(config).to.include(`setenv LDAP_PASSWD = "${READER.password}"`)
      expect(config).to.match(/if \(\$USER == "dirk"\) \{ set \$TACPROFILE = "\{ \}" continue \}/)
      expect(config).to.not.match(/^\s*user "?dirk"? \{/m)
      expect(config).to.include(`group "cn=netops,${GROUPS_DN}" { member = "dir-netops" }`)
      if (lockout) expect(config.indexOf('mavis module = tacauth_limit')).to.be.lessThan(config.indexOf('mavis_tacplus-ng_ldap.pl'))
    })

    it('PAP, ASCII and enable pass with the directory password and fail with a wrong one; the mapped group grants the rule at authorization', async () => {
      expect(await pap('dirk', DIRK.password)).to.equal(true)
      expect(await ascii('dirk', DIRK.password)).to.equal(true)
      expect(await pap('dirk', 'Dirk-Directory-Pass-2')).to.equal(false)
      expect(await ascii('dirk', 'Dirk-Directory-Pass-2')).to.equal(false)
      // An empty password is refused alike by PAP and ASCII: FAIL, never ERROR, which a NAS with
      // `group tacacs+ local` takes for "server down" and then lets its local accounts in (issue 26, finding 11).
      expect((await client().authenticatePap('dirk', '')).status).to.equal('fail')
      expect((await client().authenticateAscii('dirk', '')).status).to.equal('fail')
      const a = await shell('dirk')
      expect(a.permitted, JSON.stringify(a)).to.equal(true)
      expect(a.args).to.include('priv-lvl=15')
      // enable_mode login: the directory password again, through the directory.
      expect((await client().enable('dirk', DIRK.password)).pass).to.equal(true)
      expect((await client().enable('dirk', 'Dirk-Directory-Pass-2')).pass).to.equal(false)
    })

    it('the mapped group decides: a directory user not listed in it matches no rule', async () => {
      // dora's password is right: the directory says so, and no rule lets her in.
      expect(await pap('dora', DORA.password)).to.equal(false)
      expect((await shell('dora')).permitted).to.equal(false)
    })

    it('refuses a name crafted as an LDAP filter, and a directory entry Portcullis does not know', async () => {
      expect(await pap('*)(uid=*', DIRK.password)).to.equal(false)
      expect(await ascii('*)(uid=*', DIRK.password)).to.equal(false)
      expect(await pap('*', DIRK.password)).to.equal(false)
      const eve = await pap('eve', 'Eve-Directory-Pass-3').catch((e) => { if (process.env.DUMP_LOG) { console.log(daemon!.output().slice(-6000)); cpSync(current(), '/tmp/i14d-cfg', { recursive: true, dereference: true }) } throw e })
      expect(eve).to.equal(false)
    })

    it('a local user keeps the local password, never the directory entry of the same name', async () => {
      expect(await pap('l-local', localPw)).to.equal(true)
      expect(await pap('l-local', 'directory-password-of-local')).to.equal(false)
      expect((await shell('l-local')).permitted).to.equal(true)
    })

    it('fails closed while the directory is down, saying why in the daemon log, and passes again once it is back', async () => {
      await ldap.stop()
      expect((await client().authenticatePap('dirk', DIRK.password)).status).to.equal('fail')
      expect((await client().authenticateAscii('dirk', DIRK.password)).status).to.equal('fail')
      expect(await pap('l-local', localPw), 'local users unaffected').to.equal(true)
      const log = readFileSync(path.join(t.dataDir, 'logs', 'tacacs', readdir(path.join(t.dataDir, 'logs', 'tacacs')).find((f) => f.startsWith('authentication'))!), 'utf8')
      if (process.env.DUMP_LOG) console.log(log.slice(-3000), daemon!.output().slice(-3000))
      expect(log + daemon!.output()).to.match(/LDAP|Can't connect|No answer/i)
      await ldap.start()
      let ok = false
      for (let i = 0; i < 20 && !ok; i++) {
        if (i) await sleep(500)
        ok = await pap('dirk', DIRK.password)
      }
      expect(ok).to.equal(true)
    })

    if (lockout) {
      it("counts a directory user's wrong passwords: locked out at the threshold, and an administrator's clear lets them in at the next deploy", async () => {
        for (let i = 0; i < 5; i++) expect(await pap('dirk', `wrong-${i}`)).to.equal(false)
        expect(await pap('dirk', DIRK.password), 'locked out').to.equal(false)
        const id = (await t.admin('GET', '/api/v1/users?search=dirk')).body.items.find((u: { username: string }) => u.username === 'dirk').id
        expect((await t.admin('POST', `/api/v1/users/${id}/lockout/clear`, { body: {} })).status).to.equal(200)
        await deployAndRun()
        expect(readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')).to.match(/if \(\$USER == "dirk"\) set \$CUSTOM_0 = "cleared \d+"/)
        expect(await pap('dirk', DIRK.password)).to.equal(true)
      })
    }

    it("a directory user's local user groups and expiry apply too (TACPROFILE)", async () => {
      const users = (await t.admin('GET', '/api/v1/users?search=dora')).body.items
      const dora = users.find((u: { username: string }) => u.username === 'dora')
      const locals = (await t.admin('GET', '/api/v1/user-groups?search=dir-locals')).body.items[0]
      expect((await t.admin('PUT', `/api/v1/users/${dora.id}`, { body: { group_ids: [locals.id] } })).status).to.equal(200)
      await deployAndRun()
      expect(readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')).to.include('if ($USER == "dora") { set $TACPROFILE = "{ member = \\"dir-locals\\" }" continue }')
      expect(await pap('dora', DORA.password), 'through the local group').to.equal(true)
      expect((await t.admin('PUT', `/api/v1/users/${dora.id}`, { body: { expires_at: new Date(Date.now() - 60_000).toISOString() } })).status).to.equal(200)
      await deployAndRun()
      expect(await pap('dora', DORA.password), 'expired').to.equal(false)
    })

    it('never writes the reader password or a user password to its logs', () => {
      const dir = path.join(t.dataDir, 'logs', 'tacacs')
      const logs = readdir(dir).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n') + daemon!.output()
      for (const secret of [READER.password, DIRK.password, DORA.password]) expect(logs).to.not.include(secret)
    })
  })
}

describe('tacacs e2e: directory users on tac_plus-ng over TLS (ldaps:// and StartTLS)', function () {
  this.timeout(180_000)
  let t: TestApp
  let ldap: Slapd
  let other: Slapd
  let daemon: RunningTacPlusNg | undefined
  let port = 0

  const current = () => path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current')
  async function configure(s: Record<string, unknown>): Promise<void> {
    for (const [k, v] of Object.entries(s)) await setSetting(t, k, v)
    await daemon?.stop()
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'directory tls e2e' } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    daemon = await startTacPlusNg({ configFile: path.join(current(), 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
  }

  before(async function () {
    const missing = !tacPlusNgBinary() ? TAC_PLUS_NG_SKIP : !slapdBinary() ? SLAPD_SKIP : !hasNetLdap() ? 'Perl Net::LDAP or IO::Socket::SSL not found (Debian packages libnet-ldap-perl, libio-socket-ssl-perl; .ci/run installs them)' : null
    if (missing) {
      console.log(`      skipped: ${missing}`)
      return this.skip()
    }
    // Hostile to a careless renderer (tac_plus-ng cannot be given "${": the render refuses it, docs/directory.md).
    ldap = await startSlapd([DIRK], { tls: true, readerPassword: HOSTILE_READER })
    other = await startSlapd([], { tls: true })
    t = await startTestApp({ plugins: PLUGINS })
    port = await freePort()
    await setSetting(t, 'tacacs.listen_address', '127.0.0.1')
    await setSetting(t, 'tacacs.listen_port', port)
    await setSetting(t, 'directory.bind_dn', READER.dn)
    await setSetting(t, 'directory.bind_password', HOSTILE_READER)
    await setSetting(t, 'directory.user_base_dn', PEOPLE_DN)
    await setSetting(t, 'directory.timeout_seconds', 2)
    const device = await created(t, '/api/v1/devices', { name: 'tls-sw', address: FROM, tacacs_key: KEY })
    const p = await created(t, '/api/v1/tacacs/profiles', { name: 'tls-p', privilege_level: 15, default_action: 'permit' })
    const u = await created(t, '/api/v1/users', { username: 'dirk', source: 'directory', network_login: true })
    await created(t, RULES, { name: 'dirk-sw', who: { user_id: u.id }, where: { device_id: device.id }, tacacs_profile_id: p.id, position: 0 })
  })
  after(async () => {
    await daemon?.stop()
    await t?.stop()
    await ldap?.destroy()
    await other?.destroy()
  })

  const pap = async (u: string, pw: string) => (await new TacacsClient({ host: '127.0.0.1', port, key: KEY, localAddress: FROM, timeoutMs: 8000 }).authenticatePap(u, pw)).pass

  it('ldaps:// with the directory CA: PAP passes, a wrong password fails; the CA is written into the release', async () => {
    await configure({ 'directory.url': ldap.ldapsUrl, 'directory.start_tls': false, 'directory.ca_certificate': ldap.caPem })
    expect(readFileSync(path.join(current(), 'directory-ca.pem'), 'utf8')).to.equal(ldap.caPem!.replace(/\n*$/, '\n'))
    expect(await pap('dirk', DIRK.password)).to.equal(true)
    expect(await pap('dirk', 'wrong-password-1')).to.equal(false)
  })

  it('StartTLS with the directory CA: PAP passes', async () => {
    await configure({ 'directory.url': ldap.url, 'directory.start_tls': true, 'directory.ca_certificate': ldap.caPem })
    expect(await pap('dirk', DIRK.password)).to.equal(true)
  })

  it('another CA: refused, over ldaps:// and StartTLS', async () => {
    const lastLine = () => {
      const dir = path.join(t.dataDir, 'logs', 'tacacs')
      return readFileSync(path.join(dir, readdir(dir).filter((f) => f.startsWith('authentication')).sort().at(-1)!), 'utf8').trim().split('\n').at(-1)!
    }
    await configure({ 'directory.url': ldap.ldapsUrl, 'directory.start_tls': false, 'directory.ca_certificate': other.caPem })
    expect(await pap('dirk', DIRK.password)).to.equal(false)
    // The backend could not use the server, and says so: refused (FAIL, never ERROR), never a password check.
    expect(lastLine()).to.include('failed [No answer from LDAP backend.]')
    await configure({ 'directory.url': ldap.url, 'directory.start_tls': true, 'directory.ca_certificate': other.caPem })
    expect(await pap('dirk', DIRK.password)).to.equal(false)
    expect(lastLine()).to.include('TLS negotiation failed')
  })

  it('refuses to render a reader password tac_plus-ng would expand ("${"): the deploy fails naming the setting, nothing is activated', async () => {
    const before = readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')
    await setSetting(t, 'directory.bind_password', 'pw-${HOME}-x')
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'expanding password' } })
    expect(r.status, JSON.stringify(r.body)).to.be.at.least(400)
    expect(JSON.stringify(r.body)).to.include('setting directory.bind_password')
    expect(readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')).to.equal(before)
    await setSetting(t, 'directory.bind_password', HOSTILE_READER)
  })
})
