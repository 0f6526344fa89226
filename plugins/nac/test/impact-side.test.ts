/**
 * The NAC change impact's side (services/impact-side.ts), without a database: the tree's lookups in
 * memory (the client by the most specific prefix, the MAC as the tree rewrites it, PEAP's identity
 * exactly and an EAP-TLS CN in any case) and the one property the replay rests on: an outcome is
 * given only when no certificate and no time the log does not keep could change it.
 */
import { expect } from 'chai'
import fc from 'fast-check'
import { ImpactAccumulator, toPolicyWindow, type CompiledNacPolicy, type NacCondition, type NacRequest } from '../../../sdk/index.js'
import type { DistinctRadiusRequest } from '../../aaa-logs/api.js'
import { replayNac } from '../services/impact-replay.js'
import { evaluateNacPolicy } from '../services/evaluate.js'
import { NO_INPUTS, clientMatcher, ImpactSide, treeMac } from '../services/impact-side.js'
import type { NacInputs } from '../services/impact-inputs.js'

const G = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c']
const AT = new Date('2026-11-20T10:00:00Z')
const client = (id: string, address: string, groups: string[] = []) => ({ id, name: id, address, device_group_ids: groups })

describe('nac: change impact, one side', () => {
  it('finds the client as FreeRADIUS does: the most specific prefix, IPv6 and mapped IPv4 alike', () => {
    const find = clientMatcher([client('wide', '10.0.0.0/8'), client('narrow', '10.1.2.0/24'), client('host', '10.1.2.3'), client('v6', '2001:db8::/32'), client('bad', 'not-an-address')])
    expect(find('10.1.2.3')?.id).to.equal('host')
    expect(find('10.1.2.4')?.id).to.equal('narrow')
    expect(find('::ffff:10.1.2.9')?.id).to.equal('narrow')
    expect(find('10.200.0.1')?.id).to.equal('wide')
    expect(find('2001:db8:0:1::5')?.id).to.equal('v6')
    expect(find('11.0.0.1')).to.equal(null)
    expect(find('2001:db9::1')).to.equal(null)
    expect(find('garbage')).to.equal(null)
  })

  it('rewrites the MAC as the tree does (six hex pairs, any or no separator), else none', () => {
    expect(treeMac('AA-BB-CC-DD-EE-FF')).to.equal('aa:bb:cc:dd:ee:ff')
    expect(treeMac('aabb.ccdd.eeff')).to.equal('aa:bb:cc:dd:ee:ff')
    expect(treeMac('AABBCCDDEEFF')).to.equal('aa:bb:cc:dd:ee:ff')
    expect(treeMac('aa:bb:cc:dd:ee')).to.equal(null)
    expect(treeMac(null)).to.equal(null)
  })

  it('resolves users as the tree: PEAP exactly, EAP-TLS in any case; refused users are refused, unknown PEAP users too', () => {
    const inputs: NacInputs = {
      ...NO_INPUTS,
      policy: { rules: [], default: { id: 'def', name: 'default', authorization: { profile_id: 'p', profile_name: 'open', deny: false, reply: [{ attribute: 'Tunnel-Private-Group-Id', value: '10' }] } } },
      users: [{ username: 'Alice', group_ids: [G[0]], network_password: true }],
      refused: [{ username: 'dora', reason: 'disabled' }],
      clients: [client('sw', '10.0.0.0/8')],
    }
    const side = new ImpactSide(inputs)
    const o = (method: 'peap' | 'eap-tls' | 'mab', named: string | null, ip = '10.0.0.1') => side.outcome(side.resolve(method, named, null, ip, null, null), AT)
    expect(o('peap', 'Alice')).to.deep.include({ decision: 'permit' })
    expect(o('peap', 'alice')).to.deep.include({ decision: 'deny', rule: null })
    expect(side.resolve('eap-tls', 'ALICE', null, '10.0.0.1', null, null).user_group_ids).to.deep.equal([G[0]])
    expect((o('eap-tls', 'DORA') as { reason: string }).reason).to.match(/^refused before the policy \(disabled\)/)
    expect(o('peap', 'dora')).to.deep.include({ decision: 'deny' })
    expect(o('mab', null)).to.deep.include({ decision: 'permit' })
    expect((o('mab', null, '192.0.2.1') as { reason: string }).reason).to.contain('drops the packet')
    expect((new ImpactSide(NO_INPUTS, true).outcome(side.resolve('mab', null, null, '10.0.0.1', null, null), AT) as { reason: string }).reason).to.contain('nothing is deployed')
  })

  // The batch matcher (services/impact-match.ts) against the policy test's evaluator: rules of every kind, several of
  // one kind in a rule, more rules than one word of its bit sets.
  describe('property: the decision of the policy test, and an outcome only when the unlogged certificate and time cannot change it', () => {
    const named = fc.subarray(G, { minLength: 1 }).map((l) => l.map((id) => ({ id, name: '' })))
    const condition: fc.Arbitrary<NacCondition> = fc.oneof(
      fc.subarray(['peap', 'eap-tls', 'mab'] as const, { minLength: 1 }).map((methods) => ({ type: 'method' as const, methods })),
      named.map((groups) => ({ type: 'user_group' as const, groups })),
      named.map((groups) => ({ type: 'endpoint_group' as const, groups })),
      named.map((groups) => ({ type: 'device_group' as const, groups })),
      fc.record({ field: fc.constantFrom('issuer_cn' as const, 'san_email' as const), values: fc.subarray(['Corp CA', 'wifi'], { minLength: 1 }) }).map((c) => ({ type: 'certificate' as const, ...c })),
      fc
        .record({ days: fc.subarray(['mon', 'tue', 'sat', 'sun'] as const, { minLength: 1 }), start: fc.constantFrom('00:00', '08:00', '22:00'), end: fc.constantFrom('06:00', '18:00', '24:00') })
        .map((w) => ({ type: 'time_window' as const, window: toPolicyWindow({ ...w, days: [...w.days] }) })),
    )
    const policy: fc.Arbitrary<CompiledNacPolicy> = fc.array(fc.array(condition, { maxLength: 4 }), { maxLength: 45 }).map((lists) => ({
      rules: lists.map((conditions, i) => ({ id: `r${i}`, name: `rule${i}`, position: i + 1, conditions, authorization: { profile_id: `p${i}`, profile_name: `p${i}`, deny: i % 3 === 0, reply: i % 3 === 0 ? [] : [{ attribute: 'Tunnel-Private-Group-Id', value: String(i) }] } })),
      default: { id: 'def', name: 'default', authorization: { profile_id: 'pd', profile_name: 'pd', deny: true, reply: [] } },
    }))
    const time = fc.record({ day: fc.integer({ min: 0, max: 6 }), minute: fc.integer({ min: 0, max: 1439 }) })
    const certificate = fc.record({ issuer_cn: fc.constantFrom('corp ca', 'Evil CA'), san_email: fc.constantFrom('WIFI', 'vpn') }, { requiredKeys: [] })

    it('holds for random policies, requests, times and certificates', () => {
      fc.assert(
        fc.property(
          policy,
          fc.constantFrom('peap' as const, 'eap-tls' as const, 'mab' as const),
          fc.subarray(G),
          fc.subarray(G, { maxLength: 1 }),
          fc.subarray(G),
          fc.option(time, { nil: null }),
          fc.array(fc.tuple(time, certificate), { minLength: 1, maxLength: 6 }),
          (p, method, userGroups, endpointGroups, deviceGroups, knownTime, tries) => {
            const inputs: NacInputs = {
              format: 1,
              policy: p,
              endpoints: [{ mac: 'aa:bb:cc:00:00:01', endpoint_group_ids: endpointGroups, device_type: null }],
              users: [{ username: 'alice', group_ids: userGroups, network_password: true }],
              refused: [],
              clients: [client('sw', '10.0.0.0/8', deviceGroups)],
            }
            const side = new ImpactSide(inputs)
            const named_ = method === 'mab' ? null : 'alice'
            const out = side.outcome(side.resolve(method, named_, 'aa:bb:cc:00:00:01', '10.0.0.9', null, knownTime), AT)
            if (typeof out === 'string') {
              // Unknown only for what is really unknown.
              if (out === 'certificate') expect(method).to.equal('eap-tls')
              if (out === 'time') expect(knownTime).to.equal(null)
              return
            }
            for (const [t, cert] of tries) {
              const r: NacRequest = {
                method,
                mac: 'aa:bb:cc:00:00:01',
                username: named_,
                user_group_ids: method === 'mab' ? [] : userGroups,
                endpoint_group_ids: endpointGroups,
                device_type: null,
                device_group_ids: deviceGroups,
                certificate: method === 'eap-tls' ? cert : null,
                nas_port_type: null,
                local_time: knownTime ?? t,
              }
              const e = evaluateNacPolicy(p, r)
              expect(out.rule?.id).to.equal(e.rule.id)
              expect(out.decision).to.equal(e.decision === 'accept' ? 'permit' : 'deny')
              expect(out.attributes).to.deep.equal(e.reply.map((a) => ({ name: a.attribute, value: a.value })))
            }
          },
        ),
        { numRuns: 500 },
      )
    })
  })
})

