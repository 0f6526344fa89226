/**
 * End to end with the real tac_plus-ng: a policy made through the API,
 * rendered from one snapshot, checked with `-P`, run on loopback, and asked
 * over TACACS+ by the RFC 8907 client from the device addresses (the client
 * binds 127.20.x.y, which Linux routes on loopback): logins, exec start,
 * commands per command set and argument rules, accounting, and the log lines
 * the ingester reads. Skips without TAC_PLUS_NG.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient, TacacsProtocolError, type AuthorResult } from '../../client/index.js'
import { parseLogLine, splitList, type TacacsLogRecord } from '../../renderers/log-format.js'
import { created, defaultRule, RULES, renderAndRun, renderTacPlusNg, startAaaApp, strongPassword, updated, type DaemonRun } from './support.js'

describe('tacacs e2e: tac_plus-ng runs the rendered policy', function () {
  let t: TestApp
  let run: DaemonRun
  const pw: Record<string, string> = {}
  const users: Record<string, any> = {}
  const devices: Record<string, any> = {}
  const KEY_SW1 = `k#1 {x} %y 'z' ;|&!=,()[]`
  const KEY_SW2 = 'branch-key'
  const KEY_NET = 'net24-key'

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()
    const admins = await created(t, '/api/v1/user-groups', { name: 'Net Admins' })
    const helpdesk = await created(t, '/api/v1/user-groups', { name: 'helpdesk' })
    for (const [name, body] of [
      ['alice', { group_ids: [admins.id] }],
      ['bob', { group_ids: [helpdesk.id] }],
      ['carol', {}],
      ['eve', { enabled: false, group_ids: [admins.id] }],
    ] as const) {
      pw[name] = strongPassword()
      users[name] = await created(t, '/api/v1/users', { username: name, password: pw[name], network_login: true, ...body })
    }
    // Network login on, but no password since: known to the daemon, no login.
    users.dave = await created(t, '/api/v1/users', { username: 'dave', network_login: true, group_ids: [admins.id] })
    expect(users.dave.network_verifiers_set).to.equal(false)

    const core = await created(t, '/api/v1/device-groups', { name: 'core' })
    const dc = await created(t, '/api/v1/device-groups', { name: 'dc', parent_id: core.id })
    const branch = await created(t, '/api/v1/device-groups', { name: 'branch' })
    devices.sw1 = await created(t, '/api/v1/devices', { name: 'sw1', address: '127.20.0.2', device_group_id: dc.id, tacacs_key: KEY_SW1 })
    devices.sw2 = await created(t, '/api/v1/devices', { name: 'sw2', address: '127.20.0.3', device_group_id: branch.id, tacacs_key: KEY_SW2 })
    devices.net24 = await created(t, '/api/v1/devices', { name: 'net24', address: '127.20.1.0/24', tacacs_key: KEY_NET })
    devices.nokey = await created(t, '/api/v1/devices', { name: 'nokey', address: '127.20.1.5' })
    devices.off = await created(t, '/api/v1/devices', { name: 'off', address: '127.20.1.6', tacacs_key: 'off-key', enabled: false })

    const showOnly = await created(t, '/api/v1/tacacs/command-sets', {
      name: 'show-only',
      commands: [
        { command: 'show', action: 'permit' },
        { command: 'configure terminal', action: 'deny' },
      ],
    })
    const ops = await created(t, '/api/v1/tacacs/command-sets', {
      name: 'ops',
      commands: [
        {
          command: 'ping',
          action: 'permit',
          arguments: [
            { match_type: 'exact', value: '127.0.0.1' },
            { match_type: 'prefix', value: '10.' },
          ],
        },
        { command: 'interface', action: 'permit', arguments: [{ match_type: 'regex', value: 'gi[0-9]+' }] },
        { command: 'reload', action: 'deny' },
      ],
    })
    const admin = await created(t, '/api/v1/tacacs/profiles', {
      name: 'admin',
      privilege_level: 15,
      shell_attributes: [{ name: 'idletime', value: '30' }],
      command_set_ids: [ops.id, showOnly.id],
      default_action: 'deny',
    })
    const help = await created(t, '/api/v1/tacacs/profiles', { name: 'help', privilege_level: 1, command_set_ids: [showOnly.id] })
    const anything = await created(t, '/api/v1/tacacs/profiles', { name: 'anything', privilege_level: 5, default_action: 'permit' })

    await created(t, RULES, { name: 'alice-core', who: { user_id: users.alice.id }, where: { device_group_id: core.id }, tacacs_profile_id: admin.id })
    await created(t, RULES, { name: 'helpdesk-branch', who: { group_id: helpdesk.id }, where: { device_group_id: branch.id }, tacacs_profile_id: help.id })
    await created(t, RULES, { name: 'admins-net24', who: { group_id: admins.id }, where: { device_id: devices.net24.id }, tacacs_profile_id: anything.id })
    await created(t, RULES, { name: 'bob-sw1-denied', who: { user_id: users.bob.id }, where: { device_id: devices.sw1.id } })
    await created(t, RULES, { name: 'carol-off', enabled: false, who: { user_id: users.carol.id }, where: { device_group_id: core.id }, tacacs_profile_id: admin.id })
    const def = await defaultRule(t)
    expect(def.tacacs_profile_id).to.equal(null)

    run = await renderAndRun(t)
  })

  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  const client = (key: string, from: string) => new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key, localAddress: from, timeoutMs: 5000 })
  const sw1 = () => client(KEY_SW1, '127.20.0.2')
  const sw2 = () => client(KEY_SW2, '127.20.0.3')
  const net = (host: number) => client(KEY_NET, `127.20.1.${host}`)
  /** A command line as a Cisco NAS sends it: the first word, then each argument, then `<cr>`. */
  const cmd = (c: TacacsClient, user: string, line: string): Promise<AuthorResult> => {
    const [word, ...args] = line.split(' ')
    return c.authorize(user, { cmd: word, args: [...args, '<cr>'] })
  }

  it('renders the same bytes from the same data, in one 0600 file', async () => {
    const [a, b] = [await renderTacPlusNg(t), await renderTacPlusNg(t)]
    expect(a).to.deep.equal(b)
    expect(a.map((f) => [f.path, f.mode])).to.deep.equal([['tac_plus-ng.cfg', 0o600]])
    // Device groups nest, the user group's name is written as typed, keys are escaped.
    expect(run.config).to.match(/device "group:core" \{\n\s+device "group:dc" \{\n\s+device "sw1" \{/)
    expect(run.config).to.contain(`key = "${KEY_SW1}"`)
    expect(run.config).to.contain('group "Net Admins"\n')
  })

  it('logs a user in (ASCII and PAP) where a rule with a profile permits, and refuses a wrong password', async () => {
    expect((await sw1().authenticateAscii('alice', pw.alice, { remAddr: '192.0.2.7' })).status).to.equal('pass')
    expect((await sw1().authenticatePap('alice', pw.alice)).status).to.equal('pass')
    const wrong = await sw1().authenticateAscii('alice', pw.alice + 'x')
    expect(wrong.status).to.equal('fail')
  })

  it('refuses a login where no rule permits: the default rule has no profile, a rule without a profile denies, a disabled rule is skipped', async () => {
    const [aliceBranch, bobSw1, bobSw2, carolSw1] = await Promise.all([
      sw2().authenticateAscii('alice', pw.alice),
      sw1().authenticateAscii('bob', pw.bob),
      sw2().authenticateAscii('bob', pw.bob),
      sw1().authenticatePap('carol', pw.carol),
    ])
    expect(aliceBranch.status, 'alice on a branch device: default rule').to.equal('fail')
    expect(bobSw1.status, 'bob on sw1: rule without profile').to.equal('fail')
    expect(bobSw2.status, 'bob on sw2: helpdesk rule').to.equal('pass')
    expect(carolSw1.status, 'carol: her rule is disabled').to.equal('fail')
  })

  it('starts an exec shell with the profile priv-lvl and shell attributes', async () => {
    const r = await sw1().authorize('alice', { cmd: '' })
    expect(r.permitted).to.equal(true)
    expect(r.args).to.include.members(['priv-lvl=15', 'idletime=30'])
    expect((await sw2().authorize('bob', { cmd: '' })).args).to.deep.equal(['priv-lvl=1'])
    expect((await net(9).authorize('alice', { cmd: '' })).args).to.deep.equal(['priv-lvl=5'])
  })

  it('authorizes commands by the command sets in order, the argument rules, and the default action', async () => {
    const expectations: [string, boolean][] = [
      ['show running-config', true],
      ['show', true],
      ['SHOW Running-Config', true],
      ['configure terminal', false],
      ['ping 127.0.0.1', true],
      ['ping 10.1.2.3', true],
      ['ping 8.8.8.8', false],
      ['ping', false],
      ['interface Gi0', true],
      ['interface GI12', true],
      ['interface vlan 1', false],
      ['reload', false],
      ['reload in 5', false],
      ['write memory', false],
      ['showrun', false],
    ]
    const got = await Promise.all(expectations.map(([line]) => cmd(sw1(), 'alice', line)))
    expect(got.map((r, i) => [expectations[i][0], r.permitted])).to.deep.equal(expectations)
    // Another profile, another answer: helpdesk on its branch device.
    expect((await cmd(sw2(), 'bob', 'show version')).permitted).to.equal(true)
    expect((await cmd(sw2(), 'bob', 'ping 127.0.0.1')).permitted).to.equal(false)
    // A profile whose default is permit.
    expect((await cmd(net(9), 'alice', 'reload')).permitted).to.equal(true)
  })

  it('selects the most specific device: a device without a key is refused, a disabled one falls to its wider prefix', async () => {
    // 127.20.1.5 is the key-less device inside net24: not net24's key, not its rules.
    let refused: AuthorResult | Error
    try {
      refused = await net(5).authorize('alice', { cmd: '' })
    } catch (e) {
      refused = e as Error
    }
    if (refused instanceof Error) expect(refused).to.be.instanceOf(TacacsProtocolError)
    else expect(refused.permitted).to.equal(false)
    // 127.20.1.6 is the disabled device: the daemon does not know it, net24 answers.
    expect((await net(6).authorize('alice', { cmd: '' })).permitted).to.equal(true)
  })

  it('knows a user without a network password for authorization, never for login; forgets a disabled user', async () => {
    expect((await net(9).authenticateAscii('dave', 'anything-at-all')).status).to.equal('fail')
    expect((await net(9).authorize('dave', { cmd: '' })).permitted).to.equal(true)
    expect((await net(9).authorize('eve', { cmd: '' })).permitted).to.equal(false)
  })

  it('acknowledges accounting start, watchdog and stop', async () => {
    const base = ['task_id=42', 'service=shell']
    expect((await sw1().account('alice', { flags: 'start', args: [...base, 'cmd=show version <cr>'] })).status).to.equal('success')
    expect((await sw1().account('alice', { flags: 'watchdog', args: [...base, 'elapsed_time=5'] })).status).to.equal('success')
    expect((await sw1().account('alice', { flags: 'stop', args: [...base, 'elapsed_time=9'] })).status).to.equal('success')
  })

  it('writes one parseable line per event, with user, device, rule, profile and verdict', async () => {
    // A user name with a TAB, a quote and a backslash: escaped by the daemon, restored by the parser.
    const odd = 'o\tdd"na\\me'
    await sw1().authorize(odd, { cmd: 'show', args: ['<cr>'] })
    const records: TacacsLogRecord[] = []
    for (const f of readdirSync(run.logDir).sort()) {
      for (const line of readFileSync(path.join(run.logDir, f), 'utf8').split('\n')) {
        if (!line) continue
        const r = parseLogLine(line)
        expect(r, `unparsed line in ${f}: ${JSON.stringify(line)}`).to.not.equal(null)
        records.push(r!)
      }
    }
    const authc = records.filter((r) => r.kind === 'authentication')
    expect(authc.find((r) => r.user === 'alice' && r.msgid === 'AUTHC-PASS' && r.device === 'sw1')).to.include({
      device_address: '127.20.0.2',
      client_address: '192.0.2.7',
      rule: 'alice-core',
      profile: 'admin',
      result: 'permit',
      authen_type: 'ascii',
    })
    expect(authc.find((r) => r.user === 'bob' && r.device === 'sw1')).to.include({ result: 'deny', rule: 'bob-sw1-denied', profile: '' })
    const authz = records.filter((r) => r.kind === 'authorization')
    const denied = authz.find((r) => r.user === 'alice' && r.kind === 'authorization' && r.cmd === 'configure terminal <cr>')
    expect(denied).to.include({ msgid: 'AUTHZ-FAIL', result: 'deny', rule: 'alice-core', profile: 'admin', service: 'shell' })
    expect(splitList((denied as any).args)).to.deep.equal(['cmd=configure', 'cmd-arg=terminal', 'cmd-arg=<cr>'])
    const shell = authz.find((r) => r.user === 'alice' && r.device === 'sw1' && r.msgid === 'AUTHZ-PASS-ADD')
    expect(splitList((shell as any).rargs)).to.include.members(['priv-lvl=15', 'idletime=30'])
    expect(authz.find((r) => r.user === odd), 'the odd user name comes back exactly').to.include({ device: 'sw1', result: 'deny' })
    const acct = records.filter((r) => r.kind === 'accounting' && r.user === 'alice')
    expect(acct.map((r) => [r.msgid, (r as any).acct_type])).to.deep.equal([
      ['ACCT-START', 'start'],
      ['ACCT-UPDATE', 'update'],
      ['ACCT-STOP', 'stop'],
    ])
    for (const r of records) expect(r.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d$/)
  })

  it('renders a profile edit into the next configuration', async () => {
    const before = (await renderTacPlusNg(t))[0].content
    const help = (await t.admin('GET', '/api/v1/tacacs/profiles?search=help')).body.items.find((p: any) => p.name === 'help')
    await updated(t, `/api/v1/tacacs/profiles/${help.id}`, { privilege_level: 3 })
    const after = (await renderTacPlusNg(t))[0].content
    expect(after).to.not.equal(before)
    expect(after).to.contain('set priv-lvl = 3')
  })
})
