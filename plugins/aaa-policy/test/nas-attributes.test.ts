/**
 * The AV pairs a NAS sends with its authorization request (`nas_attributes`), merged into the
 * REPLY as tac_plus-ng merges them (`authorization_reply`): through the API on both engines, then
 * as a differential against the real daemon (random pair lists, the policy test's status and pairs
 * against what tac_plus-ng answers, zero disagreements). The differential skips without TAC_PLUS_NG.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../tacacs/client/index.js'
import { renderAndRun, seededRandom, type DaemonRun } from '../../tacacs/test/e2e/support.js'
import { clearRules, created, createRule, expectError, RULES, startPolicyApp } from './helpers.js'

const TEST = '/api/v1/aaa/policy/test'
const KEY = 'nas-attributes-key'
const FROM = '127.27.0.2'
const PASSWORD = 'Tq-nas-attributes-83'

type Pair = { name: string; value: string; optional?: boolean }
const wire = (p: Pair) => `${p.name}${p.optional ? '*' : '='}${p.value}`

const SHELL_ATTRIBUTES = [
  { name: 'idletime', value: '30' },
  { name: 'shell:roles', value: '"network-admin"', optional: true },
  { name: 'timeout', value: '10' },
]
const JUNOS = { service: 'junos-exec', attributes: [{ name: 'local-user-name', value: 'NOC' }, { name: 'allow-commands', value: '^show .*$', optional: true }] }

/** The pairs NASes send, and near misses: the profile's own pairs, other values, the other separator, unknown names. */
const POOL: Pair[] = [
  { name: 'priv-lvl', value: '15' },
  { name: 'priv-lvl', value: '15', optional: true },
  { name: 'priv-lvl', value: '1' },
  { name: 'priv-lvl', value: '1', optional: true },
  { name: 'idletime', value: '30' },
  { name: 'idletime', value: '5' },
  { name: 'idletime', value: '5', optional: true },
  { name: 'timeout', value: '', optional: true },
  { name: 'shell:roles', value: 'x', optional: true },
  { name: 'shell:roles', value: '"network-admin"' },
  { name: 'protocol', value: 'ip' },
  { name: 'protocol', value: 'lcp', optional: true },
  { name: 'local-user-name', value: 'NOC' },
  { name: 'local-user-name', value: 'NOC', optional: true },
  { name: 'allow-commands', value: '^show .*$', optional: true },
  { name: 'foo', value: 'bar' },
  { name: 'foo', value: 'bar', optional: true },
  { name: 'autocmd', value: '', optional: true },
]