describe('nac: change impact, the replay of logged requests', () => {
  const users = [{ username: 'alice', group_ids: [G[0]], network_password: true }]
  const staffRule = (extra: NacCondition[] = []) => ({
    id: 'r0',
    name: 'staff',
    position: 1,
    conditions: [{ type: 'user_group' as const, groups: [{ id: G[0], name: '' }] }, ...extra],
    authorization: { profile_id: 'p0', profile_name: 'staff', deny: false, reply: [{ attribute: 'Tunnel-Private-Group-Id', value: '20' }] },
  })
  const inputs = (rules: CompiledNacPolicy['rules'], refused: NacInputs['refused'] = []): NacInputs => ({
    ...NO_INPUTS,
    policy: { rules, default: { id: 'def', name: 'default', authorization: { profile_id: 'pd', profile_name: 'deny', deny: true, reply: [] } } },
    users: refused.some((r) => r.username === 'alice') ? [] : users,
    refused,
    clients: [client('sw', '10.0.0.0/8')],
  })
  const logged = (o: Partial<DistinctRadiusRequest>): DistinctRadiusRequest => ({
    username: 'anonymous',
    nas_ip: '10.0.0.1',
    auth_type: 'PEAP',
    nac_method: 'peap',
    nac_user: 'alice',
    calling_station_id: 'AA-BB-CC-00-00-01',
    nas_port_type: 'Ethernet',
    events: 3,
    permitted: 3,
    last_seen: AT,
    last: { permitted: true, rule_name: 'staff', profile: null, result_code: null, message: null },
    ...o,
  })
  const run = (before: NacInputs, after: NacInputs, requests: DistinctRadiusRequest[], deadline = Date.now() + 60_000) => {
    const acc = new ImpactAccumulator({ changesLimit: 10, groupLimit: 10 })
    const r = replayNac(requests, new ImpactSide(before), new ImpactSide(after), acc, { deadline, names: new Map(), at: AT })
    return { ...acc.result(), reached: r.timeBudgetReached }
  }
  const reasons = (x: ReturnType<typeof run>) => x.requests.unreplayable.by_reason.map((b) => b.reason)

  it('names what it cannot replay, and replays what does not depend on it', () => {
    const base = inputs([staffRule()])
    const rejected = { permitted: 0, last: { permitted: false, rule_name: null, profile: null, result_code: 'eap_failed', message: null } }
    // A PEAP password never proven: unknown while a side lets the account in; both refusing: a deny on both, replayed.
    expect(reasons(run(base, base, [logged(rejected)]))).to.deep.equal(['password_unknown'])
    const refused = inputs([staffRule()], [{ username: 'alice', reason: 'disabled' }])
    const both = run(refused, refused, [logged(rejected)])
    expect(both.requests).to.deep.include({ evaluated: 1, unchanged: 1 })
    // A PEAP deny by a NAC rule proves the password: replayed.
    expect(run(base, base, [logged({ permitted: 0, last: { permitted: false, rule_name: 'x', profile: null, result_code: 'nac_denied', message: null } })]).requests.evaluated).to.equal(1)
    // EAP-TLS refused in the TLS exchange; a certificate rule reached; a time window with the time not kept.
    const tls = { nac_method: 'eap-tls' as const, auth_type: 'EAP-TLS' }
    expect(reasons(run(base, base, [logged({ ...tls, ...rejected })]))).to.deep.equal(['certificate_refused'])
    const cert = inputs([staffRule([{ type: 'certificate', field: 'issuer_cn', values: ['Corp CA'] }])])
    expect(reasons(run(cert, cert, [logged(tls)]))).to.deep.equal(['certificate'])
    expect(run(cert, cert, [logged({})]).requests.evaluated).to.equal(1)
    const timed = inputs([staffRule([{ type: 'time_window', window: toPolicyWindow({ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '24:00' }) }])])
    expect(reasons(run(timed, timed, [logged({})]))).to.deep.equal(['time'])
    expect(run(timed, timed, [logged({ events: 1, permitted: 1 })]).requests.evaluated).to.equal(1)
    expect(reasons(run(base, base, [logged({ nac_user: null })]))).to.deep.equal(['user_not_logged'])
    expect(reasons(run(base, base, [logged({ nac_method: 'mab', nac_user: null, calling_station_id: 'garbage' })]))).to.deep.equal(['mac_not_logged'])
    // Device administration is not NAC: not counted.
    expect(run(base, base, [logged({ nac_method: null })]).requests.distinct).to.equal(0)
  })

  it('answers the flip with its policy-test body; stops at the time budget and says so', () => {
    const denied = inputs([])
    const x = run(inputs([staffRule()]), denied, [logged({})])
    expect(x.summary.permit_to_deny).to.deep.equal({ requests: 1, events: 3 })
    expect(x.changes[0].policy_test).to.deep.equal({
      path: '/api/v1/nac/policy/test',
      deployed: { method: 'peap', mac: 'aa:bb:cc:00:00:01', username: 'alice', nas: 'sw', nas_port_type: 'Ethernet', against: 'deployed' },
      pending: { method: 'peap', mac: 'aa:bb:cc:00:00:01', username: 'alice', nas: 'sw', nas_port_type: 'Ethernet' },
    })
    const many = Array.from({ length: 3000 }, (_, i) => logged({ nac_user: `u${i}` }))
    const spent = run(denied, denied, many, Date.now() - 1)
    expect(spent.reached).to.equal(true)
    expect(spent.requests.distinct).to.be.below(3000)
  })
})
