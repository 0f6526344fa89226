/** POST /api/v1/aaa/policy/test and GET …/rules/{rule_id}/tacacs/preview: decisions, traces, attributes, commands, snippets. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import {
  clearRules, createCommandSet, createDevice, createDeviceGroup, createRadiusProfile, createRule, createTacacsProfile, createUser, createUserGroup, defaultRule,
  expectError, freshNet, RULES, startPolicyApp,
} from './helpers.js'

const TEST = '/api/v1/aaa/policy/test'
const STRONG = 'Tq-policy-test-9zX'

describe('AAA policy: the policy test and the TACACS+ preview', () => {
  let t: TestApp
  let alice: any, bob: any, carol: any, dave: any, noc: any
  let core: any, dc: any, rack: any, branch: any
  let sw1: any, rack2: any, sw2: any, sw3: any, noKey: any, off: any, net24: any
  let showOnly: any, tpAdmin: any, tpRead: any, rpAdmin: any
  let rOff: any, rAlice: any, rNocCore: any, rBobDeny: any, rBobBranch: any, def: any
  let prefix: string

  const test = async (body: Record<string, unknown>) => {
    const r = await t.admin('POST', TEST, { body: { protocol: 'tacacs', ...body } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  const steps = (res: any) => res.trace.map((s: any) => [s.name, s.matched, s.reason])

  before(async () => {
    t = await startPolicyApp()
    noc = await createUserGroup(t)
    // alice and bob have network passwords (verifiers), so RADIUS and TACACS+ logins can be checked.
    ;[alice, bob, carol, dave] = await Promise.all([
      createUser(t, { group_ids: [noc.id], password: STRONG }),
      createUser(t, { password: STRONG }),
      createUser(t, { enabled: false, group_ids: [noc.id] }),
      createUser(t, { network_login: false, group_ids: [noc.id] }),
    ])
    core = await createDeviceGroup(t)
    dc = await createDeviceGroup(t, { parent_id: core.id })
    rack = await createDeviceGroup(t, { parent_id: dc.id })
    branch = await createDeviceGroup(t)
    prefix = freshNet()
    net24 = await createDevice(t, { address: `${prefix}.0/24` })
    sw1 = await createDevice(t, { address: `${prefix}.1`, device_group_id: rack.id })
    ;[rack2, sw2, sw3, noKey, off] = await Promise.all([
      createDevice(t, { device_group_id: rack.id }),
      createDevice(t, { device_group_id: branch.id }),
      createDevice(t),
      createDevice(t, { device_group_id: rack.id, tacacs_key: null }),
      createDevice(t, { device_group_id: rack.id, enabled: false }),
    ])
    showOnly = await createCommandSet(t, {
      commands: [
        { command: 'show', action: 'permit' },
        { command: 'configure terminal', action: 'deny' },
      ],
    })
    ;[tpAdmin, tpRead, rpAdmin] = await Promise.all([
      createTacacsProfile(t, { privilege_level: 15, shell_attributes: [{ name: 'idletime', value: '30' }], command_set_ids: [showOnly.id], default_action: 'deny' }),
      createTacacsProfile(t, { privilege_level: 1 }),
      createRadiusProfile(t, { attributes: [{ name: 'Service-Type', value: 'Administrative-User' }, { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' }] }),
    ])
    await clearRules(t)
    rOff = await createRule(t, { name: 'off-rule', enabled: false, who: { user_id: alice.id }, where: { device_id: sw1.id }, tacacs_profile_id: tpRead.id })
    rAlice = await createRule(t, { name: 'alice-sw1', who: { user_id: alice.id }, where: { device_id: sw1.id }, tacacs_profile_id: tpAdmin.id })
    rNocCore = await createRule(t, { name: 'noc-core', who: { group_id: noc.id }, where: { device_group_id: core.id }, tacacs_profile_id: tpRead.id, radius_profile_id: rpAdmin.id })
    rBobDeny = await createRule(t, { name: 'bob-sw3', who: { user_id: bob.id }, where: { device_id: sw3.id }, radius_profile_id: rpAdmin.id })
    rBobBranch = await createRule(t, { name: 'bob-branch', who: { user_id: bob.id }, where: { device_group_id: branch.id }, tacacs_profile_id: tpRead.id })
    def = await defaultRule(t)
  })
  after(async () => t?.stop())

  describe('decisions', () => {
    it('a user rule: permit with its profile, priv-lvl and shell attributes; the disabled rule before it skipped', async () => {
      const r = await test({ username: alice.username, device_id: sw1.id })
      expect(r).to.include({ decision: 'permit', command_decision: null })
      expect(r.reason).to.contain('alice-sw1').and.contain(tpAdmin.name)
      expect(r.user).to.deep.equal({ id: alice.id, username: alice.username })
      expect(r.device).to.deep.equal({ id: sw1.id, name: sw1.name, address: sw1.address })
      expect(r.matched_rule).to.deep.equal({ id: rAlice.id, name: 'alice-sw1', position: 1 })
      expect(r.profile).to.deep.equal({ type: 'tacacs', id: tpAdmin.id, name: tpAdmin.name })
      expect(r.attributes).to.deep.equal([{ name: 'priv-lvl', value: '15' }, { name: 'idletime', value: '30' }])
      expect(steps(r)).to.deep.equal([
        ['off-rule', false, 'disabled'],
        ['alice-sw1', true, `matched: user ${alice.username}, device ${sw1.name}`],
      ])
      expect(r.trace[0]).to.deep.equal({ rule_id: rOff.id, name: 'off-rule', position: 0, enabled: false, matched: false, reason: 'disabled' })
    })

    it('a group rule on a nested device group: a member on a device two levels below the group', async () => {
      const r = await test({ username: alice.username, device_id: rack2.id })
      expect(r.decision).to.equal('permit')
      expect(r.matched_rule.name).to.equal('noc-core')
      expect(r.profile.id).to.equal(tpRead.id)
      expect(r.attributes).to.deep.equal([{ name: 'priv-lvl', value: '1' }])
      expect(steps(r)).to.deep.equal([
        ['off-rule', false, 'disabled'],
        ['alice-sw1', false, `device ${rack2.name} is not ${sw1.name}`],
        ['noc-core', true, `matched: user ${alice.username} in group ${noc.name}, device ${rack2.name} in group ${core.name}`],
      ])
    })

    it('a non-member falls through the group rule to the default rule, which denies without a profile', async () => {
      const r = await test({ username: bob.username, device_id: rack2.id })
      expect(r.decision).to.equal('deny')
      expect(r.matched_rule).to.deep.equal({ id: def.id, name: 'default', position: def.position })
      expect(r.profile).to.equal(null)
      expect(r.attributes).to.deep.equal([])
      expect(r.reason).to.contain('default').and.contain('no TACACS+ profile')
      expect(steps(r)).to.deep.equal([
        ['off-rule', false, 'disabled'],
        ['alice-sw1', false, `user is not ${alice.username}`],
        ['noc-core', false, `user ${bob.username} is not a member of group ${noc.name}`],
        ['bob-sw3', false, `device ${rack2.name} is not ${sw3.name}`],
        ['bob-branch', false, `device ${rack2.name} is not in group ${branch.name}`],
        ['default', true, 'matched: the default rule (any user, any device)'],
      ])
    })

    it('a device group rule: the device in that group', async () => {
      const r = await test({ username: bob.username, device_id: sw2.id })
      expect(r.decision).to.equal('permit')
      expect(r.matched_rule.name).to.equal('bob-branch')
      expect(r.trace.at(-1).reason).to.equal(`matched: user ${bob.username}, device ${sw2.name} in group ${branch.name}`)
    })

    it('a member on a device outside the group: device … is not in group …', async () => {
      const r = await test({ username: alice.username, device_id: sw2.id })
      expect(r.decision).to.equal('deny')
      expect(steps(r)[2]).to.deep.equal(['noc-core', false, `device ${sw2.name} is not in group ${core.name}`])
      expect(r.matched_rule.name).to.equal('default')
    })

    it('a rule without a TACACS+ profile denies TACACS+ (first match decides) and accepts RADIUS with its RADIUS profile', async () => {
      const tac = await test({ username: bob.username, device_id: sw3.id })
      expect(tac).to.include({ decision: 'deny' })
      expect(tac.matched_rule.name).to.equal('bob-sw3')
      expect(tac.profile).to.equal(null)
      expect(tac.reason).to.contain('bob-sw3').and.contain('no TACACS+ profile')
      expect(tac.trace.at(-1).name).to.equal('bob-sw3')
      const rad = await test({ protocol: 'radius', username: bob.username, device_id: sw3.id })
      expect(rad.decision).to.equal('permit')
      expect(rad.profile).to.deep.equal({ type: 'radius', id: rpAdmin.id, name: rpAdmin.name })
      expect(rad.attributes).to.deep.equal([{ name: 'Service-Type', value: 'Administrative-User' }, { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' }])
    })

    it('RADIUS follows the same order with the RADIUS profile: a rule without one rejects', async () => {
      const r = await test({ protocol: 'radius', username: alice.username, device_id: sw1.id })
      expect(r.decision).to.equal('deny')
      expect(r.matched_rule.name).to.equal('alice-sw1')
      expect(r.reason).to.contain('no RADIUS profile')
      const group = await test({ protocol: 'radius', username: alice.username, device_id: rack2.id })
      expect(group.decision).to.equal('permit')
      expect(group.matched_rule.name).to.equal('noc-core')
    })

    it('the default rule with a profile permits anyone anywhere; disabled, nothing matches and the answer is deny', async () => {
      await t.admin('PUT', `${RULES}/${def.id}`, { body: { tacacs_profile_id: tpRead.id } })
      try {
        const r = await test({ username: bob.username, device_id: rack2.id })
        expect(r).to.include({ decision: 'permit' })
        expect(r.matched_rule.name).to.equal('default')
        expect(r.profile.id).to.equal(tpRead.id)
        await t.admin('PUT', `${RULES}/${def.id}`, { body: { enabled: false } })
        const none = await test({ username: bob.username, device_id: rack2.id })
        expect(none.decision).to.equal('deny')
        expect(none.matched_rule).to.equal(null)
        expect(none.trace.at(-1)).to.include({ name: 'default', matched: false, reason: 'disabled' })
        expect(none.reason).to.contain('no enabled rule matched')
      } finally {
        await t.admin('PUT', `${RULES}/${def.id}`, { body: { tacacs_profile_id: null, enabled: true } })
      }
    })

    it('a disabled rule is skipped, and counts again once enabled', async () => {
      await t.admin('PUT', `${RULES}/${rOff.id}`, { body: { enabled: true } })
      try {
        const r = await test({ username: alice.username, device_id: sw1.id })
        expect(r.matched_rule.name).to.equal('off-rule')
        expect(r.profile.id).to.equal(tpRead.id)
      } finally {
        await t.admin('PUT', `${RULES}/${rOff.id}`, { body: { enabled: false } })
      }
    })

    it('a service other than shell: the profile gives it no verdict, so deny', async () => {
      const r = await test({ username: alice.username, device_id: sw1.id, service: 'ppp' })
      expect(r.decision).to.equal('deny')
      expect(r.matched_rule.name).to.equal('alice-sw1')
      expect(r.profile.id).to.equal(tpAdmin.id)
      expect(r.attributes).to.deep.equal([])
      expect(r.reason).to.contain('service ppp')
    })
  })

  describe('commands, through the profile\'s command sets', () => {
    it('permits a command a set permits, naming the entry', async () => {
      const r = await test({ username: alice.username, device_id: sw1.id, command: 'show running-config' })
      expect(r.decision).to.equal('permit')
      expect(r.command_decision.decision).to.equal('permit')
      expect(r.command_decision.matched).to.include({ command_set_id: showOnly.id, command_set_name: showOnly.name, index: 0, command: 'show' })
      expect(r.command_decision.reason).to.be.a('string').and.not.empty
    })

    it('denies a command a set denies', async () => {
      const r = await test({ username: alice.username, device_id: sw1.id, command: 'configure terminal' })
      expect(r.decision).to.equal('permit')
      expect(r.command_decision.decision).to.equal('deny')
      expect(r.command_decision.matched).to.include({ index: 1, command: 'configure terminal' })
    })

    it("denies a command no set matches by the profile's default action", async () => {
      const r = await test({ username: alice.username, device_id: sw1.id, command: 'reload' })
      expect(r.command_decision.decision).to.equal('deny')
      expect(r.command_decision.matched).to.equal(null)
    })

    it('decides no command when the ruleset denies', async () => {
      const r = await test({ username: bob.username, device_id: sw3.id, command: 'show version' })
      expect(r.decision).to.equal('deny')
      expect(r.command_decision).to.equal(null)
    })
  })

  describe('who and where the daemon does not know', () => {
    it('an address no device contains: deny before any rule', async () => {
      const r = await test({ username: alice.username, nas_ip: '192.0.2.99' })
      expect(r).to.include({ decision: 'deny', device: null, matched_rule: null, profile: null })
      expect(r.trace).to.deep.equal([])
      expect(r.reason).to.contain('192.0.2.99')
    })

    it('a device id that names nothing: deny', async () => {
      const r = await test({ username: alice.username, device_id: randomUUID() })
      expect(r).to.include({ decision: 'deny', device: null })
      expect(r.reason).to.contain('no device')
    })

    it('an address resolves to the most specific prefix containing it', async () => {
      const host = await test({ username: alice.username, nas_ip: `${prefix}.1` })
      expect(host.device.id).to.equal(sw1.id)
      expect(host.matched_rule.name).to.equal('alice-sw1')
      const net = await test({ username: alice.username, nas_ip: `${prefix}.77` })
      expect(net.device.id).to.equal(net24.id)
      expect(net.matched_rule.name).to.equal('default')
    })

    it('a disabled device, or one without a TACACS+ key: deny', async () => {
      const d = await test({ username: alice.username, device_id: off.id })
      expect(d.decision).to.equal('deny')
      expect(d.reason).to.contain('disabled')
      expect(d.trace).to.deep.equal([])
      const k = await test({ username: alice.username, device_id: noKey.id })
      expect(k.decision).to.equal('deny')
      expect(k.reason).to.contain('no TACACS+ key')
      // RADIUS does not need the TACACS+ key.
      expect((await test({ protocol: 'radius', username: alice.username, device_id: noKey.id })).decision).to.equal('permit')
    })

    it('an unknown user, a disabled user, a user without network login: deny before any rule', async () => {
      const u = await test({ username: 'nobody-here', device_id: sw1.id })
      expect(u).to.include({ decision: 'deny', user: null })
      expect(u.reason).to.contain('unknown')
      const c = await test({ username: carol.username, device_id: rack2.id })
      expect(c.decision).to.equal('deny')
      expect(c.user.id).to.equal(carol.id)
      expect(c.reason).to.contain('disabled')
      expect(c.trace).to.deep.equal([])
      const d = await test({ username: dave.username, device_id: rack2.id })
      expect(d.decision).to.equal('deny')
      expect(d.reason).to.contain('network login')
    })

    it('a name in another case is another name to the daemon: deny, pointing at the account', async () => {
      const r = await test({ username: alice.username.toUpperCase(), device_id: sw1.id })
      expect(r).to.include({ decision: 'deny', user: null })
      expect(r.reason).to.contain('exactly').and.contain(alice.username)
      expect(r.trace).to.deep.equal([])
    })

    it('RADIUS needs the device to have a RADIUS secret', async () => {
      const noSecret = await createDevice(t, { device_group_id: rack.id, radius_secret: null })
      const r = await test({ protocol: 'radius', username: alice.username, device_id: noSecret.id })
      expect(r.decision).to.equal('deny')
      expect(r.reason).to.contain('no RADIUS secret')
      expect((await test({ username: alice.username, device_id: noSecret.id })).decision).to.equal('permit')
    })

    it('RADIUS: a device without a secret (or disabled) inside a wider device with one is answered as the wider client, whose WHERE the rules see', async () => {
      const net = freshNet()
      const wide = await createDevice(t, { address: `${net}.0/24`, device_group_id: branch.id })
      const inner = await createDevice(t, { address: `${net}.7`, device_group_id: rack.id, radius_secret: null })
      const innerOff = await createDevice(t, { address: `${net}.8`, device_group_id: rack.id, enabled: false })
      // bob: bob-sw3 (sw3 only) is not it; the inner device is in rack, but the client is wide, in branch: bob-branch decides.
      for (const body of [{ device_id: inner.id }, { nas_ip: `${net}.7` }, { device_id: innerOff.id }]) {
        const r = await test({ protocol: 'radius', username: alice.username, ...body })
        expect(r.device, JSON.stringify(body)).to.deep.equal({ id: wide.id, name: wide.name, address: wide.address })
        expect(r.reason).to.contain(`wider client ${wide.name}`)
        // alice is in noc; noc-core (core: rack is below it) would match the inner device, not the wide one in branch: the default rule denies.
        expect(r.trace.map((x: any) => x.name)).to.include(rNocCore.name)
        expect(r.trace.find((x: any) => x.name === rNocCore.name).matched).to.equal(false)
        expect(r.matched_rule.id).to.equal(def.id)
      }
      // TACACS+ keeps the key-less device's own answer (tac_plus-ng writes it with its address and no key).
      expect((await test({ username: alice.username, device_id: inner.id })).device.id).to.equal(inner.id)
    })
  })

  describe('command lines, split as a NAS splits them (space and TAB only)', () => {
    it('keeps NBSP and the other Unicode spaces inside a word, and takes TAB as a separator', async () => {
      const oneWord = await createCommandSet(t, { commands: [{ command: 'show', action: 'permit', arguments: [{ match_type: 'regex', value: '\\S+' }] }, { command: 'show', action: 'deny' }] })
      const tp = await createTacacsProfile(t, { privilege_level: 1, command_set_ids: [oneWord.id], default_action: 'deny' })
      const u = await createUser(t, { password: STRONG })
      await createRule(t, { name: `words-${u.username}`, who: { user_id: u.id }, where: { device_id: sw2.id }, tacacs_profile_id: tp.id, position: 0 })
      const decide = async (command: string) => (await test({ username: u.username, device_id: sw2.id, command })).command_decision.decision
      // One argument, `a<NBSP>b`, to the NAS and the daemon; JavaScript's \s made it two.
      expect(await decide('show a\u00a0b')).to.equal('permit')
      expect(await decide('show a\u2003b\u3000c')).to.equal('permit')
      expect(await decide('show\ta\t\tb')).to.equal('deny')
      expect(await decide(' \tshow  version\t ')).to.equal('permit')
    })

    it('denies a line holding LF or CR, as tac_plus-ng denies it, even where the words would be permitted', async () => {
      // tpAdmin (alice on sw1) permits `show` and denies `configure terminal`, default deny.
      for (const command of ['show\nversion', 'show version\r', 'show\r\nversion', 'configure\nterminal']) {
        const r = await test({ username: alice.username, device_id: sw1.id, command })
        expect(r.command_decision, JSON.stringify(command)).to.include({ decision: 'deny', matched: null })
        expect(r.command_decision.reason).to.contain('control characters')
      }
    })

    it('takes a last word `<cr>` as the end marker (`show <cr>` is decided as `show`), and refuses one anywhere else: 422 at command', async () => {
      const r = await test({ username: alice.username, device_id: sw1.id, command: 'show version <CR>' })
      expect(r.command_decision).to.include({ decision: 'permit' })
      for (const command of ['show <cr> version', 'show x <cr> <cr>', '<cr>', '<cr> show', 'show\t<Cr>\tx']) {
        const res = await t.admin('POST', TEST, { body: { protocol: 'tacacs', username: alice.username, device_id: sw1.id, command } })
        expectError(res, 422, 'VALIDATION_FAILED', 'command')
        expect(res.body.detail, command).to.contain('<cr>')
      }
    })
  })

  describe('the login: the authentication method, and the password material the daemon holds', () => {
    let noPassword: any, chapUser: any
    before(async () => {
      ;[noPassword, chapUser] = await Promise.all([createUser(t, { group_ids: [noc.id] }), createUser(t, { group_ids: [noc.id], password: STRONG, chap_enabled: true })])
    })
    const on = () => ({ device_id: rack2.id })

    it('RADIUS: a user without network password material is rejected (no verifier), whatever the method', async () => {
      for (const method of [undefined, 'pap', 'chap', 'mschapv2']) {
        const r = await test({ protocol: 'radius', username: noPassword.username, ...on(), ...(method ? { method } : {}) })
        expect(r, String(method)).to.include({ decision: 'deny', method: method ?? 'pap', matched_rule: null })
        expect(r.reason).to.contain('no network password').and.contain('network_verifiers_set')
        expect(r.trace).to.deep.equal([])
      }
      // A user with a password is accepted by PAP (the default) and MS-CHAPv2.
      expect(await test({ protocol: 'radius', username: alice.username, ...on() })).to.include({ decision: 'permit', method: 'pap' })
      expect(await test({ protocol: 'radius', username: alice.username, ...on(), method: 'mschapv2' })).to.include({ decision: 'permit', method: 'mschapv2' })
    })

    it('RADIUS CHAP: accepted for a user with chap_enabled, rejected with the reason for anyone else', async () => {
      expect(await test({ protocol: 'radius', username: chapUser.username, ...on(), method: 'chap' })).to.include({ decision: 'permit', method: 'chap' })
      const r = await test({ protocol: 'radius', username: alice.username, ...on(), method: 'chap' })
      expect(r).to.include({ decision: 'deny', method: 'chap' })
      expect(r.reason).to.contain('CHAP is not supported').and.contain('chap_enabled')
    })

    it('TACACS+: without a method the answer is for authorization (the daemon authorizes by the ruleset alone); PAP and ASCII need the password material', async () => {
      expect(await test({ username: noPassword.username, ...on() })).to.include({ decision: 'permit', method: null })
      for (const method of ['pap', 'ascii']) {
        const r = await test({ username: noPassword.username, ...on(), method })
        expect(r, method).to.include({ decision: 'deny', method, command_decision: null })
        expect(r.reason).to.contain('no network password')
        expect(await test({ username: alice.username, ...on(), method })).to.include({ decision: 'permit', method })
      }
    })

    it('TACACS+: CHAP and MS-CHAPv2 work for a user with chap_enabled (tac_plus-ng is given the kept password) and are rejected with the reason for anyone else; enable under a profile with enable_mode none is rejected', async () => {
      for (const method of ['chap', 'mschapv2']) {
        expect(await test({ username: chapUser.username, ...on(), method }), method).to.include({ decision: 'permit', method })
        const r = await test({ username: alice.username, ...on(), method })
        expect(r, `${method} ${alice.username}`).to.include({ decision: 'deny', method, matched_rule: null })
        expect(r.reason).to.contain('is not supported for user').and.contain('chap_enabled').and.contain('tac_plus-ng needs the cleartext password')
        const none = await test({ username: noPassword.username, ...on(), method })
        expect(none.reason, method).to.contain('no network password')
      }
      for (const u of [alice, chapUser]) {
        const r = await test({ username: u.username, ...on(), method: 'enable' })
        expect(r, `enable ${u.username}`).to.include({ decision: 'deny', method: 'enable' })
        expect(r.reason).to.contain('enable_mode is none')
      }
    })
  })

  describe('bad requests', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['neither device_id nor nas_ip', { username: 'a', protocol: 'tacacs' }, 'VALIDATION_FAILED', 'device_id'],
      ['both device_id and nas_ip', { username: 'a', protocol: 'tacacs', device_id: randomUUID(), nas_ip: '10.0.0.1' }, 'VALIDATION_FAILED', 'nas_ip'],
      ['a malformed nas_ip', { username: 'a', protocol: 'tacacs', nas_ip: '10.0.0.300' }, 'VALIDATION_FAILED', 'nas_ip'],
      ['an unknown protocol', { username: 'a', protocol: 'ldap', nas_ip: '10.0.0.1' }, 'VALIDATION_FAILED', 'protocol'],
      ['no protocol', { username: 'a', nas_ip: '10.0.0.1' }, 'FIELD_REQUIRED', 'protocol'],
      ['an empty username', { username: '', protocol: 'tacacs', nas_ip: '10.0.0.1' }, 'VALIDATION_FAILED', 'username'],
      ['a 65-character username', { username: 'u'.repeat(65), protocol: 'tacacs', nas_ip: '10.0.0.1' }, 'VALIDATION_FAILED', 'username'],
      ['a 513-character command', { username: 'a', protocol: 'tacacs', nas_ip: '10.0.0.1', command: 'c'.repeat(513) }, 'VALIDATION_FAILED', 'command'],
      ['a command for RADIUS', { username: 'a', protocol: 'radius', nas_ip: '10.0.0.1', command: 'show' }, 'VALIDATION_FAILED', 'command'],
      ['a service for RADIUS', { username: 'a', protocol: 'radius', nas_ip: '10.0.0.1', service: 'shell' }, 'VALIDATION_FAILED', 'service'],
      ['a priv_lvl for RADIUS', { username: 'a', protocol: 'radius', nas_ip: '10.0.0.1', priv_lvl: 15 }, 'VALIDATION_FAILED', 'priv_lvl'],
      ['a priv_lvl of 16', { username: 'a', protocol: 'tacacs', nas_ip: '10.0.0.1', priv_lvl: 16 }, 'VALIDATION_FAILED', 'priv_lvl'],
      ['a command under another service', { username: 'a', protocol: 'tacacs', nas_ip: '10.0.0.1', service: 'ppp', command: 'show' }, 'VALIDATION_FAILED', 'command'],
      ['an unknown field', { username: 'a', protocol: 'tacacs', nas_ip: '10.0.0.1', port: 49 }, 'UNKNOWN_FIELD', 'port'],
      ['an unknown method', { username: 'a', protocol: 'tacacs', nas_ip: '10.0.0.1', method: 'mschapv1' }, 'VALIDATION_FAILED', 'method'],
      ['ASCII for RADIUS', { username: 'a', protocol: 'radius', nas_ip: '10.0.0.1', method: 'ascii' }, 'VALIDATION_FAILED', 'method'],
      ['enable for RADIUS', { username: 'a', protocol: 'radius', nas_ip: '10.0.0.1', method: 'enable' }, 'VALIDATION_FAILED', 'method'],
    ]
    for (const [what, body, code, field] of cases) {
      it(`refuses ${what}: 422 ${code} at ${field}`, async () => {
        expectError(await t.admin('POST', TEST, { body }), 422, code, field)
      })
    }

    it('accepts an IPv6 nas_ip', async () => {
      const r = await test({ username: alice.username, nas_ip: '2001:db8::1' })
      expect(r.decision).to.equal('deny')
    })
  })

  describe('TACACS+ preview', () => {
    it("renders the rule's ruleset entry and its profile", async () => {
      const r = await t.admin('GET', `${RULES}/${rAlice.id}/tacacs/preview`)
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect(Object.keys(r.body).sort()).to.deep.equal(['profile_snippet', 'rule_id', 'snippet'])
      expect(r.body.rule_id).to.equal(rAlice.id)
      expect(r.body.snippet).to.contain('"alice-sw1"').and.contain(`"${tpAdmin.name}"`).and.contain('permit')
      expect(r.body.snippet).to.contain(`"${alice.username}"`).and.contain(`"${sw1.name}"`)
      expect(r.body.profile_snippet).to.contain(`"${tpAdmin.name}"`).and.contain('priv-lvl = 15')
    })

    it('a group rule names the member group and the device group', async () => {
      const r = await t.admin('GET', `${RULES}/${rNocCore.id}/tacacs/preview`)
      expect(r.body.snippet).to.contain('member ==').and.contain(noc.name).and.contain(core.name)
    })

    it('a rule without a TACACS+ profile renders deny and has no profile snippet', async () => {
      const r = await t.admin('GET', `${RULES}/${rBobDeny.id}/tacacs/preview`)
      expect(r.body.snippet).to.contain('"bob-sw3"').and.contain('deny').and.not.contain('permit')
      expect(r.body.profile_snippet).to.equal(null)
    })

    it('the default rule has no condition; a disabled rule renders enabled = no', async () => {
      const d = await t.admin('GET', `${RULES}/${def.id}/tacacs/preview`)
      expect(d.body.snippet).to.contain('"default"').and.not.contain('if (')
      const off = await t.admin('GET', `${RULES}/${rOff.id}/tacacs/preview`)
      expect(off.body.snippet).to.contain('enabled = no')
    })

    it('answers 404 for an unknown rule', async () => {
      expectError(await t.admin('GET', `${RULES}/${randomUUID()}/tacacs/preview`), 404, 'NOT_FOUND', 'rule_id')
    })
  })

  it('hands the enabled rules to the tac_plus-ng renderer, in order in every ruleset, each as the preview shows it', async () => {
    const entry = t.app.registry.renderers.find((r) => r.renderer.daemon === 'tac_plus-ng')
    expect(entry, 'the tacacs plugin registers a tac_plus-ng renderer').to.not.equal(undefined)
    const files = await t.app.db.transaction((trx) => entry!.renderer.render(trx), { isolation: 'repeatable read' })
    const text = files.map((f) => f.content).join('\n')
    // One flat ruleset, or one per location realm (tacacs dispatch.ts): each lists its rules in policy order.
    const rulesets = text.split(/\bruleset \{/).slice(1).map((block) => [...block.matchAll(/^\s*rule "([^"]+)"/gm)].map((m) => m[1]))
    expect(rulesets.length, 'at least one ruleset').to.be.greaterThan(0)
    const order = ['off-rule', 'alice-sw1', 'noc-core', 'bob-sw3', 'bob-branch', 'default']
    const enabled = order.filter((n) => n !== 'off-rule')
    for (const names of rulesets) {
      const inRuleset = names.filter((n) => order.includes(n))
      expect(inRuleset, 'policy order').to.deep.equal(order.filter((n) => inRuleset.includes(n)))
    }
    for (const n of enabled) expect(rulesets.some((names) => names.includes(n)), n).to.equal(true)
    // A disabled rule is never a candidate: absent, or written `enabled = no` in the flat ruleset.
    if (rulesets.some((names) => names.includes('off-rule'))) expect(text).to.match(/rule "off-rule" \{[^}]*enabled = no/)
    for (const rule of [rAlice, rBobBranch, def]) {
      const preview = (await t.admin('GET', `${RULES}/${rule.id}/tacacs/preview`)).body
      expect(text).to.contain(preview.snippet.trim().split('\n')[0])
    }
  })
})
