/**
 * The FreeRADIUS end-to-end tests' lab: users, groups, devices, RADIUS and
 * TACACS+ profiles and AAA policy rules made through the API, the tree
 * rendered from a repeatable-read snapshot, checked with `freeradius -C` and
 * run on free loopback ports, and the requests a NAS sends (radclient).
 * e2e-freeradius.test.ts and e2e-replies.test.ts each open their own.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { parseFreeradiusLine, type FreeradiusAuthEvent, type FreeradiusLogRecord } from '../../../sdk/logs/freeradius-parse.js'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { DICTIONARY } from '../services/dictionary.js'
import { attributeOctets, PROFILE_REPLY_BUDGET } from '../services/reply-size.js'
import { checkConfig, freeUdpPort, mschapv1Pairs, mschapv2Pairs, radclient, rcString, renderFreeradius, startFreeradius, writeRelease, type RadclientResult, type RunningFreeradius } from './e2e-support.js'

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy']
export const RULES = '/api/v1/aaa/policy/rules'
export const strongPassword = () => `Tq-${randomBytes(9).toString('base64url')}-7z`
/** Accepted by the inventory (no `"`, `\` or `$`), hostile to a careless renderer. */
export const SECRET = `s%{User-Password}#'}{ x`
export const HOSTILE_REPLY = 'say "hi" {x} } # not a comment \\ end'
/** A 247-byte Cisco-AVPair, the most a vendor-specific attribute carries, ending in two-byte characters. */
export const LONGEST_AVPAIR = 'shell:x=' + 'é'.repeat(119) + 'e'

export const attr = (r: RadclientResult, name: string) => r.attributes.filter((a) => a.name === name).map((a) => a.value)

async function created(t: TestApp, p: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.admin('POST', p, { body })
  expect(r.status, `POST ${p} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).to.equal(201)
  return r.body
}

async function setSetting(t: TestApp, key: string, value: unknown): Promise<void> {
  const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
  expect(r.status, `setting ${key}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 204])
}

/**
 * A profile of every value type that takes exactly the reply budget (services/reply-size.ts), filled
 * with Reply-Messages: with MS-CHAP2-Success and a 253-octet Proxy-State the accept is 4096 bytes.
 */
