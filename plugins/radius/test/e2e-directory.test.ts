/**
 * Directory users on FreeRADIUS 3.2 (renderers/directory.ts) against a real OpenLDAP (test/kit/slapd.ts):
 * PAP with the directory password is accepted and a wrong one rejected; a user group mapped to a
 * directory group decides a rule for the directory's members only; a name crafted as a filter finds
 * nobody; CHAP and MS-CHAP are refused for a directory user; slapd stopped → rejected with
 * directory_unavailable and the reason in radius.log, accepted again once it is back; local users are
 * untouched throughout. Skipped where FreeRADIUS, radclient, rlm_ldap or slapd are missing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { GROUPS_DN, PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd, type Slapd } from '../../../test/kit/slapd.js'
import { RadiusLab, RULES } from './e2e-lab.js'
import { FREERADIUS_PRESENT, FREERADIUS_SKIP, renderFreeradius } from './e2e-support.js'
import { runsOn } from '../../../test/kit/app.js'

const RLM_LDAP = '/usr/lib/freeradius/rlm_ldap.so'
const DIRK = { uid: 'dirk', password: 'Dirk-Directory-Pass-1', groups: ['netops'] }
const DORA = { uid: 'dora', password: "Dora's %{pass} 2", groups: ['other'] }
const HOSTILE_READER = `Rd'"\\ %{User-Name} \${confdir} $ENV{HOME} #x }`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// What FreeRADIUS does with the deployed tree is the same whatever the engine: once per `npm test`, in its embedded run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('radius: directory users through rlm_ldap, enforced by FreeRADIUS', function () {
  this.timeout(180_000)
  let lab: RadiusLab
  let ldap: Slapd

  before(async function () {
    const missing = !FREERADIUS_PRESENT ? FREERADIUS_SKIP : !existsSync(RLM_LDAP) ? `${RLM_LDAP} not found (Debian package freeradius-ldap; .ci/run installs it)` : !slapdBinary() ? SLAPD_SKIP : null
    if (missing) {
      console.log(`      skipped: ${missing}`)
      return this.skip()
    }
    ldap = await startSlapd([DIRK, DORA, { uid: 'alice', password: 'not-alice-local-pass' }])
    lab = await RadiusLab.open()
    const t = lab.t
    const set = async (key: string, value: unknown) => expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
    await set('directory.url', ldap.url)
    await set('directory.bind_dn', READER.dn)
    await set('directory.bind_password', READER.password)
    await set('directory.user_base_dn', PEOPLE_DN)
    await set('directory.group_base_dn', GROUPS_DN)
    await set('directory.timeout_seconds', 2)
    const ops = await t.admin('POST', '/api/v1/user-groups', { body: { name: 'dir-netops', directory_group_dn: `CN=NetOps,${GROUPS_DN}` } })
    expect(ops.status, JSON.stringify(ops.body)).to.equal(201)
    expect(ops.body.directory_group_dn).to.equal(`CN=NetOps,${GROUPS_DN}`)
    const core = (await t.admin('GET', '/api/v1/device-groups?search=core')).body.items.find((g: { name: string }) => g.name === 'core')
    const rule = await t.admin('POST', RULES, { body: { name: 'netops-core', who: { group_id: ops.body.id }, where: { device_group_id: core.id }, radius_profile_id: lab.profiles.admin.id } })
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201)
    for (const u of ['dirk', 'dora']) {
      const r = await t.admin('POST', '/api/v1/users', { body: { username: u, source: 'directory', network_login: true } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
    }
    await lab.deploy()
  })
  after(async () => {
    await lab?.close()
    await ldap?.destroy()
  })

  it('writes the reader password only into the rlm_ldap module, mode 0600, and nothing of it elsewhere', () => {
    const mod = path.join(lab.release, 'mods-enabled/portcullis_directory')
    expect(statSync(mod).mode & 0o777).to.equal(0o600)
    expect(readFileSync(mod, 'utf8')).to.include(`password = '${READER.password}'`)
    expect(readFileSync(path.join(lab.release, 'portcullis/verifiers'), 'utf8')).to.match(/^u\.dirk\tTmp-String-7 := "directory"/m)
    for (const f of ['radiusd.conf', 'portcullis/directory', 'portcullis/verifiers', 'sites-enabled/default']) expect(readFileSync(path.join(lab.release, f), 'utf8')).to.not.include(READER.password)
  })

  it('accepts a directory user with the directory password through a mapped group, and rejects a wrong or empty one', async () => {
    const ok = await lab.pap('dirk', DIRK.password)
    expect(ok.code, ok.raw).to.equal('Access-Accept')
    expect(ok.attributes.find((a) => a.name === 'Service-Type')?.value).to.equal('Administrative-User')
    expect(lab.lastAuth()).to.include({ ruleName: 'netops-core', authType: 'PAP' })
    const bad = await lab.pap('dirk', 'Dirk-Directory-Pass-2')
    expect(bad.code, bad.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('wrong_password')
    const empty = await lab.pap('dirk', '')
    expect(empty.code, empty.raw).to.equal('Access-Reject')
  })

  it('the mapped group decides: a directory user the directory does not list in it matches no rule', async () => {
    const r = await lab.pap('dora', DORA.password)
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('no_rule')
  })

  it('a name crafted as an LDAP filter finds nobody, and a local user is never checked against the directory', async () => {
    const inj = await lab.pap('*)(uid=*', DIRK.password)
    expect(inj.code, inj.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('unknown_user')
    const star = await lab.pap('*', DIRK.password)
    expect(star.code).to.equal('Access-Reject')
    // alice is local: her local password works, the directory's "alice" password does not.
    expect((await lab.pap('alice', lab.pw.alice)).code).to.equal('Access-Accept')
    expect((await lab.pap('alice', 'not-alice-local-pass')).code).to.equal('Access-Reject')
  })

  it('refuses CHAP and MS-CHAP for a directory user, saying why; the policy test agrees and says what it cannot know', async () => {
    const r = await lab.chap('dirk', DIRK.password)
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('directory_pap_only')
    const ms = await lab.mschap('dirk', 'wrong')
    expect(ms.code, ms.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('directory_pap_only')
    const test = async (method?: string) => {
      const res = await lab.t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'radius', username: 'dirk', nas_ip: '127.0.0.1', ...(method ? { method } : {}) } })
      expect(res.status, JSON.stringify(res.body)).to.equal(200)
      return res.body
    }
    const chap = await test('chap')
    expect(chap.decision).to.equal('deny')
    expect(chap.reason).to.include('not supported for directory user dirk')
    // PAP: the directory decides the password, and the mapped group is the directory's to say at login.
    const pap = await test()
    expect(pap.reason).to.include('dirk is a directory user: the test used the local user groups only')
  })

  it('fails closed while the directory is down, saying so in radius.log, and accepts again once it is back; local users unaffected', async () => {
    await ldap.stop()
    const down = await lab.pap('dirk', DIRK.password)
    expect(down.code, down.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('directory_unavailable')
    expect(lab.lastAuth().reason).to.match(/the directory could not be reached/)
    // The daemon's own log (here its stdout) says what rlm_ldap met.
    expect(lab.daemon!.output()).to.match(/portcullis_directory.*(Can't contact LDAP server|connect|Connection)/i)
    expect((await lab.pap('alice', lab.pw.alice)).code).to.equal('Access-Accept')
    await ldap.start()
    let code: string | null = ''
    for (let i = 0; i < 20 && code !== 'Access-Accept'; i++) {
      if (i) await sleep(500)
      code = (await lab.pap('dirk', DIRK.password)).code
    }
    expect(code).to.equal('Access-Accept')
  })

  it("a directory user's local user groups and expiry apply too", async () => {
    const admins = lab.users.alice.group_ids[0]
    const dora = (await lab.t.admin('GET', '/api/v1/users?search=dora')).body.items.find((u: { username: string }) => u.username === 'dora')
    expect((await lab.t.admin('PUT', `/api/v1/users/${dora.id}`, { body: { group_ids: [admins] } })).status).to.equal(200)
    await lab.deploy()
    const ok = await lab.pap('dora', DORA.password)
    expect(ok.code, ok.raw).to.equal('Access-Accept')
    expect(lab.lastAuth().ruleName).to.equal('admins-core')
    expect((await lab.t.admin('PUT', `/api/v1/users/${dora.id}`, { body: { expires_at: new Date(Date.now() - 60_000).toISOString() } })).status).to.equal(200)
    await lab.deploy()
    expect((await lab.pap('dora', DORA.password)).code).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('expired')
  })

  it('never writes the reader password to a log (not even the -xx debug output), nor a user password to the JSON lines', () => {
    // The tests run FreeRADIUS with -xx, whose request dump shows User-Password; a deployed daemon runs without it.
    expect(lab.daemon!.output()).to.not.include(READER.password)
    const rows = lab.logRecords('auth').map((r) => JSON.stringify(r)).join('\n')
    for (const secret of [READER.password, DIRK.password, DORA.password]) expect(rows).to.not.include(secret)
  })

  // Last: it takes the directory away (issue 26, finding 9: the policy test permitted what the daemon rejects).
  it('no directory set (directory.url null): a directory user is rejected before any rule, and the policy test says so for both daemons', async () => {
    expect((await lab.t.admin('PUT', '/api/v1/settings/directory.url', { body: { value: null } })).status).to.equal(200)
    await lab.deploy()
    const r = await lab.pap('dirk', DIRK.password)
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(lab.lastAuth()).to.include({ rejectReason: 'directory_not_configured', ruleName: null })
    expect((await lab.pap('alice', lab.pw.alice)).code, 'local users unaffected').to.equal('Access-Accept')
    for (const [protocol, says] of [
      ['radius', 'FreeRADIUS rejects them before any rule (directory_not_configured)'],
      ['tacacs', 'tac_plus-ng is not given directory users then'],
    ] as const) {
      for (const method of [undefined, 'pap'] as const) {
        const res = await lab.t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol, username: 'dirk', nas_ip: '127.0.0.1', ...(method ? { method } : {}) } })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        expect(res.body, `${protocol} ${method ?? 'no method'}`).to.include({ decision: 'deny', rules_tried: 0, matched_rule: null })
        expect(res.body.reason).to.include('dirk is a directory user, and no directory is set (setting directory.url)').and.include(says)
      }
    }
  })
})

;(runsOn('embedded') ? describe : describe.skip)('radius: directory users over TLS (ldaps:// and StartTLS), enforced by FreeRADIUS', function () {
  this.timeout(180_000)
  let lab: RadiusLab
  let ldap: Slapd
  let other: Slapd

  before(async function () {
    const missing = !FREERADIUS_PRESENT ? FREERADIUS_SKIP : !existsSync(RLM_LDAP) ? `${RLM_LDAP} not found (Debian package freeradius-ldap)` : !slapdBinary() ? SLAPD_SKIP : null
    if (missing) {
      console.log(`      skipped: ${missing}`)
      return this.skip()
    }
    // A reader password hostile to a careless renderer: it must reach the directory verbatim.
    ldap = await startSlapd([DIRK], { tls: true, readerPassword: HOSTILE_READER })
    // Another CA, which did not sign the server's certificate.
    other = await startSlapd([], { tls: true })
    lab = await RadiusLab.open()
    const t = lab.t
    const set = async (key: string, value: unknown) => expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
    await set('directory.bind_dn', READER.dn)
    await set('directory.bind_password', HOSTILE_READER)
    await set('directory.user_base_dn', PEOPLE_DN)
    await set('directory.timeout_seconds', 2)
    const r = await t.admin('POST', '/api/v1/users', { body: { username: 'dirk', source: 'directory', network_login: true, group_ids: [lab.users.alice.group_ids[0]] } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
  })
  after(async () => {
    await lab?.close()
    await ldap?.destroy()
    await other?.destroy()
  })

  const configure = async (s: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(s)) expect((await lab.t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
    await lab.deploy()
  }

  it('ldaps:// with the directory CA: accepted; the CA is written into the release', async () => {
    await configure({ 'directory.url': ldap.ldapsUrl, 'directory.start_tls': false, 'directory.ca_certificate': ldap.caPem })
    expect(readFileSync(path.join(lab.release, 'portcullis/directory-ca.pem'), 'utf8')).to.equal(ldap.caPem!.replace(/\n*$/, '\n'))
    const r = await lab.pap('dirk', DIRK.password)
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect((await lab.pap('dirk', 'wrong-password-1')).code).to.equal('Access-Reject')
  })

  it('StartTLS with the directory CA: accepted', async () => {
    await configure({ 'directory.url': ldap.url, 'directory.start_tls': true, 'directory.ca_certificate': ldap.caPem })
    expect((await lab.pap('dirk', DIRK.password)).code).to.equal('Access-Accept')
  })

  it('another CA: the server is refused before any password is sent (directory_unavailable), over ldaps:// and StartTLS', async () => {
    await configure({ 'directory.url': ldap.ldapsUrl, 'directory.start_tls': false, 'directory.ca_certificate': other.caPem })
    expect((await lab.pap('dirk', DIRK.password)).code).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('directory_unavailable')
    await configure({ 'directory.url': ldap.url, 'directory.start_tls': true, 'directory.ca_certificate': other.caPem })
    expect((await lab.pap('dirk', DIRK.password)).code).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('directory_unavailable')
  })

  it('refuses to render a reader password its configuration cannot hold (a backslash right before a quote), naming the setting', async () => {
    expect((await lab.t.admin('PUT', '/api/v1/settings/directory.bind_password', { body: { value: "pw\\'x" } })).status).to.equal(200)
    const e = await renderFreeradius(lab.t).then(() => null, (x: Error) => x)
    expect(e?.message).to.include('setting directory.bind_password')
    expect((await lab.t.admin('PUT', '/api/v1/settings/directory.bind_password', { body: { value: HOSTILE_READER } })).status).to.equal(200)
  })
})