describe('AAA policy: the NAS\'s own AV pairs, merged into the authorization REPLY as tac_plus-ng merges them', function () {
  this.timeout(180_000)
  let t: TestApp
  let device: any, user: any

  const test = async (body: Record<string, unknown>) => {
    const r = await t.admin('POST', TEST, { body: { protocol: 'tacacs', username: user.username, device_id: device.id, ...body } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }

  before(async () => {
    t = await startPolicyApp()
    await clearRules(t)
    device = await created(t, '/api/v1/devices', { name: 'nas-attr-sw', address: FROM, tacacs_key: KEY })
    user = await created(t, '/api/v1/users', { username: 'nas-attr-user', password: PASSWORD, network_login: true })
    const p = await created(t, '/api/v1/tacacs/profiles', { name: 'nas-attr', privilege_level: 15, shell_attributes: SHELL_ATTRIBUTES, services: [JUNOS], default_action: 'permit' })
    await createRule(t, { name: 'nas-attr', who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: p.id, position: 0 })
  })
  after(async () => t?.stop())

  describe('through the API', () => {
    it('without NAS pairs: PASS_ADD with the profile\'s mandatory pairs (priv-lvl first), then its optional ones', async () => {
      const r = await test({})
      expect(r.decision).to.equal('permit')
      expect(r.authorization_reply).to.deep.equal({
        status: 'pass_add',
        attributes: [{ name: 'priv-lvl', value: '15' }, { name: 'idletime', value: '30' }, { name: 'timeout', value: '10' }, { name: 'shell:roles', value: '"network-admin"', optional: true }],
      })
    })

    it('a mandatory NAS pair the profile sets exactly passes, and is not added twice', async () => {
      const r = await test({ nas_attributes: [{ name: 'idletime', value: '30' }, { name: 'protocol', value: 'ip' }] })
      expect(r.decision).to.equal('permit')
      expect(r.authorization_reply.status).to.equal('pass_add')
      expect(r.authorization_reply.attributes.map(wire)).to.deep.equal(['priv-lvl=15', 'timeout=10', 'shell:roles*"network-admin"'])
    })

    it('an optional NAS pair is replaced by the profile\'s pair of that name, or deleted: PASS_REPL with the whole list', async () => {
      const r = await test({ nas_attributes: [{ name: 'priv-lvl', value: '1', optional: true }, { name: 'foo', value: 'bar', optional: true }] })
      expect(r.decision).to.equal('permit')
      expect(r.authorization_reply.status).to.equal('pass_repl')
      expect(r.authorization_reply.attributes.map(wire)).to.deep.equal(['service=shell', 'priv-lvl=15', 'idletime=30', 'timeout=10', 'shell:roles*"network-admin"'])
    })

    it('a mandatory NAS pair the profile does not set to that value: deny, naming the pair', async () => {
      for (const pair of [{ name: 'priv-lvl', value: '1' }, { name: 'foo', value: 'bar' }]) {
        const r = await test({ nas_attributes: [pair] })
        expect(r.decision, wire(pair)).to.equal('deny')
        expect(r.reason).to.contain(`mandatory attribute ${wire(pair)}`)
        expect(r.authorization_reply).to.deep.equal({ status: 'fail', attributes: [] })
        expect(r.matched_rule.name).to.equal('nas-attr')
      }
    })

    it('another service: its own pairs, merged the same way', async () => {
      const r = await test({ service: 'junos-exec', nas_attributes: [{ name: 'local-user-name', value: 'x', optional: true }] })
      expect(r.authorization_reply).to.deep.equal({ status: 'pass_repl', attributes: [{ name: 'service', value: 'junos-exec' }, { name: 'local-user-name', value: 'NOC' }, { name: 'allow-commands', value: '^show .*$', optional: true }] })
    })

    it('a shell command is answered PASS_ADD without pairs, whatever the NAS sent: the pairs are merged for the exec start only', async () => {
      const r = await test({ command: 'show version', nas_attributes: [{ name: 'foo', value: 'bar' }] })
      expect(r.command_decision.decision).to.equal('permit')
      expect(r.authorization_reply).to.deep.equal({ status: 'pass_add', attributes: [] })
    })

    const bad: [string, unknown, string][] = [
      ['a name holding =', [{ name: 'a=b', value: 'c' }], 'nas_attributes[0].name'],
      ['a name holding *', [{ name: 'a*', value: 'c' }], 'nas_attributes[0].name'],
      ['an empty name', [{ name: '', value: 'c' }], 'nas_attributes[0].name'],
      ['service (given as `service`)', [{ name: 'service', value: 'shell' }], 'nas_attributes[0].name'],
      ['cmd (given as `command`)', [{ name: 'cmd', value: 'show' }], 'nas_attributes[0].name'],
      ['a control character in a value', [{ name: 'a', value: 'x\ny' }], 'nas_attributes[0].value'],
      ['a pair longer than the 255 octets an argument holds', [{ name: 'a', value: 'v'.repeat(191) }], 'nas_attributes[0].value'],
      ['65 pairs', Array.from({ length: 65 }, () => ({ name: 'a', value: 'b' })), 'nas_attributes'],
      ['an unknown field in a pair', [{ name: 'a', value: 'b', mandatory: true }], 'nas_attributes[0].mandatory'],
    ]
    for (const [what, pairs, field] of bad) {
      it(`refuses ${what}: 422 at ${field}, and changes nothing`, async () => {
        const before = await t.admin('GET', RULES)
        const r = await t.admin('POST', TEST, { body: { protocol: 'tacacs', username: user.username, device_id: device.id, nas_attributes: pairs } })
        expect(r.status, JSON.stringify(r.body)).to.equal(422)
        expect(r.body.field, JSON.stringify(r.body)).to.equal(field)
        expect((await t.admin('GET', RULES)).body).to.deep.equal(before.body)
      })
    }

    it('refuses NAS pairs for RADIUS: 422 at nas_attributes', async () => {
      expectError(await t.admin('POST', TEST, { body: { protocol: 'radius', username: user.username, device_id: device.id, nas_attributes: [] } }), 422, 'VALIDATION_FAILED', 'nas_attributes')
    })

    it('needs a session (401) and the policy read permission (403)', async () => {
      const body = { protocol: 'tacacs', username: user.username, device_id: device.id, nas_attributes: [{ name: 'priv-lvl', value: '15' }] }
      expect((await t.req('POST', TEST, { body })).status).to.equal(401)
      const token = await t.token({ permissions: ['inventory.read'] })
      expect((await t.req('POST', TEST, { body, token })).status).to.equal(403)
    })
  })

  describe('against tac_plus-ng', () => {
    let run: DaemonRun | undefined
    before(async function () {
      if (!tacPlusNgBinary()) {
        console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
        return this.skip()
      }
      run = await renderAndRun(t)
    })
    after(async () => run?.stop())

    it('random NAS pair lists: the REPLY status and pairs are what the policy test says (zero disagreements)', async () => {
      const seed = Number(process.env.NAS_ATTRIBUTES_SEED ?? Date.now() % 100000)
      const rnd = seededRandom(seed)
      const client = new TacacsClient({ host: '127.0.0.1', port: run!.daemon.port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
      const disagreements: string[] = []
      const statuses = new Set<string>()
      for (let i = 0; i < 120; i++) {
        const service = rnd.bool(0.75) ? 'shell' : 'junos-exec'
        const pairs = Array.from({ length: rnd.int(4) }, () => rnd.pick(POOL))
        // Now and then a command line instead of the exec start (shell only).
        const command = service === 'shell' && rnd.bool(0.2) ? 'show version' : undefined
        const words = command?.split(' ') ?? []
        const daemon = await client.authorize(user.username, { service, extraArgs: pairs.map(wire), ...(command ? { cmd: words[0], args: words.slice(1) } : {}) })
        const said = await test({ service, nas_attributes: pairs, ...(command ? { command } : {}) })
        const want = said.authorization_reply
        const got = { status: daemon.status, attributes: daemon.status === 'fail' ? [] : daemon.args }
        statuses.add(got.status)
        if (want.status !== got.status || JSON.stringify(want.attributes.map(wire)) !== JSON.stringify(got.attributes)) {
          disagreements.push(`service ${service}${command ? ` command ${command}` : ''} [${pairs.map(wire).join(' ')}]: daemon ${JSON.stringify(got)}, policy test ${JSON.stringify({ status: want.status, attributes: want.attributes.map(wire) })}`)
        }
        expect(said.decision === 'permit', `decision for [${pairs.map(wire).join(' ')}]`).to.equal(daemon.permitted)
      }
      expect(disagreements, `seed ${seed}:\n${disagreements.join('\n')}`).to.deep.equal([])
      // The pool reaches every outcome, so the comparison covers each branch of the merge.
      expect([...statuses].sort()).to.deep.equal(['fail', 'pass_add', 'pass_repl'])
    })
  })
})