export function fullProfile(): { name: string; value: string }[] {
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

export class RadiusLab {
  readonly pw: Record<string, string> = {}
  readonly users: Record<string, any> = {}
  readonly profiles: Record<string, any> = {}
  /** Answered requests, to compare with the JSON lines. */
  readonly sent = { auth: 0 }
  daemon: RunningFreeradius | undefined
  authPort = 0
  acctPort = 0

  private constructor(
    public t: TestApp,
    readonly dir: string,
  ) {}

  get logDir() {
    return path.join(this.dir, 'logs')
  }
  get runDir() {
    return path.join(this.dir, 'run')
  }
  get release() {
    return path.join(this.dir, 'release')
  }

  /** `with`: more plugins (aaa-logs), settings and server options for the platform. */
  static async open(w: { plugins?: string[]; settings?: Record<string, unknown>; options?: Record<string, unknown> } = {}): Promise<RadiusLab> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-freeradius-e2e-'))
    mkdirSync(path.join(dir, 'data'))
    const t = await startTestApp(RadiusLab.appOptions(dir, w))
    const lab = new RadiusLab(t, dir)
    await lab.populate()
    await lab.deploy()
    return lab
  }

  private static appOptions(dir: string, w: { plugins?: string[]; settings?: Record<string, unknown>; options?: Record<string, unknown> }) {
    return {
      plugins: [...PLUGINS, ...(w.plugins ?? [])],
      settings: w.settings,
      // The lab's own data folder: kept across a restart (restartApp), removed by close.
      dataDir: path.join(dir, 'data'),
      options: { 'radius.log_directory': path.join(dir, 'logs'), 'radius.run_directory': path.join(dir, 'run'), ...w.options },
    }
  }

  /** The platform again on the same database and data folder, with other server options (read at boot only); then deploy. */
  async restartApp(w: { plugins?: string[]; settings?: Record<string, unknown>; options?: Record<string, unknown> }): Promise<void> {
    await this.stopDaemon()
    const { databaseUrl, masterKey } = this.t
    await this.t.stop()
    this.t = await startTestApp({ ...RadiusLab.appOptions(this.dir, w), ...(databaseUrl ? { databaseUrl } : {}), masterKey })
    await this.deploy()
  }

  private async populate() {
    const t = this.t
    this.authPort = await freeUdpPort()
    this.acctPort = await freeUdpPort()
    await setSetting(t, 'radius.listen_address', '127.0.0.1')
    await setSetting(t, 'radius.auth_port', this.authPort)
    await setSetting(t, 'radius.acct_port', this.acctPort)

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
      this.pw[name] = name === 'gina' ? `Ch'a\\p"%{User-Name}\${x}$ENV{HOME} ${strongPassword()}` : strongPassword()
      this.users[name] = await created(t, '/api/v1/users', { username: name, password: this.pw[name], network_login: true, ...body })
    }
    // dave is disabled; nora is an enabled user without network login: neither is a network user.
    expect((await t.admin('PUT', `/api/v1/users/${this.users.dave.id}`, { body: { enabled: false } })).status).to.equal(200)
    this.users.nora = await created(t, '/api/v1/users', { username: 'nora', password: strongPassword(), group_ids: [admins.id] })
    const core = await created(t, '/api/v1/device-groups', { name: 'core' })
    const dc = await created(t, '/api/v1/device-groups', { name: 'dc', parent_id: core.id })
    const sw1 = await created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: dc.id, radius_secret: SECRET, tacacs_key: 'tk' })
    await created(t, '/api/v1/devices', { name: 'other', address: '127.0.0.128/25', radius_secret: 'other-secret' })

    const admin = (this.profiles.admin = await created(t, '/api/v1/radius/profiles', {
      name: 'admin',
      attributes: [
        { name: 'Service-Type', value: 'Administrative-User' },
        { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
        { name: 'Cisco-AVPair', value: 'shell:roles="network-admin"' },
        { name: 'Reply-Message', value: HOSTILE_REPLY },
      ],
    }))
    const full = (this.profiles.full = await created(t, '/api/v1/radius/profiles', { name: 'full', attributes: fullProfile() }))
    const help = await created(t, '/api/v1/radius/profiles', { name: 'helpdesk-ro', attributes: [{ name: 'Service-Type', value: 'NAS-Prompt-User' }] })
    const tp = await created(t, '/api/v1/tacacs/profiles', { name: 'tp', privilege_level: 15 })

    await created(t, RULES, { name: 'maxi-full', who: { user_id: this.users.maxi.id }, where: { device_id: sw1.id }, radius_profile_id: full.id })
    await created(t, RULES, { name: 'admins-core', who: { group_id: admins.id }, where: { device_group_id: core.id }, radius_profile_id: admin.id })
    await created(t, RULES, { name: 'bob-sw1-tacacs-only', who: { user_id: this.users.bob.id }, where: { device_id: sw1.id }, tacacs_profile_id: tp.id })
    await created(t, RULES, { name: 'helpdesk-disabled', who: { group_id: helpdesk.id }, where: { device_group_id: core.id }, radius_profile_id: admin.id, enabled: false })
    await created(t, RULES, { name: 'helpdesk-sw1', who: { group_id: helpdesk.id }, where: { device_id: sw1.id }, radius_profile_id: help.id })
  }

  /** Render, write a fresh release, check, (re)start the daemon in the foreground. */
  async deploy(): Promise<string> {
    await this.stopDaemon()
    rmSync(this.release, { recursive: true, force: true })
    mkdirSync(this.release)
    writeRelease(this.release, await renderFreeradius(this.t))
    const check = checkConfig(this.release)
    expect(check.ok, `freeradius -C:\n${check.output}`).to.equal(true)
    this.daemon = await startFreeradius(this.release)
    return this.release
  }

  async stopDaemon() {
    await this.daemon?.stop()
    this.daemon = undefined
  }

  async close() {
    await this.stopDaemon()
    if (!process.env.KEEP_FREERADIUS_DIR) rmSync(this.dir, { recursive: true, force: true })
    await this.t.stop()
  }

  /** An Access-Request with Message-Authenticator, as every client must send (require_message_authenticator). */
  async auth(pairs: string[], secret = SECRET): Promise<RadclientResult> {
    const r = await radclient(this.authPort, 'auth', secret, [...pairs, 'Message-Authenticator = 0x00'])
    if (r.code) this.sent.auth++
    return r
  }

  pap(user: string, password: string, secret = SECRET) {
    return this.auth([`User-Name = ${rcString(user)}`, `User-Password = ${rcString(password)}`], secret)
  }

  /** radclient 3.2 hashes CHAP-Password itself; in its double-quoted values only `\"` is unescaped (`\\` stays two backslashes). */
  chap(user: string, password: string) {
    return this.auth([`User-Name = ${rcString(user)}`, `CHAP-Password = "${password.replace(/"/g, '\\"')}"`])
  }

  private async ntHash(user: string): Promise<string> {
    return (await this.t.app.identity.networkUsers(this.t.app.db.knex)).find((u) => u.username === user)!.verifiers!.nt_hash
  }

  /** MS-CHAPv2 with the user's NT hash, or a random one (a wrong password); `extra` pairs appended (Proxy-State). */
  async mschap(user: string, password?: 'wrong', extra: string[] = []) {
    const nt = password === undefined ? await this.ntHash(user) : randomBytes(16).toString('hex')
    return this.auth([...mschapv2Pairs(user, nt, randomBytes(16), randomBytes(16)), ...extra])
  }

  async mschapv1(user: string, password?: 'wrong') {
    const nt = password === undefined ? await this.ntHash(user) : randomBytes(16).toString('hex')
    return this.auth(mschapv1Pairs(user, nt, randomBytes(8)))
  }

  logRecords(kind: 'auth' | 'acct'): FreeradiusLogRecord[] {
    if (!existsSync(this.logDir)) return []
    return readdirSync(this.logDir)
      .filter((f) => f.startsWith(`radius-${kind}-`))
      .sort()
      .flatMap((f) => readFileSync(path.join(this.logDir, f), 'utf8').split('\n').filter((l) => l !== ''))
      .map((l) => {
        const r = parseFreeradiusLine(l)
        expect(r.kind, `unparsable line ${l}: ${JSON.stringify(r)}`).to.not.equal('error')
        return r as FreeradiusLogRecord
      })
  }

  lastAuth(): FreeradiusAuthEvent {
    const r = this.logRecords('auth').at(-1)!
    if (r.kind !== 'auth') throw new Error('not an auth record')
    return r.event
  }
}
