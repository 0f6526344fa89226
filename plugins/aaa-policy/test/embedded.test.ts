/**
 * The whole surface on the embedded engine (one connection: every query of a
 * transaction must go through it, services included), and the contract's
 * schema names in the OpenAPI document.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createDevice, createDeviceGroup, createRule, createTacacsProfile, createUser, createUserGroup, defaultRule, expectOrderIntact, listRules, PLUGINS, RULES } from './helpers.js'

describe('AAA policy on the embedded engine, and in OpenAPI', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: PLUGINS, engine: 'embedded', env: { DOCS_ENABLED: 'true' } })
  })
  after(async () => t?.stop())

  it('creates, filters, moves, previews, tests and deletes', async () => {
    const g = await createUserGroup(t)
    const u = await createUser(t, { group_ids: [g.id] })
    const top = await createDeviceGroup(t)
    const sub = await createDeviceGroup(t, { parent_id: top.id })
    const dev = await createDevice(t, { device_group_id: sub.id })
    const tp = await createTacacsProfile(t, { privilege_level: 7 })
    const a = await createRule(t, { who: { group_id: g.id }, where: { device_group_id: top.id }, tacacs_profile_id: tp.id })
    const b = await createRule(t, { who: { user_id: u.id }, where: { device_id: dev.id }, position: 0 })
    expect((await listRules(t, `?who_user_id=${u.id}&where_device_id=${dev.id}&resolve_groups=true`)).map((r) => r.id)).to.deep.equal([b.id, a.id, (await defaultRule(t)).id])
    const moved = await t.admin('PUT', `${RULES}/${a.id}`, { body: { position: 0, description: 'first' } })
    expect(moved.body).to.include({ position: 0, description: 'first' })
    const preview = await t.admin('GET', `${RULES}/${a.id}/tacacs/preview`)
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200)
    expect(preview.body.profile_snippet).to.contain('priv-lvl = 7')
    const res = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { username: u.username, device_id: dev.id, protocol: 'tacacs', command: 'show version' } })
    expect(res.status, JSON.stringify(res.body)).to.equal(200)
    expect(res.body).to.include({ decision: 'permit' })
    expect(res.body.matched_rule.id).to.equal(a.id)
    expect(res.body.command_decision.decision).to.equal('deny')
    expect((await t.admin('DELETE', `${RULES}/${b.id}`)).status).to.equal(204)
    expect((await t.admin('DELETE', `/api/v1/users/${u.id}`)).status).to.equal(204)
    await expectOrderIntact(t)
  })

  it('documents the operations with the contract schema names, in a valid document', async () => {
    const r = await t.req('GET', '/openapi.json')
    expect(r.status).to.equal(200)
    const doc = r.body
    const result = await new Validator().validate(doc)
    expect(result.valid, JSON.stringify(result.errors)).to.equal(true)
    for (const name of ['AaaPolicyRuleResponse', 'AaaPolicyRuleCreate', 'AaaPolicyRuleUpdate', 'AaaPolicyReorderRequest', 'RuleTacacsPreviewResponse', 'PolicyTestRequest', 'PolicyTestResponse']) {
      expect(doc.components.schemas, name).to.have.property(name)
    }
    const paths = doc.paths
    expect(Object.keys(paths['/api/v1/aaa/policy/rules']).sort()).to.deep.equal(['get', 'post'])
    expect(Object.keys(paths['/api/v1/aaa/policy/rules/reorder'])).to.deep.equal(['put'])
    expect(Object.keys(paths['/api/v1/aaa/policy/rules/{rule_id}']).sort()).to.deep.equal(['delete', 'get', 'put'])
    expect(Object.keys(paths['/api/v1/aaa/policy/rules/{rule_id}/tacacs/preview'])).to.deep.equal(['get'])
    expect(Object.keys(paths['/api/v1/aaa/policy/test'])).to.deep.equal(['post'])
    const params = paths['/api/v1/aaa/policy/rules'].get.parameters.map((p: { name: string }) => p.name)
    // The contract's filters, and `search` (name or description: the console's quick search), an addition.
    expect(params).to.deep.equal(['search', 'who_user_id', 'who_group_id', 'where_device_id', 'where_device_group_id', 'tacacs_profile_id', 'radius_profile_id', 'resolve_groups'])
    expect(paths['/api/v1/aaa/policy/rules/{rule_id}'].delete.responses).to.have.property('409')
  })
})
