/** /api/v1/nac/policy/rules: CRUD, conditions and their refusals, the protected default rule, references held, authorization. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { auditRows, createGroup, expectError, uniq } from './helpers.js'
import { createDeviceGroup, createProfile, createRule, createUserGroup, expectOrderIntact, listRules, policySnapshot, RULES, startPolicyApp } from './policy-helpers.js'

describe('nac: policy rules API', () => {
  let t: TestApp
  let profile: any
  before(async () => {
    t = await startPolicyApp()
    profile = await createProfile(t, { vlan: 10 })
  })
  after(async () => t?.stop())

  it('starts with the default rule giving the deny profile', async () => {
    const rules = await listRules(t)
    const def = rules[rules.length - 1]
    expect(def).to.include({ name: 'default', is_default: true, enabled: true, authorization_profile_name: 'deny' })
    expect(def.conditions).to.deep.equal([])
  })

  it('creates rules with every condition type, answering names and labels, inserted before the default', async () => {
    const ug = await createUserGroup(t)
    const eg = await createGroup(t)
    const dg = await createDeviceGroup(t)
    const conditions = [
      { type: 'method', methods: ['mab', 'peap'] },
      { type: 'user_group', group_ids: [ug.id] },
      { type: 'endpoint_group', group_ids: [eg.id.toUpperCase()] },
      { type: 'device_type', device_types: ['printer', 'printer'] },
      { type: 'device_group', group_ids: [dg.id] },
      { type: 'certificate', field: 'issuer_cn', values: ['Corp CA', 'corp ca'] },
      { type: 'nas_port_type', values: ['Ethernet'] },
      { type: 'time_window', days: ['fri', 'mon', 'tue', 'wed', 'thu'], start: '08:00', end: '18:00' },
    ]
    const r = await createRule(t, { authorization_profile_id: profile.id, conditions, description: 'all' })
    expect(r.conditions).to.deep.equal([
      { type: 'method', methods: ['peap', 'mab'] },
      { type: 'user_group', group_ids: [ug.id], groups: [{ id: ug.id, name: ug.name }] },
      { type: 'endpoint_group', group_ids: [eg.id], groups: [{ id: eg.id, name: eg.name }] },
      { type: 'device_type', device_types: ['printer'] },
      { type: 'device_group', group_ids: [dg.id], groups: [{ id: dg.id, name: dg.name }] },
      { type: 'certificate', field: 'issuer_cn', values: ['Corp CA'] },
      { type: 'nas_port_type', values: ['Ethernet'] },
      { type: 'time_window', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00', label: 'Mon-Fri 08:00-18:00' },
    ])
    expect(r).to.include({ authorization_profile_id: profile.id, authorization_profile_name: profile.name, is_default: false, enabled: true })
    const rules = await expectOrderIntact(t)
    expect(rules[rules.length - 2].id).to.equal(r.id)
    expect((await auditRows(t, r.id)).map((a) => a.action)).to.deep.equal(['nac_policy_rule.create'])
    // A rename shows at once: names are read when answering.
    await t.admin('PUT', `/api/v1/nac/endpoint-groups/${eg.id}`, { body: { name: `${eg.name}-x` } })
    expect((await t.admin('GET', `${RULES}/${r.id}`)).body.conditions[2].groups[0].name).to.equal(`${eg.name}-x`)
  })

  it('refuses bad rules with 422/409 at the field and changes nothing', async () => {
    const taken = await createRule(t, { authorization_profile_id: profile.id })
    const p = profile.id
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ authorization_profile_id: randomUUID() }, 422, 'REFERENCE_NOT_FOUND', 'authorization_profile_id'],
      [{}, 422, 'FIELD_REQUIRED', 'authorization_profile_id'],
      [{ authorization_profile_id: p, name: taken.name.toUpperCase() }, 409, 'NAC_RULE_NAME_TAKEN', 'name'],
      [{ authorization_profile_id: p, name: 'a b' }, 422, 'VALIDATION_FAILED', 'name'],
      [{ authorization_profile_id: p, position: 100000 }, 422, 'VALIDATION_FAILED', 'position'],
      [{ authorization_profile_id: p, conditions: [{ type: 'method' }] }, 422, 'VALIDATION_FAILED', 'conditions[0].methods'],
      [{ authorization_profile_id: p, conditions: [{ type: 'method', methods: ['pap'] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].methods[0]'],
      [{ authorization_profile_id: p, conditions: [{ type: 'method', methods: ['mab'], values: ['x'] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].values'],
      [{ authorization_profile_id: p, conditions: [{ type: 'method', methods: ['mab'] }, { type: 'method', methods: ['peap'] }] }, 422, 'VALIDATION_FAILED', 'conditions[1].type'],
      [{ authorization_profile_id: p, conditions: [{ type: 'user_group', group_ids: [randomUUID()] }] }, 422, 'REFERENCE_NOT_FOUND', 'conditions[0].group_ids[0]'],
      [{ authorization_profile_id: p, conditions: [{ type: 'endpoint_group', group_ids: [randomUUID()] }] }, 422, 'REFERENCE_NOT_FOUND', 'conditions[0].group_ids[0]'],
      [{ authorization_profile_id: p, conditions: [{ type: 'device_group', group_ids: [randomUUID()] }] }, 422, 'REFERENCE_NOT_FOUND', 'conditions[0].group_ids[0]'],
      [{ authorization_profile_id: p, conditions: [{ type: 'user_group', group_ids: [] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].group_ids'],
      [{ authorization_profile_id: p, conditions: [{ type: 'device_type', device_types: ['a"b'] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].device_types[0]'],
      // The renderer's rule (sdk certificateValueProblem): printable ASCII only, so no deploy fails on an accepted rule.
      [{ authorization_profile_id: p, conditions: [{ type: 'certificate', field: 'san_dns', values: ['ok.example', 'café.example'] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].values[1]'],
      [{ authorization_profile_id: p, conditions: [{ type: 'certificate', field: 'issuer_cn', values: ['Zürich CA'] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].values[0]'],
      [{ authorization_profile_id: p, conditions: [{ type: 'certificate', field: 'san_email', values: ['a\tb@example.net'] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].values[0]'],
      [{ authorization_profile_id: p, conditions: [{ type: 'certificate', values: ['x'] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].field'],
      [{ authorization_profile_id: p, conditions: [{ type: 'nas_port_type', values: ['Ethernet', 'Copper'] }] }, 422, 'VALIDATION_FAILED', 'conditions[0].values[1]'],
      [{ authorization_profile_id: p, conditions: [{ type: 'time_window', days: ['mon'], start: '08:00', end: '08:00' }] }, 422, 'VALIDATION_FAILED', 'conditions[0].end'],
      [{ authorization_profile_id: p, conditions: [{ type: 'time_window', days: ['mon'], start: '8:00', end: '09:00' }] }, 422, 'VALIDATION_FAILED', 'conditions[0].start'],
      [{ authorization_profile_id: p, conditions: [{ type: 'vlan' }] }, 422, 'VALIDATION_FAILED', 'conditions[0].type'],
    ]
    const before = await policySnapshot(t)
    for (const [body, status, code, field] of cases) expectError(await t.admin('POST', RULES, { body: { name: uniq('bad'), ...body } }), status, code, field)
    expectError(await t.admin('PUT', `${RULES}/${taken.id}`, { body: { conditions: [{ type: 'user_group', group_ids: [randomUUID()] }] } }), 422, 'REFERENCE_NOT_FOUND', 'conditions[0].group_ids[0]')
    expectError(await t.admin('PUT', `${RULES}/${taken.id}`, { body: { authorization_profile_id: randomUUID() } }), 422, 'REFERENCE_NOT_FOUND', 'authorization_profile_id')
    expectError(await t.admin('PUT', `${RULES}/${randomUUID()}`, { body: {} }), 404, 'NOT_FOUND', 'rule_id')
    expectError(await t.admin('GET', `${RULES}/nope`), 422, 'VALIDATION_FAILED', 'rule_id')
    expect(await policySnapshot(t)).to.equal(before)
  })

  it('takes every printable ASCII character in a certificate value (the tree writes each as a regex escape: plugins/radius/test/e2e-nac.test.ts)', async () => {
    const p = (await t.admin('POST', '/api/v1/nac/authorization-profiles', { body: { name: uniq('cert-p'), vlan: 12 } })).body.id
    const values = ['a$b.example', '%{User-Name}', 'R+D/Lab "q" \\ \'{}~!#&()*,-.:;<=>?@[]^_`| CA']
    for (const field of ['issuer_cn', 'san_email', 'san_dns']) {
      const r = await t.admin('POST', RULES, { body: { name: uniq('cert'), authorization_profile_id: p, conditions: [{ type: 'certificate', field, values }] } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      expect(r.body.conditions[0].values).to.deep.equal(values)
    }
  })

  it('changes a rule: moves it, replaces its conditions, disables it; audits', async () => {
    const a = await createRule(t, { authorization_profile_id: profile.id })
    const b = await createRule(t, { authorization_profile_id: profile.id, conditions: [{ type: 'method', methods: ['mab'] }] })
    const u = await t.admin('PUT', `${RULES}/${b.id}`, { body: { position: a.position, conditions: [], enabled: false } })
    expect(u.status, u.text).to.equal(200)
    expect(u.body).to.include({ position: a.position, enabled: false })
    expect(u.body.conditions).to.deep.equal([])
    expect((await t.admin('GET', `${RULES}/${a.id}`)).body.position).to.equal(a.position + 1)
    await expectOrderIntact(t)
    const audit = await auditRows(t, b.id)
    expect(audit.map((x) => x.action)).to.deep.equal(['nac_policy_rule.create', 'nac_policy_rule.update'])
    expect(audit[1].before.conditions).to.have.length(1)
    expect((await t.admin('DELETE', `${RULES}/${a.id}`)).status).to.equal(204)
    await expectOrderIntact(t)
  })

  it('protects the default rule: not deleted, moved, disabled or conditioned; its profile and name change', async () => {
    const def = (await listRules(t)).find((r) => r.is_default)
    expectError(await t.admin('DELETE', `${RULES}/${def.id}`), 409, 'DEFAULT_RULE_PROTECTED', 'rule_id')
    expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { position: 0 } }), 422, 'DEFAULT_RULE_FIXED', 'position')
    expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { enabled: false } }), 422, 'DEFAULT_RULE_FIXED', 'enabled')
    expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { conditions: [{ type: 'method', methods: ['mab'] }] } }), 422, 'DEFAULT_RULE_FIXED', 'conditions')
    const guest = await createProfile(t, { vlan: 'GUEST' })
    const u = await t.admin('PUT', `${RULES}/${def.id}`, { body: { authorization_profile_id: guest.id, description: 'unknown endpoints go to the guest VLAN' } })
    expect(u.body).to.include({ authorization_profile_name: guest.name, is_default: true })
    // A rule cannot be moved below the default either.
    const r = await createRule(t, { authorization_profile_id: profile.id })
    const last = (await listRules(t)).find((x) => x.is_default).position
    expectError(await t.admin('PUT', `${RULES}/${r.id}`, { body: { position: last } }), 422, 'VALIDATION_FAILED', 'position')
    await expectOrderIntact(t)
  })

  it('holds what conditions name: deleting a named user, endpoint or device group answers 409 naming the rule', async () => {
    const ug = await createUserGroup(t)
    const eg = await createGroup(t)
    const dg = await createDeviceGroup(t)
    const r = await createRule(t, {
      authorization_profile_id: profile.id,
      conditions: [
        { type: 'user_group', group_ids: [ug.id] },
        { type: 'endpoint_group', group_ids: [eg.id] },
        { type: 'device_group', group_ids: [dg.id] },
      ],
    })
    for (const path of [`/api/v1/user-groups/${ug.id}`, `/api/v1/nac/endpoint-groups/${eg.id}`, `/api/v1/device-groups/${dg.id}`]) {
      const res = await t.admin('DELETE', path)
      expect(res.status, `${path} ${res.text}`).to.equal(409)
      expect(res.body.detail, path).to.include(r.name)
    }
    const refs = await t.admin('GET', `/api/v1/nac/endpoint-groups/${eg.id}/references`)
    expect(refs.body.blocking).to.deep.equal([{ type: 'nac_policy_rule', id: r.id, name: r.name }])
    expect((await t.admin('PUT', `${RULES}/${r.id}`, { body: { conditions: [] } })).status).to.equal(200)
    for (const path of [`/api/v1/user-groups/${ug.id}`, `/api/v1/nac/endpoint-groups/${eg.id}`, `/api/v1/device-groups/${dg.id}`]) {
      expect((await t.admin('DELETE', path)).status, path).to.equal(204)
    }
  })

  it('never leaves a rule naming a deleted group when a rule create and the group delete race', async function () {
    this.timeout(120_000)
    for (let i = 0; i < 6; i++) {
      const eg = await createGroup(t)
      const ug = await createUserGroup(t)
      const [rule, delE, delU] = await Promise.all([
        t.admin('POST', RULES, { body: { name: uniq('race'), authorization_profile_id: profile.id, conditions: [{ type: 'endpoint_group', group_ids: [eg.id] }, { type: 'user_group', group_ids: [ug.id] }] } }),
        t.admin('DELETE', `/api/v1/nac/endpoint-groups/${eg.id}`),
        t.admin('DELETE', `/api/v1/user-groups/${ug.id}`),
      ])
      expect([201, 422], rule.text).to.include(rule.status)
      if (rule.status === 201) {
        expect(delE.status, delE.text).to.equal(409)
        expect(delU.status, delU.text).to.equal(409)
        await t.admin('DELETE', `${RULES}/${rule.body.id}`)
      } else {
        expect(rule.body.code).to.equal('REFERENCE_NOT_FOUND')
      }
    }
    const rows = await t.app.db.knex('nac_policy_rules').select('endpoint_group_ids', 'user_group_ids')
    const egs = new Set((await t.app.db.knex('nac_endpoint_groups').pluck('id')) as string[])
    const ugs = new Set((await t.app.db.knex('user_groups').pluck('id')) as string[])
    for (const r of rows) {
      for (const id of r.endpoint_group_ids) expect(egs.has(id), id).to.equal(true)
      for (const id of r.user_group_ids) expect(ugs.has(id), id).to.equal(true)
    }
  })

  it('filters the list by profile', async () => {
    const p = await createProfile(t)
    const r = await createRule(t, { authorization_profile_id: p.id })
    const l = await t.admin('GET', `${RULES}?authorization_profile_id=${p.id}`)
    expect(l.body.map((x: any) => x.id)).to.deep.equal([r.id])
  })

  it('searches the list by name or description (case-insensitive, LIKE wildcards literal), in evaluation order', async () => {
    const tag = uniq('Qs')
    const a = await createRule(t, { authorization_profile_id: profile.id, name: `${tag}-guests` })
    const b = await createRule(t, { authorization_profile_id: profile.id, description: `printers of ${tag}` })
    await createRule(t, { authorization_profile_id: profile.id, description: 'something else' })
    const l = await t.admin('GET', `${RULES}?search=${encodeURIComponent(tag.toLowerCase())}`)
    expect(l.status).to.equal(200)
    expect(l.body.map((x: any) => x.id)).to.deep.equal([a.id, b.id])
    expect((await t.admin('GET', `${RULES}?search=${encodeURIComponent('%')}`)).body).to.deep.equal([])
    expect((await t.admin('GET', `${RULES}?search=default`)).body.map((x: any) => x.is_default)).to.include(true)
  })

  it('reads with nac.policy.read, writes with nac.policy.write, 401 without a token', async () => {
    const reader = await t.token({ permissions: ['nac.policy.read'] })
    const writer = await t.token({ permissions: ['nac.policy.write'] })
    const none = await t.token({ permissions: ['nac.read', 'nac.write'] })
    const r = await createRule(t, { authorization_profile_id: profile.id })
    expect((await t.req('GET', RULES, { token: none })).status).to.equal(403)
    expect((await t.req('GET', RULES, { token: reader })).status).to.equal(200)
    expect((await t.req('POST', RULES, { token: reader, body: { name: uniq('r'), authorization_profile_id: profile.id } })).status).to.equal(403)
    expect((await t.req('PUT', `${RULES}/${r.id}`, { token: reader, body: {} })).status).to.equal(403)
    expect((await t.req('DELETE', `${RULES}/${r.id}`, { token: reader })).status).to.equal(403)
    expect((await t.req('PUT', `${RULES}/reorder`, { token: reader, body: { rule_ids: [r.id] } })).status).to.equal(403)
    expect((await t.req('POST', RULES, { token: writer, body: { name: uniq('w'), authorization_profile_id: profile.id } })).status).to.equal(201)
    expect((await t.req('GET', RULES)).status).to.equal(401)
    expect((await t.req('PUT', `${RULES}/reorder`, { body: { rule_ids: [r.id] } })).status).to.equal(401)
  })
})
