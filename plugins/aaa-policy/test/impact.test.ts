/**
 * POST /aaa/policy/impact: real requests of the AAA logs replayed against the deployed release's
 * inputs and the policy as edited. One app, one deploy; log rows written straight into the tables
 * (aaa-logs' own tests cover ingestion). An edit takes `show` away from alice's profile and moves a
 * user to a rule with another profile: the answer names the flips with their real-request counts,
 * the rules, the command-set lines, the groups, and the policy test bodies that reproduce each.
 * The in-memory evaluator it uses is checked against the policy test's here too (batch-evaluate-check.ts).
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { batchEqualsPolicyTest } from './batch-evaluate-check.js'
import { reachIsSound } from './impact-reach-check.js'
import { clearRules, createCommandSet, createDevice, createRadiusProfile, createRule, createTacacsProfile, createUser, createUserGroup, expectError, PLUGINS } from './helpers.js'

const IMPACT = '/api/v1/aaa/policy/impact'
const STRONG = 'Tq-impact-test-9zX'
const NODE = randomUUID()
let offset = 0
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000)
const base = (timestamp: Date, username: string, nas_ip: string) => ({ id: randomUUID(), timestamp, username, nas_ip, node_id: NODE, source_file: '/var/log/x.log', source_offset: (offset += 10) })

describe('AAA policy: change impact (POST /aaa/policy/impact)', function () {
  this.timeout(180_000)
  let t: TestApp
  let alice: any, bob: any, sw1: any, ops: any, show: any, none: any, tpAdmin: any, tpRo: any, rp: any, rAlice: any
  const ip = () => (sw1.address as string).split('/')[0]

  const impact = async (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const r = await t.admin('POST', IMPACT, { body, headers })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }

  before(async () => {
    t = await startTestApp({ plugins: [...PLUGINS, 'aaa-logs'], settings: { 'aaa-logs.ingest_enabled': false } })
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    ops = await createUserGroup(t)
    alice = await createUser(t, { password: STRONG })
    bob = await createUser(t, { password: STRONG, group_ids: [ops.id] })
    sw1 = await createDevice(t)
    show = await createCommandSet(t, { commands: [{ command: 'show', action: 'permit' }] })
    none = await createCommandSet(t, { commands: [{ command: 'show', action: 'deny' }] })
    tpAdmin = await createTacacsProfile(t, { privilege_level: 15, command_set_ids: [show.id], default_action: 'deny' })
    tpRo = await createTacacsProfile(t, { privilege_level: 1, command_set_ids: [show.id], default_action: 'deny' })
    rp = await createRadiusProfile(t)
    await clearRules(t)
    rAlice = await createRule(t, { name: 'alice-sw1', who: { user_id: alice.id }, where: { device_id: sw1.id }, tacacs_profile_id: tpAdmin.id, radius_profile_id: rp.id })
    await createRule(t, { name: 'ops-sw1', who: { group_id: ops.id }, where: { device_id: sw1.id }, tacacs_profile_id: tpAdmin.id, radius_profile_id: rp.id })
    expect((await t.admin('POST', '/api/v1/deploys', { body: {} })).status).to.equal(201)

    const knex = t.app.db.knex
    const authz = (m: number, username: string, action: 'permit' | 'deny', command: string | null, args: string[] = []) => ({ ...base(ago(m), username, ip()), action, service: 'shell', command, priv_lvl: 15, arguments: args })
    await knex('aaa_log_tacacs_authz').insert([
      authz(10, alice.username, 'permit', 'show version <cr>'),
      authz(20, alice.username, 'permit', 'show version <cr>'),
      authz(30, alice.username, 'permit', 'show version <cr>'),
      authz(40, alice.username, 'deny', 'reload <cr>'),
      authz(50, bob.username, 'permit', null, ['service=shell', 'cmd*']),
      authz(60 * 24 * 10, alice.username, 'permit', 'show clock <cr>'), // ten days ago: outside the default window
      authz(15, alice.username, 'permit', 'show <cr> x'), // a <cr> before the end: not replayable
    ])
    await knex('aaa_log_tacacs_authn').insert([
      { ...base(ago(5), alice.username, ip()), status: 'success', authen_type: 'ascii', result_code: 'AUTHC-PASS' },
      { ...base(ago(4), alice.username, ip()), status: 'failure', authen_type: 'pap', result_code: 'AUTHC-FAIL' },
      { ...base(ago(6), 'mallory', ip()), status: 'failure', authen_type: 'ascii', result_code: 'AUTHC-FAIL' },
      { ...base(ago(7), 'mallory', ip()), status: 'failure', authen_type: 'ascii', result_code: 'AUTHC-FAIL' },
    ])
    await knex('aaa_log_radius_auth').insert([
      { ...base(ago(8), bob.username, ip()), status: 'accept', auth_type: 'PAP' },
      { ...base(ago(9), 'guest-phone', ip()), status: 'accept', auth_type: 'MAB', nac_method: 'mab', calling_station_id: '00-11-22-33-44-55' }, // NAC: the nac plugin's report
    ])
  })
  after(async () => t?.stop())

  it('with nothing changed since the deploy: no request is in the edit’s reach, every one counted unaffected without replay', async () => {
    const r = await impact()
    expect(r.window.days).to.equal(7)
    expect(r.compared.pending).to.equal('database')
    expect(r.compared.deployed.map((x: any) => x.daemon)).to.deep.equal(['tac_plus-ng', 'freeradius'])
    for (const x of r.compared.deployed) expect(x.release).to.be.a('string')
    expect(r.changes_total).to.equal(0)
    expect(r.summary.text).to.equal('No replayed request is answered differently')
    // 6 TACACS+ authorizations, 4 logins and bob's RADIUS login in the window; the MAB request is the nac plugin's.
    expect(r.requests).to.deep.include({ distinct: 0, events: 0, evaluated: 0, unchanged: 0 })
    expect(r.requests.unaffected).to.deep.equal({ events: 11 })
    expect(r.requests.unreplayable.by_reason).to.deep.equal([])
    expect(r.limits).to.deep.equal({ reached: null, max_requests: 1_500_000, time_budget_seconds: 60 })
    expect(r.replica_lag_ms).to.equal(null)
  })

  it('an edit not yet deployed: the flips with their real requests, the deciding rule and line, and the policy tests that say why', async () => {
    // alice's profile loses `show`; bob moves to a read-only profile (priv-lvl 1 instead of 15).
    expect((await t.admin('PUT', `/api/v1/tacacs/profiles/${tpAdmin.id}`, { body: { ...strip(tpAdmin), command_set_ids: [none.id] } })).status).to.equal(200)
    await createRule(t, { name: 'bob-ro', position: 0, who: { user_id: bob.id }, where: { device_id: sw1.id }, tacacs_profile_id: tpRo.id, radius_profile_id: rp.id })
    const r = await impact()
    // In reach: alice's and bob's requests (their rules give the edited profile; bob has a new rule).
    // mallory is no user: refused alike before and after, not replayed.
    // 5 TACACS+ authorizations and logins of alice, bob's session and his RADIUS login.
    expect(r.requests).to.deep.include({ distinct: 7, events: 9, evaluated: 5 })
    expect(r.requests.unaffected).to.deep.equal({ events: 2 })
    expect(r.requests.unreplayable.by_reason.map((x: any) => [x.reason, x.requests, x.events])).to.have.deep.members([
      ['wrong_password', 1, 1],
      ['command_cr', 1, 1],
    ])
    expect(r.summary.permit_to_deny).to.deep.equal({ requests: 1, events: 3 })
    expect(r.summary.attributes.requests).to.equal(1)
    expect(r.summary.users_losing_access).to.equal(1)
    expect(r.summary.devices_losing_access).to.equal(1)
    const flip = r.changes[0]
    expect(flip.change).to.equal('permit_to_deny')
    expect(flip.request).to.deep.include({ kind: 'tacacs_command', username: alice.username, nas_ip: ip(), command: 'show version <cr>', events: 3, device: { id: sw1.id, name: sw1.name } })
    expect(flip.before).to.deep.include({ decision: 'permit', rule: { id: rAlice.id, name: 'alice-sw1', position: flip.before.rule.position } })
    expect(flip.before.command_line).to.deep.equal({ command_set: { id: show.id, name: show.name }, line: 'show' })
    expect(flip.after.decision).to.equal('deny')
    expect(flip.after.command_line).to.deep.equal({ command_set: { id: none.id, name: none.name }, line: 'show' })
    // The policy test bodies reproduce both sides.
    expect(flip.policy_test.path).to.equal('/api/v1/aaa/policy/test')
    const dep = await t.admin('POST', '/api/v1/aaa/policy/test', { body: flip.policy_test.deployed })
    const pen = await t.admin('POST', '/api/v1/aaa/policy/test', { body: flip.policy_test.pending })
    expect([dep.status, pen.status]).to.deep.equal([200, 200])
    expect([dep.body.command_decision.decision, pen.body.command_decision.decision]).to.deep.equal(['permit', 'deny'])
    // The reasons: the policy test's, word for word (the session's, then the command's), in English here…
    const why = (x: { body: { reason: string; command_decision: { reason: string } } }) => `${x.body.reason}; ${x.body.command_decision.reason}`
    expect([flip.before.reason, flip.after.reason]).to.deep.equal([why(dep), why(pen)])
    expect(flip.before.reason).to.match(/^rule alice-sw1 permits with TACACS\+ profile /)
    // …and in Russian for a Russian caller, as the policy test answers them.
    const ru = { 'Accept-Language': 'ru' }
    const rr = await impact({}, ru)
    const ruFlip = rr.changes.find((c: any) => c.change === 'permit_to_deny')
    const [depRu, penRu] = await Promise.all([flip.policy_test.deployed, flip.policy_test.pending].map((body) => t.admin('POST', '/api/v1/aaa/policy/test', { body, headers: ru })))
    expect([ruFlip.before.reason, ruFlip.after.reason]).to.deep.equal([why(depRu), why(penRu)])
    expect(ruFlip.before.reason).to.match(/^правило alice-sw1 разрешает с профилем TACACS\+ /)
    expect(ruFlip.after.reason).to.match(/[а-яё]/i).and.not.match(/ permits | denies /)
    expect(rr.changes.map((c: any) => c.request)).to.deep.equal(r.changes.map((c: any) => c.request))
    const session = r.changes.find((c: any) => c.request.kind === 'tacacs_session')
    expect(session.change).to.equal('attributes')
    expect(session.changed_attributes).to.deep.include({ name: 'priv-lvl', before: '15', after: '1' })
    expect(session.request.user_groups).to.deep.equal([{ id: ops.id, name: ops.name }])
    expect(session.after.rule.name).to.equal('bob-ro')
    // bob's RADIUS login: another rule, the same profile.
    expect(r.changes.find((c: any) => c.request.kind === 'radius_authentication')).to.deep.include({ change: 'rule' })
    expect(r.groups.users[0]).to.deep.include({ name: alice.username, permit_to_deny: 1, events: 3 })
    expect(r.groups.rules.map((g: any) => g.name)).to.include.members(['alice-sw1', 'bob-ro'])
    expect(r.summary.text).to.match(/^1 user loses access to 1 device; /)
    // changes_limit: the most severe first.
    const one = await impact({ changes_limit: 1 })
    expect(one.changes_total).to.equal(r.changes_total)
    expect(one.changes.map((c: any) => c.change)).to.deep.equal(['permit_to_deny'])
    // A deploy of one daemon: its protocol's requests only, against its release only.
    const tacacsOnly = await impact({ protocol: 'tacacs' })
    expect(tacacsOnly.compared.deployed.map((x: any) => x.daemon)).to.deep.equal(['tac_plus-ng'])
    expect(tacacsOnly.changes.map((c: any) => c.request.kind)).to.not.include('radius_authentication')
    expect(tacacsOnly.summary.permit_to_deny).to.deep.equal({ requests: 1, events: 3 })
    const radiusOnly = await impact({ protocol: 'radius' })
    expect(radiusOnly.compared.deployed.map((x: any) => x.daemon)).to.deep.equal(['freeradius'])
    expect(radiusOnly.changes.map((c: any) => c.request.kind)).to.deep.equal(['radius_authentication'])
  })

  it('bounds: max_requests cuts and says so; a longer window takes older requests in', async () => {
    const r = await impact({ max_requests: 2 })
    expect(r.requests.distinct).to.equal(2)
    expect(r.limits).to.deep.include({ reached: 'max_requests', max_requests: 2 })
    const wide = await impact({ days: 30 })
    expect(wide.requests.distinct).to.equal(8)
    expect(wide.requests.unaffected).to.deep.equal({ events: 2 })
  })

  // The report's in-memory evaluator is the policy test's (services/batch-evaluate.ts), on random policies.
  it('its evaluator answers as the policy test: equal answers, every field but the trace, on 12 random policies (and each one edited, sharing command decisions) × 120 requests', async () => {
    await batchEqualsPolicyTest(t)
  })

  // Requests out of the edit's reach are counted unaffected, not replayed (services/impact-reach.ts).
  it('the edit’s reach is sound: on 60 random policies, each edited at random, × 150 requests, a request out of reach is answered alike and one in reach passes the scan’s filter', async () => {
    await reachIsSound(t)
  })

  it('needs aaa-logs.read as well as aaa-policy.read (403 in the error envelope); bad bounds are 422 at the field', async () => {
    expectError(await t.req('POST', IMPACT, { token: await t.token({ permissions: ['aaa-policy.read'] }), body: {} }), 403, 'FORBIDDEN', 'logs')
    expectError(await t.req('POST', IMPACT, { token: await t.token({ permissions: ['aaa-logs.read'] }), body: {} }), 403, 'PERMISSION_DENIED')
    expect((await t.req('POST', IMPACT, { token: await t.token({ permissions: ['aaa-policy.read', 'aaa-logs.read'] }), body: {} })).status).to.equal(200)
    for (const [field, value] of [['days', 0], ['days', 91], ['max_requests', 0], ['time_budget_seconds', 301], ['changes_limit', -1], ['group_limit', 'x']] as const) {
      const r = await t.admin('POST', IMPACT, { body: { [field]: value } })
      expect(r.status, JSON.stringify(r.body)).to.equal(422)
      expect(r.body.field).to.equal(field)
      expect(r.body.detail).to.be.a('string').and.not.empty
    }
    expect((await t.admin('POST', IMPACT, { body: { against: 'deployed' } })).status).to.equal(422)
    const nac = await t.admin('POST', IMPACT, { body: { protocol: 'nac' } })
    expect([nac.status, nac.body.field]).to.deep.equal([422, 'protocol'])
  })
})

const strip = (p: any) => {
  const { id: _i, created_at: _c, updated_at: _u, has_enable_secret: _h, ...rest } = p
  return rest
}
