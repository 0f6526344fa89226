/**
 * The whole chain with the real daemons: everything configured through the
 * REST API, deployed with POST /api/v1/deploys, FreeRADIUS (and tac_plus-ng
 * when TAC_PLUS_NG names a binary) started from the deployed `current`
 * release on loopback ports taken from the settings, asked as a device would,
 * and the daemons' log lines read back through the ingester from the log API.
 * The log folders are left at their defaults (null → <DATA_DIR>/logs/…), so the
 * renderers' and the ingester's defaults must agree.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { TacacsClient, type AuthorResult } from '../../plugins/tacacs/client/index.js'
import type { TestApp } from '../kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary, type RunningTacPlusNg } from '../kit/tac-plus-ng.js'
import type { RunningFreeradius } from '../../plugins/radius/test/e2e-support.js'
import * as k from './support.js'

const RULES = '/api/v1/aaa/policy/rules'
const SECRET1 = `r1-${randomBytes(6).toString('hex')}`
const SECRET2 = `r2-${randomBytes(6).toString('hex')}`
const KEY1 = `t1-${randomBytes(6).toString('hex')}`
const KEY2 = `t2-${randomBytes(6).toString('hex')}`
const strongPassword = () => `Tq-${randomBytes(9).toString('base64url')}-7z`

describe('e2e: API → deploy → FreeRADIUS / tac_plus-ng → log files → ingester → log API', function () {
  this.timeout(120_000)
  let t: TestApp
  let nodeId: string
  let rad: k.Radius
  let tacPort: number
  let freeradius: RunningFreeradius | undefined
  let tacplus: RunningTacPlusNg | undefined
  const pw: Record<string, string> = {}
  const users: Record<string, any> = {}
  let adminsId = ''

  const restartFreeradius = async () => {
    await freeradius?.stop()
    freeradius = await k.startFreeradiusCurrent(t)
  }
  const ntHash = async (u: string) => (await t.app.identity.networkUsers(t.app.db.knex)).find((x) => x.username === u)!.verifiers!.nt_hash!

  before(async function () {
    if (!k.FREERADIUS_PRESENT) {
      console.log('      skipped: FreeRADIUS 3.2 and radclient (Debian: freeradius, freeradius-utils) are not installed')
      return this.skip()
    }
    t = await k.startChainApp()
    nodeId = (await k.ok(t, 'GET', '/api/v1/dashboard/system-info', undefined, 200)).node_id
    expect(nodeId).to.match(/^[0-9a-f-]{36}$/)
    rad = k.radius(await k.freeUdpPort(), await k.freeUdpPort())
    tacPort = await k.freePort()
    await k.setSetting(t, 'radius.listen_address', '127.0.0.1')
    await k.setSetting(t, 'radius.auth_port', rad.port.auth)
    await k.setSetting(t, 'radius.acct_port', rad.port.acct)
    await k.setSetting(t, 'tacacs.listen_address', '127.0.0.1')
    await k.setSetting(t, 'tacacs.listen_port', tacPort)
    await k.setSetting(t, 'aaa-logs.poll_ms', 200)

    const admins = await k.created(t, '/api/v1/user-groups', { name: 'Net Admins' })
    adminsId = admins.id
    const helpdesk = await k.created(t, '/api/v1/user-groups', { name: 'helpdesk' })
    for (const [name, body] of [
      ['alice', { group_ids: [admins.id] }],
      ['bob', { group_ids: [helpdesk.id] }],
      ['carol', {}],
      ['frank', { group_ids: [admins.id] }],
    ] as const) {
      pw[name] = strongPassword()
      users[name] = await k.created(t, '/api/v1/users', { username: name, password: pw[name], network_login: true, ...body })
    }
    const core = await k.created(t, '/api/v1/device-groups', { name: 'core' })
    const branch = await k.created(t, '/api/v1/device-groups', { name: 'branch' })
    await k.created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: core.id, radius_secret: SECRET1, tacacs_key: KEY1 })
    await k.created(t, '/api/v1/devices', { name: 'sw2', address: '127.0.0.2/32', device_group_id: branch.id, radius_secret: SECRET2, tacacs_key: KEY2 })

    const radAdmin = await k.created(t, '/api/v1/radius/profiles', {
      name: 'admin',
      attributes: [
        { name: 'Service-Type', value: 'Administrative-User' },
        { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
      ],
    })
    const cmds = await k.created(t, '/api/v1/tacacs/command-sets', {
      name: 'ops',
      commands: [
        { command: 'show', action: 'permit', arguments: [{ match_type: 'regex', value: '.*' }] },
        { command: 'configure terminal', action: 'deny' },
        { command: 'ping', action: 'permit', arguments: [{ match_type: 'prefix', value: '10.' }] },
      ],
    })
    const tacAdmin = await k.created(t, '/api/v1/tacacs/profiles', { name: 'tac-admin', privilege_level: 15, command_set_ids: [cmds.id], default_action: 'deny' })
    await k.created(t, RULES, { name: 'admins-core', who: { group_id: admins.id }, where: { device_group_id: core.id }, radius_profile_id: radAdmin.id, tacacs_profile_id: tacAdmin.id })
    await k.created(t, RULES, { name: 'helpdesk-branch', who: { group_id: helpdesk.id }, where: { device_group_id: branch.id }, radius_profile_id: radAdmin.id, tacacs_profile_id: tacAdmin.id })

    const deploys = await k.deployAll(t)
    expect(deploys.map((d) => d.daemon).sort()).to.deep.equal(['freeradius', 'tac_plus-ng'])
    expect(deploys.find((d) => d.daemon === 'freeradius').checked).to.equal(true)
    expect(existsSync(path.join(k.currentRelease(t, 'freeradius'), 'clients.conf'))).to.equal(true)
    await restartFreeradius()
  })

  after(async () => {
    await tacplus?.stop()
    await freeradius?.stop()
    await t?.stop()
  })

  describe('RADIUS (FreeRADIUS 3.2)', () => {
    it('PAP: accepts alice with the profile reply attributes', async () => {
      const r = await rad.pap('alice', pw.alice, SECRET1)
      expect(r.code, r.raw).to.equal('Access-Accept')
      expect(k.attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
      expect(k.attr(r, 'Cisco-AVPair')).to.deep.equal(['shell:priv-lvl=15'])
    })

    it('MS-CHAPv2: accepts alice', async () => {
      const r = await rad.mschapv2('alice', await ntHash('alice'), SECRET1)
      expect(r.code, r.raw).to.equal('Access-Accept')
      expect(k.attr(r, 'MS-CHAP2-Success'), r.raw).to.have.length(1)
    })

    it('rejects a wrong password, and a user no rule permits', async () => {
      expect((await rad.pap('alice', 'not-the-password', SECRET1)).code).to.equal('Access-Reject')
      expect((await rad.pap('carol', pw.carol, SECRET1)).code).to.equal('Access-Reject')
    })

    it('follows WHERE: bob (helpdesk) is accepted on the branch device 127.0.0.2, not on the core device', async () => {
      const branch = await rad.pap('bob', pw.bob, SECRET2, '127.0.0.2')
      expect(branch.code, branch.raw).to.equal('Access-Accept')
      const core = await rad.pap('bob', pw.bob, SECRET1)
      expect(core.code, core.raw).to.equal('Access-Reject')
      const aliceBranch = await rad.pap('alice', pw.alice, SECRET2, '127.0.0.2')
      expect(aliceBranch.code, aliceBranch.raw).to.equal('Access-Reject')
    })

    it('rejects a user disabled through the API after a second deploy', async () => {
      expect((await rad.pap('frank', pw.frank, SECRET1)).code).to.equal('Access-Accept')
      await k.ok(t, 'PUT', `/api/v1/users/${users.frank.id}`, { enabled: false }, 200)
      await k.deployAll(t)
      await restartFreeradius()
      const r = await rad.pap('frank', pw.frank, SECRET1)
      expect(r.code, r.raw).to.equal('Access-Reject')
    })

    it('answers accounting Start and Stop', async () => {
      for (const status of ['Start', 'Stop']) {
        const pairs = ['User-Name = "alice"', `Acct-Status-Type = ${status}`, 'Acct-Session-Id = "chain-1"', 'NAS-IP-Address = 127.0.0.1', 'Acct-Session-Time = 42']
        const r = await rad.acct(SECRET1, pairs)
        expect(r.code, r.raw).to.equal('Accounting-Response')
      }
    })

    it('the authentication log API shows the accepts and rejects with rule, auth type and node id', async () => {
      const alice = await k.waitForLogs(t, 'radius/authentication', { username: 'alice' }, 4)
      expect(alice.map((e) => [e.status, e.auth_type, e.rule_name])).to.deep.equal([
        ['accept', 'PAP', 'admins-core'],
        ['accept', 'MS-CHAPv2', 'admins-core'],
        ['reject', 'PAP', 'admins-core'],
        // No rule permits on 127.0.0.2: rejected before any authentication ran, logged with the method the request used.
        ['reject', 'PAP', 'default'],
      ])
      for (const e of alice) expect(e).to.include({ username: 'alice', node_id: nodeId })
      expect(alice.slice(0, 3).map((e) => e.nas_ip)).to.deep.equal(['127.0.0.1', '127.0.0.1', '127.0.0.1'])
      expect(alice[3].nas_ip).to.equal('127.0.0.2')
      expect(alice[0].rule_label).to.equal('admin')

      const carol = await k.waitForLogs(t, 'radius/authentication', { username: 'carol' }, 1)
      expect(carol[0]).to.include({ status: 'reject', nas_ip: '127.0.0.1', rule_name: 'default', node_id: nodeId })
      const bob = await k.waitForLogs(t, 'radius/authentication', { username: 'bob' }, 2)
      expect(bob.map((e) => [e.nas_ip, e.status, e.rule_name])).to.deep.equal([
        ['127.0.0.2', 'accept', 'helpdesk-branch'],
        ['127.0.0.1', 'reject', 'default'],
      ])
      const frank = await k.waitForLogs(t, 'radius/authentication', { username: 'frank' }, 2)
      expect(frank.map((e) => e.status)).to.deep.equal(['accept', 'reject'])

      // search and the filters find the same rows
      const found = await k.waitForLogs(t, 'radius/authentication', { search: 'HELPDESK-br' }, 1)
      expect(found.map((e) => e.username)).to.deep.equal(['bob'])
      const rejects = await k.waitForLogs(t, 'radius/authentication', { search: 'alice', status: 'reject', nas_ip: '127.0.0.1', node_id: nodeId }, 1)
      expect(rejects).to.have.length(1)
      const mschap = await k.waitForLogs(t, 'radius/authentication', { auth_type: 'MS-CHAPv2' }, 1)
      expect(mschap.map((e) => e.username)).to.deep.equal(['alice'])
    })

    it('the accounting log API shows Start and Stop', async () => {
      const rows = await k.waitForLogs(t, 'radius/accounting', { search: 'chain-1' }, 2)
      expect(rows.map((e) => e.acct_status_type)).to.deep.equal(['Start', 'Stop'])
      for (const e of rows) expect(e).to.include({ username: 'alice', nas_ip: '127.0.0.1', acct_session_id: 'chain-1', node_id: nodeId })
      expect(rows[1].session_time).to.equal(42)
    })
  })

  describe('TACACS+ (tac_plus-ng)', () => {
    before(async function () {
      if (!tacPlusNgBinary()) {
        console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
        return this.skip()
      }
      if (!t) return this.skip()
      tacplus = await k.startTacPlusNgCurrent(t, tacPort)
    })

    const client = (key: string, from: string) => new TacacsClient({ host: '127.0.0.1', port: tacPort, key, localAddress: from, timeoutMs: 5000 })
    const sw1 = () => client(KEY1, '127.0.0.1')
    const sw2 = () => client(KEY2, '127.0.0.2')
    const cmd = (c: TacacsClient, user: string, line: string): Promise<AuthorResult> => {
      const [word, ...args] = line.split(' ')
      return c.authorize(user, { cmd: word, args: [...args, '<cr>'] })
    }

    it('ASCII login: permits alice on core, refuses a wrong password, carol, alice on branch, disabled frank', async () => {
      expect((await sw1().authenticateAscii('alice', pw.alice, { remAddr: '192.0.2.7' })).status).to.equal('pass')
      expect((await sw1().authenticateAscii('alice', pw.alice + 'x')).status).to.equal('fail')
      expect((await sw1().authenticateAscii('carol', pw.carol)).status).to.equal('fail')
      expect((await sw2().authenticateAscii('alice', pw.alice)).status).to.equal('fail')
      expect((await sw2().authenticateAscii('bob', pw.bob)).status).to.equal('pass')
      expect((await sw1().authenticateAscii('frank', pw.frank)).status).to.equal('fail')
    })

    it('command authorization follows the command set and its argument rule', async () => {
      const want: [string, boolean][] = [
        ['show running-config', true],
        ['configure terminal', false],
        ['ping 10.1.2.3', true],
        ['ping 8.8.8.8', false],
        ['reload', false],
      ]
      const got = []
      for (const [line] of want) got.push([line, (await cmd(sw1(), 'alice', line)).permitted])
      expect(got).to.deep.equal(want)
    })

    it('acknowledges accounting start and stop', async () => {
      const base = ['task_id=7', 'service=shell', 'cmd=show version <cr>']
      expect((await sw1().account('alice', { flags: 'start', args: base })).status).to.equal('success')
      expect((await sw1().account('alice', { flags: 'stop', args: [...base, 'elapsed_time=3'] })).status).to.equal('success')
    })

    it('the TACACS+ log API shows authentication, authorization and accounting with rule, profile and node id', async () => {
      const authn = await k.waitForLogs(t, 'tacacs/authentication', { username: 'alice' }, 3)
      expect(authn.map((e) => [e.nas_ip, e.status, e.rule_name])).to.deep.equal([
        ['127.0.0.1', 'success', 'admins-core'],
        // A wrong password fails before the daemon evaluates the ruleset: no rule in the line.
        ['127.0.0.1', 'failure', null],
        ['127.0.0.2', 'failure', 'default'],
      ])
      expect(authn[0]).to.include({ profile: 'tac-admin', device_name: 'sw1', client_address: '192.0.2.7', node_id: nodeId })
      // Why, in the daemon's own code (its msgid).
      expect(authn.map((e) => e.result_code)).to.deep.equal(['AUTHC-PASS', 'AUTHC-FAIL', 'AUTHC-FAIL-ACL'])
      const carol = await k.waitForLogs(t, 'tacacs/authentication', { username: 'carol', status: 'failure' }, 1)
      expect(carol[0]).to.include({ rule_name: 'default', node_id: nodeId })
      expect((await k.waitForLogs(t, 'tacacs/authentication', { search: 'helpdesk-branch' }, 1))[0]).to.include({ username: 'bob', status: 'success' })

      const authz = await k.waitForLogs(t, 'tacacs/authorization', { username: 'alice' }, 5)
      expect(authz.map((e) => e.action)).to.deep.equal(['permit', 'deny', 'permit', 'deny', 'deny'])
      for (const e of authz) expect(e).to.include({ rule_name: 'admins-core', profile: 'tac-admin', service: 'shell', nas_ip: '127.0.0.1', node_id: nodeId })
      const conf = await k.waitForLogs(t, 'tacacs/authorization', { search: 'configure', action: 'deny' }, 1)
      expect(conf[0].command).to.match(/^configure terminal/)

      const acct = await k.waitForLogs(t, 'tacacs/accounting', { username: 'alice' }, 2)
      expect(acct.map((e) => e.action)).to.deep.equal(['start', 'stop'])
      for (const e of acct) expect(e).to.include({ service: 'shell', nas_ip: '127.0.0.1', node_id: nodeId })
    })
  })

  /**
   * Issue 26, finding 15: a rollback to a release made before a user was disabled, deleted, expired,
   * had the password changed or network login turned off must not let them in again. The same app and
   * daemons: one more deploy with five new users (the first release), the five revocations and a
   * deploy, then the rollback to the first release, on both daemons.
   */
  describe('a rollback never re-admits revoked access', function () {
    this.timeout(180_000)
    const tac = () => !!tacPlusNgBinary()
    const rbPw: Record<string, string> = {}
    const ids: Record<string, string> = {}
    let first: any[] = []
    let second: any[] = []
    const expired = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString()
    const NAMES = ['rb-disabled', 'rb-deleted', 'rb-expired', 'rb-password', 'rb-netoff'] as const

    const restart = async () => {
      await freeradius?.stop()
      freeradius = await k.startFreeradiusCurrent(t)
      if (!tac()) return
      await tacplus?.stop()
      tacplus = await k.startTacPlusNgCurrent(t, tacPort)
    }
    /** What each daemon answers each user with the password they had in the first release. */
    const answers = async (passwords = rbPw) => {
      // All at once: a RADIUS reject comes after FreeRADIUS's reject delay.
      const got = await Promise.all(
        NAMES.map(async (u) => {
          const [r, c] = await Promise.all([
            rad.pap(u, passwords[u], SECRET1),
            tac() ? new TacacsClient({ host: '127.0.0.1', port: tacPort, key: KEY1, localAddress: '127.0.0.1', timeoutMs: 5000 }).authenticateAscii(u, passwords[u]) : null,
          ])
          return [u, [r.code, c?.status ?? null]] as const
        }),
      )
      return Object.fromEntries(got)
    }
    const all = (radius: string, tacacs: string) => Object.fromEntries(NAMES.map((u) => [u, [radius, tac() ? tacacs : null]]))

    before(async function () {
      if (!t) return this.skip()
      for (const u of NAMES) {
        rbPw[u] = strongPassword()
        ids[u] = (await k.created(t, '/api/v1/users', { username: u, password: rbPw[u], network_login: true, group_ids: [adminsId] })).id
      }
      first = await k.deployAll(t)
      await restart()
    })

    it('the first release admits the five users on both daemons', async () => {
      expect(await answers()).to.deep.equal(all('Access-Accept', 'pass'))
    })

    it('revoked through the API and deployed: both daemons refuse them', async () => {
      await k.ok(t, 'PUT', `/api/v1/users/${ids['rb-disabled']}`, { enabled: false }, 200)
      await k.ok(t, 'DELETE', `/api/v1/users/${ids['rb-deleted']}`, undefined, [200, 204])
      await k.ok(t, 'PUT', `/api/v1/users/${ids['rb-expired']}`, { expires_at: expired }, 200)
      await k.ok(t, 'PUT', `/api/v1/users/${ids['rb-password']}`, { password: strongPassword() }, 200)
      await k.ok(t, 'PUT', `/api/v1/users/${ids['rb-netoff']}`, { network_login: false }, 200)
      second = await k.deployAll(t)
      await restart()
      expect(await answers()).to.deep.equal(all('Access-Reject', 'fail'))
    })

    it('the rollback to the first release is refused with 409 DEPLOY_ROLLBACK_REVOKES_ACCESS naming each revocation; nothing changes and both daemons still refuse', async () => {
      const iso = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z'
      const want = [
        `user rb-deleted deleted at ${iso}`,
        `user rb-disabled disabled at ${iso}`,
        `user rb-expired expired at ${expired.replace(/\./g, '\\.')}`,
        `user rb-netoff: network login turned off at ${iso}`,
        `user rb-password: password changed at ${iso}`,
      ]
      for (const d of first.filter((x) => tac() || x.daemon === 'freeradius')) {
        const r = await t.admin('POST', `/api/v1/deploys/${d.id}/rollback`)
        expect(r.status, `${d.daemon}: ${JSON.stringify(r.body)}`).to.equal(409)
        expect(r.body.code).to.equal('DEPLOY_ROLLBACK_REVOKES_ACCESS')
        expect(r.body.detail).to.include(`release ${d.release}`)
        const items = /revoked since: (.*)\. Nothing was changed/.exec(r.body.detail)![1].split('; ')
        expect(items, `${d.daemon}: ${r.body.detail}`).to.have.length(want.length)
        want.forEach((w, i) => expect(items[i], d.daemon).to.match(new RegExp(`^${w}$`)))
        // In the caller's language too.
        const ru = await t.admin('POST', `/api/v1/deploys/${d.id}/rollback`, { headers: { 'accept-language': 'ru' } })
        expect(ru.body.detail).to.include('пользователь rb-disabled отключён')
      }
      // Nothing changed: the second release is still the active one and `current`.
      for (const d of second) {
        expect((await k.ok(t, 'GET', `/api/v1/deploys/${d.id}`, undefined, 200)).status).to.equal('active')
        expect(path.basename(realpathSync(k.currentRelease(t, d.daemon)))).to.equal(d.release)
      }
      // As the daemons would be after a reload: still refused.
      await restart()
      expect(await answers()).to.deep.equal(all('Access-Reject', 'fail'))
    })

    it('a rollback that lets in no one revoked since is still allowed', async () => {
      // A user added and deployed: rolling back to the second release takes access away, and gives none back.
      await k.created(t, '/api/v1/users', { username: 'rb-new', password: strongPassword(), network_login: true })
      await k.deployAll(t)
      for (const d of second.filter((x) => tac() || x.daemon === 'freeradius')) {
        const r = await t.admin('POST', `/api/v1/deploys/${d.id}/rollback`)
        expect(r.status, JSON.stringify(r.body)).to.equal(200)
        expect(r.body.status).to.equal('active')
      }
    })
  })
})
