/**
 * The policy test's `trace: relevant`: the same walk and the same answer, without the steps of
 * rules about other users; `rules_tried` counts every rule tried either way.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { clearRules, createDevice, createRule, createTacacsProfile, createUser, createUserGroup, expectError, startPolicyApp } from './helpers.js'

const TEST = '/api/v1/aaa/policy/test'

describe('AAA policy: the policy test with trace relevant', () => {
  let t: TestApp
  let alice: any, bob: any, sw1: any, sw2: any

  const test = async (body: Record<string, unknown>) => {
    const r = await t.admin('POST', TEST, { body: { protocol: 'tacacs', username: alice.username, device_id: sw1.id, ...body } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  const names = (r: any) => r.trace.map((s: any) => [s.name, s.reason])

  before(async () => {
    t = await startPolicyApp()
    await clearRules(t)
    const mine = await createUserGroup(t)
    const other = await createUserGroup(t)
    alice = await createUser(t, { group_ids: [mine.id] })
    bob = await createUser(t)
    ;[sw1, sw2] = await Promise.all([createDevice(t), createDevice(t)])
    const tp = await createTacacsProfile(t)
    await createRule(t, { name: 'bob-rule', who: { user_id: bob.id }, where: { device_id: sw1.id }, tacacs_profile_id: tp.id, position: 0 })
    await createRule(t, { name: 'other-group', who: { group_id: other.id }, where: { device_id: sw1.id }, tacacs_profile_id: tp.id, position: 1 })
    await createRule(t, { name: 'bob-off', enabled: false, who: { user_id: bob.id }, where: { device_id: sw1.id }, position: 2 })
    await createRule(t, { name: 'alice-off', enabled: false, who: { user_id: alice.id }, where: { device_id: sw1.id }, position: 3 })
    await createRule(t, { name: 'alice-sw2', who: { user_id: alice.id }, where: { device_id: sw2.id }, tacacs_profile_id: tp.id, position: 4 })
    await createRule(t, { name: 'mine-sw1', who: { group_id: mine.id }, where: { device_id: sw1.id }, tacacs_profile_id: tp.id, position: 5 })
  })
  after(async () => t?.stop())

  it('leaves out the rules about other users and groups, disabled or not; the decision and rules_tried are the same', async () => {
    const all = await test({})
    const relevant = await test({ trace: 'relevant' })
    expect(all.trace.map((s: any) => s.name)).to.deep.equal(['bob-rule', 'other-group', 'bob-off', 'alice-off', 'alice-sw2', 'mine-sw1'])
    expect(names(relevant)).to.deep.equal([
      ['alice-off', 'disabled'],
      ['alice-sw2', `device ${sw1.name} is not ${sw2.name}`],
      ['mine-sw1', all.trace[5].reason],
    ])
    expect(all.rules_tried).to.equal(6)
    expect(relevant.rules_tried).to.equal(6)
    const { trace: _a, ...restAll } = all
    const { trace: _r, ...restRelevant } = relevant
    expect(restRelevant).to.deep.equal(restAll)
  })

  it('keeps the rules about that user, and the default rule (it concerns anyone) when it decides', async () => {
    const r = await test({ trace: 'relevant', device_id: sw2.id, username: bob.username })
    expect(r.matched_rule.name).to.equal('default')
    expect(r.trace.map((s: any) => s.name)).to.deep.equal(['bob-rule', 'bob-off', 'default'])
    expect(r.rules_tried).to.equal(7)
  })

  it('counts no rule when the request is refused before the rules', async () => {
    const r = await test({ username: 'nobody-here', trace: 'relevant' })
    expect(r.decision).to.equal('deny')
    expect(r.rules_tried).to.equal(0)
    expect(r.trace).to.deep.equal([])
  })

  it('refuses another trace mode: 422 at trace', async () => {
    expectError(await t.admin('POST', TEST, { body: { protocol: 'tacacs', username: alice.username, device_id: sw1.id, trace: 'none' } }), 422, 'VALIDATION_FAILED', 'trace')
  })
})
