/**
 * The FreeRADIUS renderer end to end: users, groups, devices, RADIUS and
 * TACACS+ profiles and AAA policy rules made through the API; the tree
 * rendered from one repeatable-read snapshot, checked with `freeradius -C`,
 * run on loopback ports and asked with radclient (PAP, MS-CHAPv2, CHAP for
 * a user with chap_enabled and rejected for the others, accounting). Skipped where FreeRADIUS 3 and radclient are not installed.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createSocket } from 'node:dgram'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { parseFreeradiusLine, type FreeradiusLogRecord } from '../../../sdk/logs/freeradius.js'
import { DICTIONARY } from '../services/dictionary.js'
import { attributeOctets, PROFILE_REPLY_BUDGET } from '../services/reply-size.js'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import {
  checkConfig,
  FREERADIUS_PRESENT,
  FREERADIUS_SKIP,
  freeUdpPort,
  mschapv1Pairs,
  mschapv2Pairs,
  radclient,
  rcString,
  renderFreeradius,
  startFreeradius,
  writeRelease,
  type RadclientResult,
  type RunningFreeradius,
} from './e2e-support.js'

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy']
const RULES = '/api/v1/aaa/policy/rules'
const strongPassword = () => `Tq-${randomBytes(9).toString('base64url')}-7z`
/** Accepted by the inventory (no `"`, `\` or `$`), hostile to a careless renderer. */
const SECRET = `s%{User-Password}#'}{ x`
const HOSTILE_REPLY = 'say "hi" {x} } # not a comment \\ end'

async function created(t: TestApp, p: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.admin('POST', p, { body })
  expect(r.status, `POST ${p} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).to.equal(201)
  return r.body
}

/** A file's size and change time, or null when absent: what a write would change. */
const stamp = (p: string) => (existsSync(p) ? `${statSync(p).size} ${statSync(p).mtimeMs}` : null)

async function waitFor<T>(f: () => T | null, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = f()
    if (v !== null) return v
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function setSetting(t: TestApp, key: string, value: unknown): Promise<void> {
  const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
  expect(r.status, `setting ${key}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 204])
}

const attr = (r: RadclientResult, name: string) => r.attributes.filter((a) => a.name === name).map((a) => a.value)

/** A 247-byte Cisco-AVPair, the most a vendor-specific attribute carries, ending in two-byte characters. */
const LONGEST_AVPAIR = 'shell:x=' + 'é'.repeat(119) + 'e'
/**
 * A profile of every value type that takes exactly the reply budget (services/reply-size.ts), filled
 * with Reply-Messages: with MS-CHAP2-Success and a 253-octet Proxy-State the accept is 4096 bytes.
 */
