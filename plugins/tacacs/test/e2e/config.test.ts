/**
 * The tac_plus-ng configuration builder on its own: byte-identical output for
 * the same data in any order, the device tree, the users, the escapes of keys
 * and paths, and what it refuses. With TAC_PLUS_NG, the daemon parses the
 * result (`-P`) and accepts every hard key from its device's address.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { sha512Crypt } from '../../../../sdk/index.js'
import { checkTacPlusNg, freePort, startTacPlusNg, TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import type { PolicyRuleView, TacacsProfile } from '../../api.js'
import { TacacsClient } from '../../client/index.js'
import { buildTacPlusNgConfig, type TacPlusNgConfigInput } from '../../renderers/config.js'
import { renderProfileText } from '../../renderers/profile.js'
import { renderRuleText } from '../../renderers/rule.js'
import { tacString, TacPlusNgRenderError } from '../../renderers/syntax.js'
import { seededRandom } from './support.js'

const HASH = sha512Crypt('pw-alice', { salt: 'saltsalt' })

/** Keys the inventory would refuse (`"`, `\`, control characters) still come out exact: the renderer does not rely on that check. */
const HARD_KEYS = ['a"b\\c', 'tab\tand\nnewline', '%s %n %%', '#not a comment', '{braces} (parens) [x]', "it's", 'ключ ünï', '$HOME $ {x}', 'permit', ' spaced ', '=,;|&!']

const profile: TacacsProfile = {
  id: 'p1',
  name: 'ops',
  description: null,
  privilege_level: 15,
  shell_attributes: [{ name: 'idletime', value: '5' }],
  command_set_ids: [],
  default_action: 'permit',
  services: [],
  enable_mode: 'none',
  enable_privilege_level: 15,
  has_enable_secret: false,
  created_at: '',
  updated_at: '',
}

const rule = (over: Partial<PolicyRuleView>): PolicyRuleView => ({
  id: 'r',
  name: 'r',
  position: 0,
  enabled: true,
  is_default: false,
  who: { type: 'any' },
  where: { type: 'any' },
  tacacs_profile_id: 'p1',
  radius_profile_id: null,
  ...over,
})

function input(port = 49): TacPlusNgConfigInput {
  return {
    listen: { address: '127.0.0.1', port },
    logDirectory: '/var/log/portcullis 100%/tacacs',
    deviceGroups: [
      { id: 'g1', name: 'core', parent_id: null },
      { id: 'g2', name: 'dc', parent_id: 'g1' },
      { id: 'g3', name: 'rack', parent_id: 'g2' },
      { id: 'g4', name: 'branch', parent_id: null },
    ],
    devices: [
      ...HARD_KEYS.map((k, i) => ({ device: { id: `d${i}`, name: `hard${i}`, address: `127.22.0.${10 + i}/32`, device_group_id: i % 2 ? 'g3' : null, enabled: true }, tacacsKey: k })),
      { device: { id: 'n', name: 'nokey', address: '127.22.1.1/32', device_group_id: 'g4', enabled: true }, tacacsKey: null },
      { device: { id: 'o', name: 'off', address: '127.22.1.2/32', device_group_id: 'g2', enabled: false }, tacacsKey: 'x' },
      { device: { id: 'w', name: 'wide', address: '127.22.0.0/16', device_group_id: null, enabled: true }, tacacsKey: 'wide' },
    ],
    userGroups: [
      { id: 'u1', name: 'Net Admins' },
      { id: 'u2', name: 'x${HOME}"y' },
      { id: 'u3', name: 'helpdesk' },
    ],
    users: [
      { id: 'a', username: 'alice', group_ids: ['u2', 'u1'], verifiers: { sha512_crypt: HASH, nt_hash: '' } },
      { id: 'b', username: 'bob', group_ids: [], verifiers: null },
    ],
    profiles: [{ profile, text: renderProfileText(profile, []) }],
    rules: RULES().map(({ rule, profileName }) => renderRuleText(rule, profileName)),
  }
}

const RULES = (): NonNullable<TacPlusNgConfigInput['ruleViews']> => [
  { rule: rule({ name: 'admins', who: { type: 'group', group_id: 'u2', group_name: 'x${HOME}"y' }, where: { type: 'device_group', device_group_id: 'g1', device_group_name: 'core' } }), profileName: 'ops' },
  { rule: rule({ name: 'off', enabled: false, who: { type: 'user', user_id: 'a', username: 'alice' }, where: { type: 'device', device_id: 'o', device_name: 'off' } }), profileName: null },
  { rule: rule({ name: 'everyone', who: { type: 'any' }, where: { type: 'any' }, is_default: true, tacacs_profile_id: null }), profileName: null },
]

/** The same data with the rules themselves given: the renderer dispatches them by location (renderers/dispatch.ts), as the deploy does. */
const dispatched = (x: TacPlusNgConfigInput, ruleViews = RULES()): TacPlusNgConfigInput => ({ ...x, rules: ruleViews.map((v) => renderRuleText(v.rule, v.profileName)), ruleViews })

