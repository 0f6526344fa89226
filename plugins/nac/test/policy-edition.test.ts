/** The NAC policy in an edition without the inventory plugin: device groups and the NAS are refused with a clear 422, the rest works. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { expectError, uniq } from './helpers.js'
import { createProfile, createRule, RULES, TEST } from './policy-helpers.js'

describe('nac: policy without the inventory plugin', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['nac'] })
  })
  after(async () => t?.stop())

  it('refuses device group conditions and a NAS, and answers the rest', async () => {
    const p = await createProfile(t, { vlan: 12 })
    const r = await t.admin('POST', RULES, { body: { name: uniq('r'), authorization_profile_id: p.id, conditions: [{ type: 'device_group', group_ids: [randomUUID()] }] } })
    expectError(r, 422, 'REFERENCE_NOT_FOUND', 'conditions[0].group_ids')
    expect(r.body.detail).to.include('inventory')
    expectError(await t.admin('POST', TEST, { body: { method: 'peap', nas: '10.0.0.1' } }), 422, 'REFERENCE_NOT_FOUND', 'nas')
    const rule = await createRule(t, { authorization_profile_id: p.id, conditions: [{ type: 'method', methods: ['peap'] }] })
    const someone = await t.admin('POST', '/api/v1/users', { body: { username: 'someone', password: 'Edition-Secret-123', network_login: true } })
    expect(someone.status, someone.text).to.equal(201)
    const ans = await t.admin('POST', TEST, { body: { method: 'peap', username: 'someone' } })
    expect(ans.status, ans.text).to.equal(200)
    expect(ans.body.rule.id).to.equal(rule.id)
    expect(ans.body.resolved.device_groups).to.deep.equal([])
  })
})