function fullProfile(): { name: string; value: string }[] {
  const list = [
    { name: 'Service-Type', value: 'Administrative-User' },
    { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
    { name: 'Cisco-AVPair', value: LONGEST_AVPAIR },
    { name: 'Tunnel-Type', value: 'VLAN' },
    { name: 'Tunnel-Medium-Type', value: 'IEEE-802' },
    { name: 'Tunnel-Private-Group-Id', value: '100' },
    { name: 'Framed-IPv6-Address', value: '2001:db8::7' },
    { name: 'Framed-IP-Address', value: '192.0.2.7' },
    { name: 'Class', value: '0x0102' },
    { name: 'Class', value: 'ops' },
    { name: 'Session-Timeout', value: '3600' },
    { name: 'Juniper-Local-User-Name', value: 'su' },
    { name: 'HP-Privilege-Level', value: '15' },
  ]
  const size = () => list.reduce((n, a) => n + attributeOctets(DICTIONARY.get(a.name)!, a.value), 0)
  while (PROFILE_REPLY_BUDGET - size() >= 255) list.push({ name: 'Reply-Message', value: `m${list.length}`.padEnd(253, '.') })
  const rest = PROFILE_REPLY_BUDGET - size()
  if (rest > 0) list.push({ name: 'Reply-Message', value: 'z'.repeat(rest - 2) })
  expect(size()).to.equal(PROFILE_REPLY_BUDGET)
  return list
}

describe('radius: FreeRADIUS renderer end to end (freeradius -C, daemon, radclient)', function () {
  let t: TestApp
  let dir: string
  let logDir: string
  let runDir: string
  let adminProfile: any
  let authPort: number
  let acctPort: number
  let daemon: RunningFreeradius | undefined
  const pw: Record<string, string> = {}
  const users: Record<string, any> = {}
  const sent = { auth: 0, acct: 0 }

  /** Render, write a fresh release, check, (re)start the daemon. */
  async function deploy() {
    await daemon?.stop()
    rmSync(path.join(dir, 'release'), { recursive: true, force: true })
    const release = path.join(dir, 'release')
    mkdirSync(release)
    writeRelease(release, await renderFreeradius(t))
    const check = checkConfig(release)
    expect(check.ok, `freeradius -C:\n${check.output}`).to.equal(true)
    daemon = await startFreeradius(release)
    return release
  }

  const auth = async (pairs: string[], secret = SECRET) => {
    const r = await radclient(authPort, 'auth', secret, [...pairs, 'Message-Authenticator = 0x00'])
    if (r.code) sent.auth++
    return r
  }
  const pap = (user: string, password: string, secret = SECRET) => auth([`User-Name = ${rcString(user)}`, `User-Password = ${rcString(password)}`], secret)
  async function mschap(user: string, password?: string) {
    const known = (await t.app.identity.networkUsers(t.app.db.knex)).find((u) => u.username === user)
    // A wrong password: another user's hash or a random one.
    const nt = password === undefined ? known!.verifiers!.nt_hash : randomBytes(16).toString('hex')
    return auth(mschapv2Pairs(user, nt, randomBytes(16), randomBytes(16)))
  }

  function logRecords(kind: 'auth' | 'acct'): FreeradiusLogRecord[] {
    if (!existsSync(logDir)) return []
    return readdirSync(logDir)
      .filter((f) => f.startsWith(`radius-${kind}-`))
      .sort()
      .flatMap((f) => readFileSync(path.join(logDir, f), 'utf8').split('\n').filter((l) => l !== ''))
      .map((l) => {
        const r = parseFreeradiusLine(l)
        expect(r.kind, `unparsable line ${l}: ${JSON.stringify(r)}`).to.not.equal('error')
        return r as FreeradiusLogRecord
      })
  }
  const lastAuth = () => {
    const recs = logRecords('auth')
    const r = recs.at(-1)!
    if (r.kind !== 'auth') throw new Error('not an auth record')
    return r.event
  }

  before(async function () {
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-freeradius-e2e-'))
    logDir = path.join(dir, 'logs')
    runDir = path.join(dir, 'run')
    t = await startTestApp({ plugins: PLUGINS, options: { 'radius.log_directory': logDir, 'radius.run_directory': runDir } })
    authPort = await freeUdpPort()
    acctPort = await freeUdpPort()
    await setSetting(t, 'radius.listen_address', '127.0.0.1')
    await setSetting(t, 'radius.auth_port', authPort)
    await setSetting(t, 'radius.acct_port', acctPort)

    const admins = await created(t, '/api/v1/user-groups', { name: 'Net Admins' })
    const helpdesk = await created(t, '/api/v1/user-groups', { name: 'helpdesk' })
    for (const [name, body] of [
      ['alice', { group_ids: [admins.id] }],
      ['bob', { group_ids: [helpdesk.id] }],
      ['carol', {}],
      ['frank', { group_ids: [admins.id] }],
      ['dana', { group_ids: [helpdesk.id] }],
      ['gina', { group_ids: [admins.id], chap_enabled: true }],
      ['maxi', {}],
      ['dave', { group_ids: [admins.id] }],
    ] as const) {
      // gina's password (kept for CHAP) is hostile to a careless renderer too.
      pw[name] = name === 'gina' ? `Ch'a\\p"%{User-Name}\${x}$ENV{HOME} ${strongPassword()}` : strongPassword()
      users[name] = await created(t, '/api/v1/users', { username: name, password: pw[name], network_login: true, ...body })
    }
    // dave is disabled; nora is an enabled user without network login: neither is a network user.
    expect((await t.admin('PUT', `/api/v1/users/${users.dave.id}`, { body: { enabled: false } })).status).to.equal(200)
    users.nora = await created(t, '/api/v1/users', { username: 'nora', password: strongPassword(), group_ids: [admins.id] })
    const core = await created(t, '/api/v1/device-groups', { name: 'core' })
    const dc = await created(t, '/api/v1/device-groups', { name: 'dc', parent_id: core.id })
    const sw1 = await created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: dc.id, radius_secret: SECRET, tacacs_key: 'tk' })
    await created(t, '/api/v1/devices', { name: 'other', address: '127.0.0.128/25', radius_secret: 'other-secret' })

    const admin = (adminProfile = await created(t, '/api/v1/radius/profiles', {
      name: 'admin',
      attributes: [
        { name: 'Service-Type', value: 'Administrative-User' },
        { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
        { name: 'Cisco-AVPair', value: 'shell:roles="network-admin"' },
        { name: 'Reply-Message', value: HOSTILE_REPLY },
      ],
    }))
    const full = await created(t, '/api/v1/radius/profiles', { name: 'full', attributes: fullProfile() })
    const help = await created(t, '/api/v1/radius/profiles', { name: 'helpdesk-ro', attributes: [{ name: 'Service-Type', value: 'NAS-Prompt-User' }] })
    const tp = await created(t, '/api/v1/tacacs/profiles', { name: 'tp', privilege_level: 15 })

    await created(t, RULES, { name: 'maxi-full', who: { user_id: users.maxi.id }, where: { device_id: sw1.id }, radius_profile_id: full.id })
    await created(t, RULES, { name: 'admins-core', who: { group_id: admins.id }, where: { device_group_id: core.id }, radius_profile_id: admin.id })
    await created(t, RULES, { name: 'bob-sw1-tacacs-only', who: { user_id: users.bob.id }, where: { device_id: sw1.id }, tacacs_profile_id: tp.id })
    await created(t, RULES, { name: 'helpdesk-disabled', who: { group_id: helpdesk.id }, where: { device_group_id: core.id }, radius_profile_id: admin.id, enabled: false })
    await created(t, RULES, { name: 'helpdesk-sw1', who: { group_id: helpdesk.id }, where: { device_id: sw1.id }, radius_profile_id: help.id })
    await deploy()
  })

  after(async function () {
    await daemon?.stop()
    if (dir && !process.env.KEEP_FREERADIUS_DIR) rmSync(dir, { recursive: true, force: true })
    await t?.stop()
  })

  it('renders the same bytes twice from the same data; secrets and verifiers in 0600 files', async () => {
    const a = await renderFreeradius(t)
    const b = await renderFreeradius(t)
    expect(b).to.deep.equal(a)
    const mode = (p: string) => a.find((f) => f.path === p)!.mode
    expect(mode('clients.conf')).to.equal(0o600)
    expect(mode('portcullis/verifiers')).to.equal(0o600)
    expect(statSync(path.join(dir, 'release', 'clients.conf')).mode & 0o777).to.equal(0o600)
    const clients = a.find((f) => f.path === 'clients.conf')!.content
    expect(clients).to.include('require_message_authenticator = yes').and.include('shortname = "sw1"')
    const verifiers = a.find((f) => f.path === 'portcullis/verifiers')!.content
    expect(verifiers).to.match(/Crypt-Password := '\$6\$/).and.match(/NT-Password := 0x[0-9A-F]{32}/)
    for (const f of a) expect(f.content, f.path).to.not.include(pw.alice)
    const renderer = t.app.registry.renderers.find((r) => r.renderer.id === 'radius.freeradius')!.renderer
    expect(renderer.daemon).to.equal('freeradius')
    const check = await renderer.check!()
    expect(check!.binary).to.equal('freeradius')
    expect(check!.args('/srv/release')).to.deep.equal(['-C', '-l', 'stdout', '-d', '/srv/release'])
  })

  it('PAP: accepts with the profile reply attributes in order and Message-Authenticator; logs rule and label', async () => {
    const r = await pap('alice', pw.alice)
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
    expect(attr(r, 'Cisco-AVPair')).to.deep.equal(['shell:priv-lvl=15', 'shell:roles="network-admin"'])
    expect(attr(r, 'Reply-Message')).to.deep.equal([HOSTILE_REPLY])
    expect(attr(r, 'Message-Authenticator'), r.raw).to.have.length(1)
    const e = lastAuth()
    expect(e).to.include({ username: 'alice', result: 'accept', ruleName: 'admins-core', ruleLabel: 'admin', authType: 'PAP' })
    expect(e.replyAttributes).to.deep.include({ name: 'Reply-Message', value: HOSTILE_REPLY })
  })

  it('MS-CHAPv2: accepts with the profile reply attributes; a wrong response is rejected', async () => {
    const r = await mschap('alice')
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
    expect(attr(r, 'MS-CHAP2-Success'), r.raw).to.have.length(1)
    expect(lastAuth()).to.include({ result: 'accept', ruleName: 'admins-core', authType: 'MS-CHAPv2' })
    const bad = await mschap('alice', 'wrong')
    expect(bad.code, bad.raw).to.equal('Access-Reject')
    expect(attr(bad, 'Service-Type')).to.deep.equal([])
  })

  it('rejects a wrong password with no profile attributes, but with Message-Authenticator', async () => {
    const r = await pap('alice', 'not-the-password')
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(attr(r, 'Service-Type')).to.deep.equal([])
    expect(attr(r, 'Cisco-AVPair')).to.deep.equal([])
    expect(attr(r, 'Reply-Message')).to.deep.equal([])
    expect(attr(r, 'Message-Authenticator'), r.raw).to.have.length(1)
    expect(lastAuth()).to.include({ username: 'alice', result: 'reject', ruleName: 'admins-core' })
  })

  it('follows the policy: a rule without a RADIUS profile rejects; a disabled rule is skipped; the next rule permits; no match rejects', async () => {
    const bob = await pap('bob', pw.bob)
    expect(bob.code, bob.raw).to.equal('Access-Reject')
    expect(attr(bob, 'Service-Type')).to.deep.equal([])
    expect(lastAuth()).to.include({ username: 'bob', result: 'reject', ruleName: 'bob-sw1-tacacs-only' })
    expect(lastAuth().reason).to.match(/grants no RADIUS profile/)

    // dana (helpdesk): the disabled rule would give `admin`; the next rule gives helpdesk-ro.
    const dana = await pap('dana', pw.dana)
    expect(dana.code, dana.raw).to.equal('Access-Accept')
    expect(attr(dana, 'Service-Type')).to.deep.equal(['NAS-Prompt-User'])
    expect(attr(dana, 'Cisco-AVPair')).to.deep.equal([])
    expect(lastAuth()).to.include({ username: 'dana', result: 'accept', ruleName: 'helpdesk-sw1', ruleLabel: 'helpdesk-ro' })

    // carol: no rule but the default, which has no RADIUS profile.
    const carol = await pap('carol', pw.carol)
    expect(carol.code, carol.raw).to.equal('Access-Reject')
    expect(lastAuth()).to.include({ username: 'carol', result: 'reject', ruleName: 'default' })

    const nobody = await pap('mallory', 'whatever-password')
    expect(nobody.code, nobody.raw).to.equal('Access-Reject')
  })

  /** radclient 3.2 hashes CHAP-Password itself; in its double-quoted values only `\"` is unescaped (`\\` stays two backslashes). */
  const chap = (user: string, password: string) => auth([`User-Name = ${rcString(user)}`, `CHAP-Password = "${password.replace(/"/g, '\\"')}"`])

  it('rejects CHAP for a user without chap_enabled with a clear reason (no cleartext password is kept)', async () => {
    const r = await chap('alice', pw.alice)
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(attr(r, 'Service-Type')).to.deep.equal([])
    expect(lastAuth().reason).to.match(/CHAP is not supported for this user/)
  })

  it('CHAP: accepts a user with chap_enabled with the profile reply attributes; a wrong password is rejected; PAP still works', async () => {
    const files = await renderFreeradius(t)
    const verifiers = files.find((f) => f.path === 'portcullis/verifiers')!.content
    expect(verifiers.match(/Cleartext-Password/g), 'only gina has a kept password').to.have.length(1)
    expect(files.find((f) => f.path === 'sites-enabled/default')!.content).to.match(/Auth-Type CHAP \{\n\t\tchap\n\t\}/)
    const r = await chap('gina', pw.gina)
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
    expect(attr(r, 'Cisco-AVPair')).to.deep.equal(['shell:priv-lvl=15', 'shell:roles="network-admin"'])
    expect(attr(r, 'Reply-Message')).to.deep.equal([HOSTILE_REPLY])
    expect(attr(r, 'Message-Authenticator'), r.raw).to.have.length(1)
    expect(lastAuth()).to.include({ username: 'gina', result: 'accept', ruleName: 'admins-core', ruleLabel: 'admin', authType: 'CHAP' })
    const bad = await chap('gina', pw.gina + 'x')
    expect(bad.code, bad.raw).to.equal('Access-Reject')
    expect(attr(bad, 'Service-Type')).to.deep.equal([])
    const p = await pap('gina', pw.gina)
    expect(p.code, p.raw).to.equal('Access-Accept')
    expect(lastAuth()).to.include({ username: 'gina', result: 'accept', authType: 'PAP' })
    const m = await mschap('gina')
    expect(m.code, m.raw).to.equal('Access-Accept')
  })

  it('does not answer a wrong secret, a request without Message-Authenticator, or an unknown client address', async () => {
    const wrong = await radclient(authPort, 'auth', 'wrong-secret', [`User-Name = "alice"`, `User-Password = ${rcString(pw.alice)}`, 'Message-Authenticator = 0x00'])
    expect(wrong.code, wrong.raw).to.equal(null)
    const noMa = await radclient(authPort, 'auth', SECRET, [`User-Name = "alice"`, `User-Password = ${rcString(pw.alice)}`])
    expect(noMa.code, noMa.raw).to.equal(null)
    // 127.0.0.3 is in no device prefix (sw1 is 127.0.0.1/32, other 127.0.0.128/25).
    const s = createSocket('udp4')
    await new Promise<void>((r) => s.bind(0, '127.0.0.3', r))
    let answered = false
    s.on('message', () => (answered = true))
    const packet = Buffer.concat([Buffer.from([1, 7, 0, 20 + 7]), randomBytes(16), Buffer.from([1, 7]), Buffer.from('alice')])
    s.send(packet, authPort, '127.0.0.1')
    await new Promise((r) => setTimeout(r, 1500))
    s.close()
    expect(answered).to.equal(false)
  })

  it('accounting Start and Stop are answered and logged', async () => {
    const before = logRecords('acct').length
    for (const status of ['Start', 'Stop']) {
      const r = await radclient(acctPort, 'acct', SECRET, ['User-Name = "alice"', `Acct-Status-Type = ${status}`, 'Acct-Session-Id = "sess-1"', 'NAS-IP-Address = 127.0.0.1', 'Acct-Session-Time = 42'])
      expect(r.code, r.raw).to.equal('Accounting-Response')
    }
    const recs = logRecords('acct').slice(before)
    expect(recs.map((r) => r.kind === 'acct' && r.event.acctStatusType)).to.deep.equal(['Start', 'Stop'])
    expect(recs[1].kind === 'acct' && recs[1].event).to.include({ username: 'alice', acctSessionId: 'sess-1', sessionTime: 42 })
  })

  it('puts Message-Authenticator first in every Access-Accept and Access-Reject (PAP, CHAP, MS-CHAPv2), and echoes Proxy-State in both', async () => {
    const proxied = ['Proxy-State = 0x70726f78792d31', 'Proxy-State = 0x02']
    const replies = [
      await pap('alice', pw.alice),
      await auth([`User-Name = "alice"`, `User-Password = ${rcString(pw.alice)}`, ...proxied]),
      await auth([`User-Name = "alice"`, `User-Password = "wrong"`, ...proxied]),
      await auth([`User-Name = "mallory"`, `User-Password = "wrong"`, ...proxied]),
      await chap('gina', pw.gina),
      await mschap('alice'),
      await mschap('alice', 'wrong'),
    ]
    expect(replies.map((r) => r.code)).to.deep.equal(['Access-Accept', 'Access-Accept', 'Access-Reject', 'Access-Reject', 'Access-Accept', 'Access-Accept', 'Access-Reject'])
    for (const r of replies) {
      expect(r.attributes[0]?.name, r.raw).to.equal('Message-Authenticator')
      expect(attr(r, 'Message-Authenticator'), r.raw).to.have.length(1)
    }
    // RFC 2865 §5.33: every Proxy-State, unchanged and in order, in accepts and in rejects.
    for (const r of replies.slice(1, 4)) expect(attr(r, 'Proxy-State'), r.raw).to.deep.equal(['0x70726f78792d31', '0x02'])
    expect(attr(replies[2], 'Service-Type')).to.deep.equal([])
  })

  it('answers Status-Server on the auth port (radclient status), signed, and only to a client with its secret', async () => {
    const r = await radclient(authPort, 'status', SECRET, ['Message-Authenticator = 0x00'])
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(r.attributes.map((a) => a.name), r.raw).to.deep.equal(['Message-Authenticator'])
    const wrong = await radclient(authPort, 'status', 'wrong-secret', ['Message-Authenticator = 0x00'])
    expect(wrong.code, wrong.raw).to.equal(null)
    expect((await radclient(acctPort, 'status', SECRET, ['Message-Authenticator = 0x00'])).code).to.equal('Accounting-Response')
  })

  it('rejects unknown, disabled and network-login-off users before the policy: no rule named, a reason that says why', async () => {
    const expectations: [string, string][] = [
      ['mallory', 'unknown user'],
      ['ALICE', 'unknown user'],
      ['dave', 'the user is disabled'],
      ['nora', 'network login is off for this user'],
    ]
    for (const [user, reason] of expectations) {
      const r = await pap(user, 'Whatever-Password-1')
      expect(r.code, r.raw).to.equal('Access-Reject')
      const e = lastAuth()
      expect(e, user).to.include({ username: user, result: 'reject', reason, authType: 'PAP' })
      expect(e.ruleName, user).to.equal(null)
      expect(e.ruleLabel, user).to.equal(null)
    }
  })

  it('refuses MS-CHAPv1 unless the rule\'s profile allows it, logged as MS-CHAPv1; allowed, it authenticates', async () => {
    const v1 = async (user: string, wrong = false) => {
      const known = (await t.app.identity.networkUsers(t.app.db.knex)).find((u) => u.username === user)!
      return auth(mschapv1Pairs(user, wrong ? randomBytes(16).toString('hex') : known.verifiers!.nt_hash, randomBytes(8)))
    }
    const refused = await v1('alice')
    expect(refused.code, refused.raw).to.equal('Access-Reject')
    expect(lastAuth()).to.include({ username: 'alice', result: 'reject', authType: 'MS-CHAPv1', ruleName: 'admins-core', ruleLabel: 'admin' })
    expect(lastAuth().reason).to.match(/^MS-CHAPv1 is refused: the RADIUS profile of the matching rule does not allow it/)
    const put = (allow: boolean) => t.admin('PUT', `/api/v1/radius/profiles/${adminProfile.id}`, { body: { allow_mschapv1: allow } })
    expect((await put(true)).status).to.equal(200)
    try {
      await deploy()
      const ok = await v1('alice')
      expect(ok.code, ok.raw).to.equal('Access-Accept')
      expect(ok.attributes[0].name).to.equal('Message-Authenticator')
      expect(attr(ok, 'Service-Type')).to.deep.equal(['Administrative-User'])
      expect(lastAuth()).to.include({ username: 'alice', result: 'accept', authType: 'MS-CHAPv1', ruleName: 'admins-core' })
      const bad = await v1('alice', true)
      expect(bad.code, bad.raw).to.equal('Access-Reject')
      expect(lastAuth()).to.include({ result: 'reject', authType: 'MS-CHAPv1' })
      // MS-CHAPv2 is unaffected either way.
      expect((await mschap('alice')).code).to.equal('Access-Accept')
    } finally {
      expect((await put(false)).status).to.equal(200)
      await deploy()
    }
  })

  it('sends a profile of exactly the reply budget whole: a 4096-byte MS-CHAPv2 accept with a 253-octet Proxy-State, the longest Cisco-AVPair intact', async () => {
    const proxy = `Proxy-State = 0x${randomBytes(253).toString('hex')}`
    const r = await auth([...mschapv2Pairs('maxi', (await t.app.identity.networkUsers(t.app.db.knex)).find((u) => u.username === 'maxi')!.verifiers!.nt_hash, randomBytes(16), randomBytes(16)), proxy])
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(r.length, r.raw).to.equal(4096)
    expect(r.attributes[0].name).to.equal('Message-Authenticator')
    const sent = fullProfile().map((a) => a.name)
    const got = r.attributes.map((a) => a.name).filter((n) => !['Message-Authenticator', 'MS-CHAP2-Success', 'Proxy-State'].includes(n))
    expect(got).to.deep.equal(sent)
    expect(attr(r, 'Cisco-AVPair')).to.deep.equal(['shell:priv-lvl=15', LONGEST_AVPAIR])
    expect(attr(r, 'MS-CHAP2-Success')).to.have.length(1)
    expect(attr(r, 'Proxy-State')).to.have.length(1)
    expect(daemon!.output()).to.match(/Sent Access-Accept Id \d+ from [^\n]* length 4096\n/)
  })

  it('writes one parsable JSON line per answered authentication, without passwords', () => {
    const recs = logRecords('auth')
    expect(recs).to.have.length(sent.auth)
    const text = readdirSync(logDir)
      .map((f) => readFileSync(path.join(logDir, f), 'utf8'))
      .join('')
    for (const p of Object.values(pw)) expect(text).to.not.include(p)
  })

  it('CHAP turned off: the kept password leaves the next render and CHAP is rejected; PAP still accepts', async () => {
    const r = await t.admin('PUT', `/api/v1/users/${users.gina.id}`, { body: { chap_enabled: false } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    const release = await deploy()
    expect(readFileSync(path.join(release, 'portcullis', 'verifiers'), 'utf8')).to.not.include('Cleartext-Password')
    const no = await chap('gina', pw.gina)
    expect(no.code, no.raw).to.equal('Access-Reject')
    expect(attr(no, 'Service-Type')).to.deep.equal([])
    expect(lastAuth().reason).to.match(/CHAP is not supported for this user/)
    const ok = await pap('gina', pw.gina)
    expect(ok.code, ok.raw).to.equal('Access-Accept')
  })

  it('a user disabled after a new render is rejected', async () => {
    const ok = await pap('frank', pw.frank)
    expect(ok.code, ok.raw).to.equal('Access-Accept')
    const r = await t.admin('PUT', `/api/v1/users/${users.frank.id}`, { body: { enabled: false } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    await deploy()
    const no = await pap('frank', pw.frank)
    expect(no.code, no.raw).to.equal('Access-Reject')
    expect(attr(no, 'Service-Type')).to.deep.equal([])
  })

  it('keeps every file it writes in its own folders: the deploy check writes nothing; the daemon logs and keeps its pid file there, not in the packaged service\'s', async () => {
    await daemon?.stop()
    daemon = undefined
    const packaged = ['/var/log/freeradius/radius.log', '/var/run/freeradius/freeradius.pid', '/run/freeradius/freeradius.pid']
    const before = packaged.map(stamp)
    const release = path.join(dir, 'release')
    // The check exactly as the deploy runs it.
    const check = await t.app.registry.renderers.find((r) => r.renderer.id === 'radius.freeradius')!.renderer.check!()
    const c = spawnSync(check!.binary, check!.args(release), { encoding: 'utf8' })
    expect(c.status, c.stdout + c.stderr).to.equal(0)
    expect(existsSync(path.join(logDir, 'radius.log')), 'the check writes no log').to.equal(false)
    expect(existsSync(runDir), 'the check creates no run folder').to.equal(false)
    // As a service runs it: in the background, with no -l and no -f.
    const started = spawnSync('freeradius', ['-d', release], { stdio: 'ignore' })
    const log = () => (existsSync(path.join(logDir, 'radius.log')) ? readFileSync(path.join(logDir, 'radius.log'), 'utf8') : '(no radius.log)')
    expect(started.status, log()).to.equal(0)
    const pidFile = path.join(runDir, 'freeradius.pid')
    const pidIn = (f: string) => (existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) || null : null)
    const pid = await waitFor(() => pidIn(pidFile)).catch(() => null)
    try {
      expect(pid, `no pid file in ${runDir}: ${log()}`).to.not.equal(null)
      const r = await pap('alice', pw.alice)
      expect(r.code, r.raw).to.equal('Access-Accept')
      expect(log()).to.include('Ready to process requests')
    } finally {
      // Stop the daemon this test started, wherever it put its pid file: only a process running this release.
      const ours = [pid, ...packaged.map(pidIn)].filter((p): p is number => p !== null && existsSync(`/proc/${p}/cmdline`) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(release))
      for (const p of new Set(ours)) process.kill(p, 'SIGTERM')
      // Gone, or a zombie that only its parent can reap.
      const alive = (p: number) => existsSync(`/proc/${p}/stat`) && readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
      await waitFor(() => (ours.some(alive) ? null : true))
    }
    expect(packaged.map(stamp)).to.deep.equal(before)
  })
})