describe('tacacs renderer: the tac_plus-ng configuration text', () => {
  it('is byte-identical for the same data, whatever order the lists come in', () => {
    const a = buildTacPlusNgConfig(input())
    const r = seededRandom(42)
    for (let i = 0; i < 5; i++) {
      const x = input()
      const shuffled: TacPlusNgConfigInput = {
        ...x,
        deviceGroups: r.sample(x.deviceGroups, 99),
        devices: r.sample(x.devices, 99),
        userGroups: r.sample(x.userGroups, 99),
        users: r.sample(x.users, 99).map((u) => ({ ...u, group_ids: r.sample(u.group_ids, 99) })),
      }
      expect(buildTacPlusNgConfig(shuffled)).to.equal(a)
    }
  })

  it('nests devices in their group blocks, leaves the address out of a disabled device and the key out of a key-less one', () => {
    const c = buildTacPlusNgConfig(input())
    expect(c).to.match(/device "group:core" \{\n\s+device "group:dc" \{\n\s+device "group:rack" \{\n\s+device "hard1" \{/)
    expect(c).to.match(/device "off" \{\n\s+# disabled[^\n]*\n\s+\}/)
    expect(c).to.match(/device "nokey" \{\n\s+address = "127.22.1.1\/32"\n\s+# no TACACS\+ key[^\n]*\n\s+\}/)
    expect(c.indexOf('regex-match-case = no')).to.be.lessThan(c.indexOf('profile "ops"'))
  })

  it('declares users with their crypt verifier and PAP as login, or with logins denied when no password is set', () => {
    const c = buildTacPlusNgConfig(input())
    // Group names as written: `"` escaped, `${` kept from the reader's environment expansion by a \001 byte.
    expect(c).to.contain(`user "alice" {\n        password login = crypt "${HASH}"\n        password pap = login\n        member = "Net Admins","x$\\001{HOME}\\"y"\n`)
    expect(c).to.contain('group "Net Admins"\n')
    expect(c).to.match(/user "bob" \{\n[^}]*password login = deny\n\s+password pap = deny\n\s+\}/)
  })

  it('escapes keys for the double-quoted string, and doubles a % of the log directory (strftime)', () => {
    const c = buildTacPlusNgConfig(input())
    expect(c).to.contain('key = "a\\"b\\\\c"')
    expect(c).to.contain('key = "tab\\011and\\012newline"')
    expect(c).to.contain('destination = ">/var/log/portcullis 100%%/tacacs/authentication-%Y-%m-%d.log"')
  })

  it('refuses what the daemon would read otherwise: ${ (environment expansion), NUL, a relative log folder, a bad port or verifier', () => {
    expect(() => tacString('a${HOME}b')).to.throw(TacPlusNgRenderError, /environment/)
    expect(() => tacString('a\0b')).to.throw(TacPlusNgRenderError, /NUL/)
    const bad = (f: (x: TacPlusNgConfigInput) => void) => {
      const x = input()
      f(x)
      return () => buildTacPlusNgConfig(x)
    }
    expect(bad((x) => (x.devices[0].tacacsKey = 'k${PATH}'))).to.throw(TacPlusNgRenderError, /hard0/)
    expect(bad((x) => (x.logDirectory = 'relative/logs'))).to.throw(TacPlusNgRenderError, /absolute/)
    expect(bad((x) => (x.listen.port = 70000))).to.throw(TacPlusNgRenderError, /port/)
    expect(bad((x) => (x.listen.address = '127.0.0.1" }'))).to.throw(TacPlusNgRenderError, /address/)
    expect(bad((x) => (x.users[0].verifiers = { sha512_crypt: '$1$md5$x', nt_hash: '' }))).to.throw(TacPlusNgRenderError, /SHA-512/)
    expect(bad((x) => (x.devices[0].device.address = '127.0.0.1/32" }'))).to.throw(TacPlusNgRenderError, /CIDR/)
  })

  it('dispatched: a realm per location class with only the rules that can apply there, named by each device, the place not repeated', () => {
    const c = buildTacPlusNgConfig(dispatched(input()))
    const realms = [...c.matchAll(/realm (location-\d+) \{([\s\S]*?)\n {4}\}/g)].map((m) => [m[1], [...m[2].matchAll(/\n\s+rule "([^"]+)" \{/g)].map((r) => r[1])])
    // Classes in the order of the device tree (branch's "nokey" first). The odd hard devices sit in core > dc > rack (the admins
    // rule's place); every other device only meets the default rule; the disabled rule is in no realm.
    expect(realms).to.deep.equal([
      ['location-1', ['everyone']],
      ['location-2', ['admins', 'everyone']],
    ])
    expect(c).to.match(/device "hard1" \{\n[^}]*target-realm = location-2\n/)
    expect(c).to.match(/device "hard0" \{\n[^}]*target-realm = location-1\n/)
    expect(c).to.match(/device "nokey" \{\n[^}]*target-realm = location-1\n/)
    expect(c).to.match(/device "off" \{\n\s+# disabled[^\n]*\n\s+\}/)
    expect(c).not.to.match(/realm location-\d+ \{[\s\S]*device == /)
    expect(c.indexOf('realm location-1')).to.be.lessThan(c.indexOf('device "group:core"'))
  })

  it('dispatched: a realm stops at the first rule that matches there unconditionally, and keeps conditional ones before it', () => {
    const views = RULES()
    views.splice(2, 0, { rule: rule({ name: 'core-any', where: { type: 'device_group', device_group_id: 'g1', device_group_name: 'core' } }), profileName: 'ops' })
    views.splice(2, 0, { rule: rule({ name: 'core-lan', client_prefixes: ['127.22.0.0/24'], where: { type: 'device_group', device_group_id: 'g1', device_group_name: 'core' } }), profileName: null })
    const c = buildTacPlusNgConfig(dispatched(input(), views))
    const core = /realm location-2 \{([\s\S]*?)\n {4}\}/.exec(c)![1]
    expect([...core.matchAll(/\n\s+rule "([^"]+)" \{/g)].map((r) => r[1])).to.deep.equal(['admins', 'core-lan', 'core-any'])
  })

  it('dispatched: falls back to one flat ruleset, saying so, when the realms would repeat too much', () => {
    const x = input()
    // 600 devices each named by a rule: 600 classes, each repeating the 10 rules for anywhere.
    x.devices = Array.from({ length: 600 }, (_, i) => ({ device: { id: `m${i}`, name: `m${i}`, address: `127.30.${i >> 8}.${i & 255}/32`, device_group_id: null, enabled: true }, tacacsKey: 'k' }))
    const views = [
      ...Array.from({ length: 10 }, (_, i) => ({ rule: rule({ name: `anywhere-${i}`, who: { type: 'user', user_id: 'a', username: `u${i}` } }), profileName: 'ops' })),
      ...x.devices.map((d) => ({ rule: rule({ name: `at-${d.device.name}`, where: { type: 'device', device_id: d.device.id, device_name: d.device.name } }), profileName: 'ops' })),
      RULES()[2],
    ]
    const c = buildTacPlusNgConfig(dispatched(x, views))
    expect(c).not.to.contain('realm location-')
    expect(c).to.contain('One flat ruleset: realms per location would hold over 8 times the rules')
    expect(c).to.contain('device == "m599"')
  })

  it('writes an empty ruleset when no policy is registered', () => {
    const c = buildTacPlusNgConfig({ ...input(), rules: null })
    expect(c).to.match(/ruleset \{\n\s*\}/)
  })
})

describe('tacacs renderer: tac_plus-ng reads the text as meant', function () {
  let dir: string
  before(function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-taccfg-'))
  })
  after(() => dir && rmSync(dir, { recursive: true, force: true }))

  it('parses it (-P, nothing on stderr), with and without a policy', async () => {
    for (const [name, x] of [
      ['with.cfg', input()],
      ['dispatched.cfg', dispatched(input())],
      ['without.cfg', { ...input(), rules: null }],
    ] as const) {
      const file = path.join(dir, name)
      writeFileSync(file, buildTacPlusNgConfig(x as TacPlusNgConfigInput))
      const r = await checkTacPlusNg(file)
      expect(r.ok, `${name}: ${r.stderr}`).to.equal(true)
    }
  })

  for (const shape of ['flat', 'dispatched'] as const)
  it(`takes every hard key as the exact key of its device, and the group rule through two levels of nesting (${shape} rules)`, async () => {
    const port = await freePort()
    const x = shape === 'flat' ? input(port) : dispatched(input(port))
    x.logDirectory = path.join(dir, 'logs')
    const file = path.join(dir, 'run.cfg')
    writeFileSync(file, buildTacPlusNgConfig(x))
    const daemon = await startTacPlusNg({ configFile: file, port, mkdirs: [x.logDirectory] })
    try {
      const results = await Promise.all(
        HARD_KEYS.map((key, i) => new TacacsClient({ host: '127.0.0.1', port, key, localAddress: `127.22.0.${10 + i}` }).authorize('alice', { cmd: '' })),
      )
      // The key decodes everywhere (an answer at all); the odd devices sit in core > dc > rack, where the group rule permits;
      // the even ones are outside the tree, where the default rule denies.
      expect(results.map((r) => [r.status, r.args])).to.deep.equal(HARD_KEYS.map((_, i) => (i % 2 ? ['pass_add', ['priv-lvl=15', 'idletime=5']] : ['fail', []])))
    } finally {
      await daemon.stop()
    }
  })
})
