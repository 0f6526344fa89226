/** /api/v1/aaa/policy/rules: create, read, change, delete; strict bodies, references, the default rule, cascades, audit. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import {
  auditRows, clearRules, createDevice, createDeviceGroup, createRadiusProfile, createRule, createTacacsProfile, createUser, createUserGroup, defaultRule,
  expectError, expectOrderIntact, listRules, NIL, RULES, startPolicyApp, uniq,
} from './helpers.js'

const FIELDS = [
  'id', 'name', 'description', 'enabled', 'position', 'is_default', 'who_user_id', 'who_group_id', 'where_device_id', 'where_device_group_id',
  'tacacs_profile_id', 'radius_profile_id', 'who_name', 'where_name', 'tacacs_profile_name', 'radius_profile_name', 'time_window', 'client_prefixes', 'created_at', 'updated_at',
]

describe('AAA policy rules: CRUD', () => {
  let t: TestApp
  let user: any
  let group: any
  let device: any
  let dgroup: any
  let tp: any
  let rp: any
  before(async () => {
    t = await startPolicyApp()
    ;[user, group, device, dgroup, tp, rp] = await Promise.all([
      createUser(t), createUserGroup(t), createDevice(t), createDeviceGroup(t), createTacacsProfile(t), createRadiusProfile(t),
    ])
  })
  after(async () => t?.stop())

  describe('the default rule', () => {
    it('exists from the start: named default, last, no who/where, no profiles (it denies)', async () => {
      const rules = await listRules(t)
      const def = rules[rules.length - 1]
      expect(Object.keys(def).sort()).to.deep.equal([...FIELDS].sort())
      expect(def).to.include({ name: 'default', is_default: true, enabled: true, position: rules.length - 1 })
      expect(def).to.include({ who_user_id: null, who_group_id: null, where_device_id: null, where_device_group_id: null, tacacs_profile_id: null, radius_profile_id: null })
      expect(def).to.include({ who_name: null, where_name: null })
    })

    it('cannot be deleted: 409 DEFAULT_RULE_PROTECTED, in both languages', async () => {
      const def = await defaultRule(t)
      expectError(await t.admin('DELETE', `${RULES}/${def.id}`), 409, 'DEFAULT_RULE_PROTECTED', 'rule_id')
      const ru = await t.admin('DELETE', `${RULES}/${def.id}`, { headers: { 'accept-language': 'ru' } })
      expect(ru.body.detail).to.match(/по умолчанию/)
      expect((await t.admin('GET', `${RULES}/${def.id}`)).status).to.equal(200)
    })

    it('takes a name, description, enabled flag and profiles, but no who, where or position (422 DEFAULT_RULE_FIXED)', async () => {
      const def = await defaultRule(t)
      const r = await t.admin('PUT', `${RULES}/${def.id}`, { body: { tacacs_profile_id: tp.id, radius_profile_id: rp.id, description: 'catch-all' } })
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect(r.body).to.include({ tacacs_profile_id: tp.id, tacacs_profile_name: tp.name, radius_profile_name: rp.name, description: 'catch-all', is_default: true })
      expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { who: { user_id: user.id } } }), 422, 'DEFAULT_RULE_FIXED', 'who')
      expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { where: { device_id: device.id } } }), 422, 'DEFAULT_RULE_FIXED', 'where')
      expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { position: 0 } }), 422, 'DEFAULT_RULE_FIXED', 'position')
      expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { is_default: false } }), 422, 'UNKNOWN_FIELD', 'is_default')
      const back = await t.admin('PUT', `${RULES}/${def.id}`, { body: { tacacs_profile_id: null, radius_profile_id: null, description: null } })
      expect(back.body).to.include({ tacacs_profile_id: null, radius_profile_id: null, description: null })
    })

    it('stays last after creates, and there is exactly one', async () => {
      await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
      await createRule(t, { who: { group_id: group.id }, where: { device_group_id: dgroup.id }, position: 0 })
      const rows = await expectOrderIntact(t)
      expect(rows.length).to.be.greaterThan(2)
      // The database refuses a second default outright.
      const err = await t.app.db.knex('aaa_policy_rules').insert({ name: uniq('dup'), position: 99, is_default: true }).catch((e: unknown) => e as { code: string })
      expect((err as { code: string }).code).to.equal('23505')
    })
  })

  describe('create and read', () => {
    it('creates a rule before the default rule, with names resolved, and reads it back', async () => {
      const before = await listRules(t)
      const name = uniq('noc-core')
      const r = await t.admin('POST', RULES, {
        body: { name, description: '  ', who: { group_id: group.id }, where: { device_group_id: dgroup.id }, tacacs_profile_id: tp.id, radius_profile_id: rp.id },
      })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, description: null, enabled: true, is_default: false, position: before.length - 1 })
      expect(r.body).to.include({ who_user_id: null, who_group_id: group.id, who_name: group.name, where_device_id: null, where_device_group_id: dgroup.id, where_name: dgroup.name })
      expect(r.body).to.include({ tacacs_profile_id: tp.id, tacacs_profile_name: tp.name, radius_profile_id: rp.id, radius_profile_name: rp.name })
      expect(new Date(r.body.created_at).toISOString()).to.equal(r.body.created_at)
      const got = await t.admin('GET', `${RULES}/${r.body.id}`)
      expect(got.status).to.equal(200)
      expect(got.body).to.deep.equal(r.body)
      expect((await defaultRule(t)).position).to.equal(before.length)
      const audit = await auditRows(t, { resource_id: r.body.id })
      expect(audit.map((a) => a.action)).to.deep.equal(['aaa_policy_rule.create'])
      await expectOrderIntact(t)
    })

    it('inserts at a given position, moving the rest down', async () => {
      const a = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
      const b = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id }, position: a.position })
      expect(b.position).to.equal(a.position)
      expect((await t.admin('GET', `${RULES}/${a.id}`)).body.position).to.equal(a.position + 1)
      const first = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id }, position: 0, enabled: false })
      expect(first).to.include({ position: 0, enabled: false })
      await expectOrderIntact(t)
    })

    it('searches by name or description, case-insensitively, with the other filters (AND), in evaluation order', async () => {
      const tag = uniq('Qs')
      const a = await createRule(t, { name: `${tag}-core`, who: { user_id: user.id }, where: { device_id: device.id } })
      const b = await createRule(t, { description: `edge of ${tag}`, who: { group_id: group.id }, where: { device_id: device.id } })
      await createRule(t, { description: 'unrelated', who: { user_id: user.id }, where: { device_id: device.id } })
      expect((await listRules(t, `?search=${encodeURIComponent(tag.toUpperCase())}`)).map((r) => r.id)).to.deep.equal([a.id, b.id])
      expect((await listRules(t, `?search=${encodeURIComponent(tag)}&who_user_id=${user.id}`)).map((r) => r.id)).to.deep.equal([a.id])
      expect(await listRules(t, `?search=${encodeURIComponent('_')}`)).to.deep.equal([])
    })

    it("accepts the default rule's position (just before it) but nothing beyond: 422 at position", async () => {
      const def = await defaultRule(t)
      const at = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id }, position: def.position })
      expect(at.position).to.equal(def.position)
      const def2 = await defaultRule(t)
      expectError(await t.admin('POST', RULES, { body: { name: uniq('x'), who: { user_id: user.id }, where: { device_id: device.id }, position: def2.position + 1 } }), 422, 'VALIDATION_FAILED', 'position')
      await expectOrderIntact(t)
    })

    it('refuses a taken name, case-insensitively: 409 RULE_NAME_TAKEN', async () => {
      const a = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
      expectError(await t.admin('POST', RULES, { body: { name: a.name.toUpperCase(), who: { user_id: user.id }, where: { device_id: device.id } } }), 409, 'RULE_NAME_TAKEN', 'name')
      expectError(await t.admin('POST', RULES, { body: { name: 'DEFAULT', who: { user_id: user.id }, where: { device_id: device.id } } }), 409, 'RULE_NAME_TAKEN', 'name')
      await expectOrderIntact(t)
    })

    it('answers 404 naming rule_id for an unknown id, 422 for a malformed one', async () => {
      for (const m of ['GET', 'PUT', 'DELETE']) {
        expectError(await t.admin(m, `${RULES}/${randomUUID()}`, m === 'PUT' ? { body: {} } : {}), 404, 'NOT_FOUND', 'rule_id')
        expectError(await t.admin(m, `${RULES}/not-a-uuid`, m === 'PUT' ? { body: {} } : {}), 422, 'VALIDATION_FAILED', 'rule_id')
      }
      expectError(await t.admin('GET', `${RULES}/${randomUUID()}/tacacs/preview`), 404, 'NOT_FOUND', 'rule_id')
    })
  })

  describe('strict bodies', () => {
    const ok = () => ({ name: uniq('r'), who: { user_id: user.id }, where: { device_id: device.id } })
    const cases: [string, () => Record<string, unknown>, string, string][] = [
      ['an unknown field', () => ({ ...ok(), colour: 'red' }), 'UNKNOWN_FIELD', 'colour'],
      ['an unknown field in who', () => ({ ...ok(), who: { user_id: user.id, role_id: NIL } }), 'UNKNOWN_FIELD', 'who.role_id'],
      ['flat who fields', () => ({ ...ok(), who_user_id: user.id }), 'UNKNOWN_FIELD', 'who_user_id'],
      ['is_default', () => ({ ...ok(), is_default: true }), 'UNKNOWN_FIELD', 'is_default'],
      ['no name', () => ({ who: { user_id: user.id }, where: { device_id: device.id } }), 'FIELD_REQUIRED', 'name'],
      ['no who', () => ({ name: uniq('r'), where: { device_id: device.id } }), 'FIELD_REQUIRED', 'who'],
      ['no where', () => ({ name: uniq('r'), who: { user_id: user.id } }), 'FIELD_REQUIRED', 'where'],
      ['an empty name', () => ({ ...ok(), name: '' }), 'VALIDATION_FAILED', 'name'],
      ['a name with a space', () => ({ ...ok(), name: 'a b' }), 'VALIDATION_FAILED', 'name'],
      ['a name with a quote', () => ({ ...ok(), name: 'a"b' }), 'VALIDATION_FAILED', 'name'],
      ['a name starting with a dot', () => ({ ...ok(), name: '.a' }), 'VALIDATION_FAILED', 'name'],
      ['a 65-character name', () => ({ ...ok(), name: 'a'.repeat(65) }), 'VALIDATION_FAILED', 'name'],
      ['a 501-character description', () => ({ ...ok(), description: 'd'.repeat(501) }), 'VALIDATION_FAILED', 'description'],
      ['enabled as a string', () => ({ ...ok(), enabled: 'true' }), 'VALIDATION_FAILED', 'enabled'],
      ['a malformed user id', () => ({ ...ok(), who: { user_id: 'bob' } }), 'VALIDATION_FAILED', 'who.user_id'],
      ['an empty who', () => ({ ...ok(), who: {} }), 'VALIDATION_FAILED', 'who'],
      ['a user and a group', () => ({ ...ok(), who: { user_id: user.id, group_id: group.id } }), 'VALIDATION_FAILED', 'who'],
      ['an empty where', () => ({ ...ok(), where: {} }), 'VALIDATION_FAILED', 'where'],
      ['a device and a device group', () => ({ ...ok(), where: { device_id: device.id, device_group_id: dgroup.id } }), 'VALIDATION_FAILED', 'where'],
      ['a malformed profile id', () => ({ ...ok(), tacacs_profile_id: 'x' }), 'VALIDATION_FAILED', 'tacacs_profile_id'],
      ['a negative position', () => ({ ...ok(), position: -1 }), 'VALIDATION_FAILED', 'position'],
      ['a fractional position', () => ({ ...ok(), position: 1.5 }), 'VALIDATION_FAILED', 'position'],
    ]
    for (const [what, body, code, field] of cases) {
      it(`refuses ${what}: 422 ${code} at ${field}`, async () => {
        expectError(await t.admin('POST', RULES, { body: body() }), 422, code, field)
      })
    }

    it('refuses the same faults on update', async () => {
      const r = await createRule(t, ok())
      expectError(await t.admin('PUT', `${RULES}/${r.id}`, { body: { who: {} } }), 422, 'VALIDATION_FAILED', 'who')
      expectError(await t.admin('PUT', `${RULES}/${r.id}`, { body: { where: { device_id: device.id, device_group_id: dgroup.id } } }), 422, 'VALIDATION_FAILED', 'where')
      expectError(await t.admin('PUT', `${RULES}/${r.id}`, { body: { name: 'a b' } }), 422, 'VALIDATION_FAILED', 'name')
      expectError(await t.admin('PUT', `${RULES}/${r.id}`, { body: { bogus: 1 } }), 422, 'UNKNOWN_FIELD', 'bogus')
    })

    it('refuses unknown references naming the field: 422 REFERENCE_NOT_FOUND, nothing created', async () => {
      const n = (await listRules(t)).length
      const x = randomUUID()
      const cases: [Record<string, unknown>, string][] = [
        [{ who: { user_id: x } }, 'who.user_id'],
        [{ who: { group_id: x } }, 'who.group_id'],
        [{ where: { device_id: x } }, 'where.device_id'],
        [{ where: { device_group_id: x } }, 'where.device_group_id'],
        [{ tacacs_profile_id: x }, 'tacacs_profile_id'],
        [{ radius_profile_id: x }, 'radius_profile_id'],
      ]
      for (const [patch, field] of cases) {
        expectError(await t.admin('POST', RULES, { body: { ...ok(), ...patch } }), 422, 'REFERENCE_NOT_FOUND', field)
      }
      const r = await createRule(t, ok())
      for (const [patch, field] of cases) expectError(await t.admin('PUT', `${RULES}/${r.id}`, { body: patch }), 422, 'REFERENCE_NOT_FOUND', field)
      expect((await listRules(t)).length).to.equal(n + 1)
    })
  })

  describe('update', () => {
    it('changes only the fields given; who/where replace that part whole; null clears a profile', async () => {
      const r = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: tp.id, radius_profile_id: rp.id, description: 'x' })
      await new Promise((res) => setTimeout(res, 5))
      const u = await t.admin('PUT', `${RULES}/${r.id}`, { body: { who: { group_id: group.id }, where: { device_group_id: dgroup.id }, tacacs_profile_id: null, enabled: false } })
      expect(u.status, JSON.stringify(u.body)).to.equal(200)
      expect(u.body).to.include({ who_user_id: null, who_group_id: group.id, who_name: group.name, where_device_id: null, where_device_group_id: dgroup.id, where_name: dgroup.name })
      expect(u.body).to.include({ tacacs_profile_id: null, tacacs_profile_name: null, radius_profile_id: rp.id, description: 'x', enabled: false, name: r.name, position: r.position })
      expect(u.body.updated_at > r.updated_at).to.equal(true)
      const audit = await auditRows(t, { resource_id: r.id })
      expect(audit.map((a) => a.action)).to.deep.equal(['aaa_policy_rule.create', 'aaa_policy_rule.update'])
      expect(audit[1].before.who_user_id).to.equal(user.id)
      expect(audit[1].after.who_group_id).to.equal(group.id)
    })

    it('renames, refusing a taken name but allowing its own in another case', async () => {
      const a = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
      const b = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
      expectError(await t.admin('PUT', `${RULES}/${b.id}`, { body: { name: a.name } }), 409, 'RULE_NAME_TAKEN', 'name')
      const same = await t.admin('PUT', `${RULES}/${a.id}`, { body: { name: a.name.toUpperCase() } })
      expect(same.status).to.equal(200)
      expect(same.body.name).to.equal(a.name.toUpperCase())
    })

    it('moves a rule with position, shifting those between, but never to or past the default rule', async () => {
      await clearRules(t)
      const [a, b, c] = [await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } }), await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } }), await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })]
      const order = async () => (await listRules(t)).map((r) => r.id)
      const def = await defaultRule(t)
      expect(await order()).to.deep.equal([a.id, b.id, c.id, def.id])
      expect((await t.admin('PUT', `${RULES}/${c.id}`, { body: { position: 0 } })).body.position).to.equal(0)
      expect(await order()).to.deep.equal([c.id, a.id, b.id, def.id])
      expect((await t.admin('PUT', `${RULES}/${c.id}`, { body: { position: 2 } })).body.position).to.equal(2)
      expect(await order()).to.deep.equal([a.id, b.id, c.id, def.id])
      expectError(await t.admin('PUT', `${RULES}/${a.id}`, { body: { position: 3 } }), 422, 'VALIDATION_FAILED', 'position')
      expect(await order()).to.deep.equal([a.id, b.id, c.id, def.id])
      await expectOrderIntact(t)
    })
  })

  describe('delete', () => {
    it('deletes a rule and closes the gap (204), with an audit entry', async () => {
      await clearRules(t)
      const a = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
      const b = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
      const del = await t.admin('DELETE', `${RULES}/${a.id}`)
      expect(del.status).to.equal(204)
      expect(del.text).to.equal('')
      expect((await t.admin('GET', `${RULES}/${a.id}`)).status).to.equal(404)
      expect((await t.admin('GET', `${RULES}/${b.id}`)).body.position).to.equal(0)
      await expectOrderIntact(t)
      const audit = await auditRows(t, { resource_id: a.id })
      expect(audit.map((x) => x.action)).to.deep.equal(['aaa_policy_rule.create', 'aaa_policy_rule.delete'])
      expect(audit[1].before.name).to.equal(a.name)
    })
  })

  describe('what deleting a referenced record does', () => {
    it('refuses to delete a user, user group, device or device group a rule targets, until the rule is gone', async () => {
      const [u, g, dev, dg] = await Promise.all([createUser(t), createUserGroup(t), createDevice(t), createDeviceGroup(t)])
      const keep = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
      const byUser = await createRule(t, { who: { user_id: u.id }, where: { device_id: device.id }, position: 0 })
      const byGroup = await createRule(t, { who: { group_id: g.id }, where: { device_id: device.id }, position: 1 })
      const byDevice = await createRule(t, { who: { user_id: user.id }, where: { device_id: dev.id }, position: 0 })
      const byDg = await createRule(t, { who: { user_id: user.id }, where: { device_group_id: dg.id }, position: 2 })
      for (const [path, rule] of [[`/api/v1/users/${u.id}`, byUser], [`/api/v1/user-groups/${g.id}`, byGroup], [`/api/v1/devices/${dev.id}`, byDevice], [`/api/v1/device-groups/${dg.id}`, byDg]] as const) {
        const refused = await t.admin('DELETE', path)
        expect(refused.status, `${path} ${JSON.stringify(refused.body)}`).to.equal(409)
        expect(refused.body.code, path).to.be.oneOf(['RECORD_IN_USE', 'DEVICE_IN_USE', 'GROUP_IN_USE'])
        expect((await t.admin('GET', `${RULES}/${rule.id}`)).status, path).to.equal(200)
        expect((await t.admin('DELETE', `${RULES}/${rule.id}`)).status, path).to.equal(204)
        expect((await t.admin('DELETE', path)).status, path).to.equal(204)
        await expectOrderIntact(t)
      }
      expect((await t.admin('GET', `${RULES}/${keep.id}`)).status).to.equal(200)
    })

    it('deleting a profile clears it from the rules (they then deny), keeping the rules', async () => {
      const [tp2, rp2] = await Promise.all([createTacacsProfile(t), createRadiusProfile(t)])
      const r = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: tp2.id, radius_profile_id: rp2.id })
      expect((await t.admin('DELETE', `/api/v1/tacacs/profiles/${tp2.id}`)).status).to.equal(204)
      expect((await t.admin('DELETE', `/api/v1/radius/profiles/${rp2.id}`)).status).to.equal(204)
      const got = await t.admin('GET', `${RULES}/${r.id}`)
      expect(got.body).to.include({ tacacs_profile_id: null, tacacs_profile_name: null, radius_profile_id: null, radius_profile_name: null })
    })
  })

  describe('permissions', () => {
    it('reads with aaa-policy.read, writes with aaa-policy.write', async () => {
      const reader = await t.token({ permissions: ['aaa-policy.read'] })
      const writer = await t.token({ permissions: ['aaa-policy.write'] })
      const none = await t.token({ permissions: [] })
      expect((await t.req('GET', RULES, { token: none })).status).to.equal(403)
      expect((await t.req('GET', RULES, { token: reader })).status).to.equal(200)
      expect((await t.req('POST', RULES, { token: reader, body: {} })).status).to.equal(403)
      expect((await t.req('POST', '/api/v1/aaa/policy/test', { token: none, body: {} })).status).to.equal(403)
      const r = await t.req('POST', RULES, { token: writer, body: { name: uniq('w'), who: { user_id: user.id }, where: { device_id: device.id } } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      expect((await t.req('GET', RULES)).status).to.equal(401)
    })
  })
})
