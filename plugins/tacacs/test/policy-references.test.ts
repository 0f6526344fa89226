/** With the AAA policy loaded: a profile's references list the rules that assign it, and deleting the profile clears them. */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createProfile, uniq } from './helpers.js'

describe('tacacs profile references with the AAA policy loaded', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy'] })
  })
  after(async () => t?.stop())

  it('lists the rules assigning a profile as auto-clearing, and the delete clears them', async () => {
    const user = await t.admin('POST', '/api/v1/users', { body: { username: uniq('u') } })
    const device = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address: '192.0.2.10' } })
    expect(user.status, JSON.stringify(user.body)).to.equal(201)
    expect(device.status, JSON.stringify(device.body)).to.equal(201)
    const p = await createProfile(t)
    const rule = await t.admin('POST', '/api/v1/aaa/policy/rules', {
      body: { name: uniq('rule'), who: { user_id: user.body.id }, where: { device_id: device.body.id }, tacacs_profile_id: p.id },
    })
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201)
    const refs = await t.admin('GET', `/api/v1/tacacs/profiles/${p.id}/references`)
    expect(refs.body).to.deep.equal({ blocking: [], auto_clearing: [{ type: 'aaa_policy_rule', id: rule.body.id, name: rule.body.name }] })
    expect((await t.admin('DELETE', `/api/v1/tacacs/profiles/${p.id}`)).status).to.equal(204)
    expect((await t.admin('GET', `/api/v1/aaa/policy/rules/${rule.body.id}`)).body.tacacs_profile_id).to.equal(null)
  })
})
