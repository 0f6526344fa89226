/**
 * What a rule references is held through its owners' contracts
 * (sdk/references.ts), not foreign keys: the policy keeps no foreign key and no
 * trigger on another plugin's or the kernel's tables; a delete of a referenced
 * user, group, device or device group is refused by the owner, naming the
 * rules; and a delete racing a rule that takes the record never leaves a rule
 * pointing at nothing (the owner's FOR UPDATE against the rule's FOR KEY
 * SHARE). On both engines (the embedded one runs the races one at a time).
 */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { testEngines } from '../../../test/kit/app.js'
import { createDevice, createDeviceGroup, createRule, createTacacsProfile, createUser, createUserGroup, expectError, expectOrderIntact, RULES, startPolicyApp, uniq } from './helpers.js'

const OTHERS = ['users', 'user_groups', 'inventory_devices', 'inventory_device_groups', 'tacacs_profiles', 'radius_profiles']

for (const engine of testEngines()) {
  describe(`AAA policy: references held through their owners (${engine})`, function () {
    this.timeout(60_000)
    let t: TestApp
    let user: any, device: any

    before(async () => {
      t = await startPolicyApp({ engine })
      user = await createUser(t)
      device = await createDevice(t)
    })
    after(async () => t?.stop())

    it("keeps no foreign key to, and no trigger on, the kernel's or another plugin's tables", async () => {
      const knex = t.app.db.knex
      const fks = await knex.raw(`SELECT conname, confrelid::regclass::text AS target FROM pg_constraint WHERE conrelid = 'aaa_policy_rules'::regclass AND contype = 'f'`)
      expect(fks.rows).to.deep.equal([])
      const triggers = await knex.raw(
        `SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND c.relname = ANY(?::text[])`,
        [`{${OTHERS.join(',')}}`],
      )
      expect(triggers.rows.filter((r: { tgname: string }) => r.tgname.startsWith('aaa_policy'))).to.deep.equal([])
    })

    it('refuses deleting a referenced user, user group, device or device group with 409 naming the rules, each owner its own code, and lists them before (GET …/references)', async () => {
      const [u, g, dev, dg] = await Promise.all([createUser(t), createUserGroup(t), createDevice(t), createDeviceGroup(t)])
      const rules = {
        user: await createRule(t, { name: uniq('by-user'), who: { user_id: u.id }, where: { device_id: device.id } }),
        group: await createRule(t, { name: uniq('by-group'), who: { group_id: g.id }, where: { device_id: device.id } }),
        device: await createRule(t, { name: uniq('by-device'), who: { user_id: user.id }, where: { device_id: dev.id } }),
        dg: await createRule(t, { name: uniq('by-dg'), who: { user_id: user.id }, where: { device_group_id: dg.id } }),
      }
      const second = await createRule(t, { name: uniq('also-by-device'), who: { group_id: g.id }, where: { device_id: dev.id } })
      for (const [path, code, field, named] of [
        [`/api/v1/users/${u.id}`, 'RECORD_IN_USE', 'user_id', [rules.user]],
        [`/api/v1/user-groups/${g.id}`, 'RECORD_IN_USE', 'group_id', [rules.group, second]],
        [`/api/v1/devices/${dev.id}`, 'DEVICE_IN_USE', 'device_id', [rules.device, second]],
        [`/api/v1/device-groups/${dg.id}`, 'GROUP_IN_USE', 'device_group_id', [rules.dg]],
      ] as const) {
        // Asked before the delete (GET …/references, what the console's confirmation lists): the same rules, blocking.
        const report = await t.admin('GET', `${path}/references`)
        expect(report.status, report.text).to.equal(200)
        expect(report.body.auto_clearing).to.deep.equal([])
        expect(report.body.blocking).to.deep.equal(named.map((x) => ({ type: 'aaa_policy_rule', id: x.id, name: x.name })).sort((x, y) => (x.name < y.name ? -1 : 1)))
        const r = await t.admin('DELETE', path)
        expectError(r, 409, code, field)
        for (const rule of named) expect(r.body.detail, path).to.contain(`aaa_policy_rule "${rule.name}"`)
      }
      // Nothing refers: empty lists; no such record: 404 at its id.
      const free = await createDeviceGroup(t)
      expect((await t.admin('GET', `/api/v1/device-groups/${free.id}/references`)).body).to.deep.equal({ blocking: [], auto_clearing: [] })
      for (const path of ['/api/v1/devices', '/api/v1/device-groups', '/api/v1/users', '/api/v1/user-groups']) {
        const missing = await t.admin('GET', `${path}/00000000-0000-4000-8000-000000000000/references`)
        expect(missing.status, path).to.equal(404)
      }
      // Russian too: the referrers are named in every language.
      const ru = await t.admin('DELETE', `/api/v1/devices/${dev.id}`, { headers: { 'Accept-Language': 'ru' } })
      expect(ru.body.detail).to.match(/^На устройство ещё ссылаются: /)
      expect(ru.body.detail).to.contain(`aaa_policy_rule "${rules.device.name}"`)
    })

    it('a device delete racing rules that take the device: each pair ends as (rule 201, delete 409) or (rule 422, delete 204), never a rule naming nothing', async () => {
      const devices = await Promise.all(Array.from({ length: 8 }, () => createDevice(t)))
      const outcomes = await race(t, devices, (d) => ({ who: { user_id: user.id }, where: { device_id: d.id } }), (d) => `/api/v1/devices/${d.id}`)
      for (const o of outcomes) expect(o).to.be.oneOf(['201/409', '422/204'])
      await expectNothingDangles(t)
    })

    it('a user delete racing rules that take the user: the same', async () => {
      const users = await Promise.all(Array.from({ length: 8 }, () => createUser(t)))
      const outcomes = await race(t, users, (u) => ({ who: { user_id: u.id }, where: { device_id: device.id } }), (u) => `/api/v1/users/${u.id}`)
      for (const o of outcomes) expect(o).to.be.oneOf(['201/409', '422/204'])
      await expectNothingDangles(t)
    })

    it('a profile delete racing rules that take the profile: the rule is refused (422) or keeps no profile, never one that is gone', async () => {
      const profiles = await Promise.all(Array.from({ length: 8 }, () => createTacacsProfile(t)))
      const outcomes = await race(
        t,
        profiles,
        (p) => ({ who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: p.id }),
        (p) => `/api/v1/tacacs/profiles/${p.id}`,
      )
      // The profile always goes: a rule never blocks a profile's delete.
      for (const o of outcomes) expect(o).to.be.oneOf(['201/204', '422/204'])
      await expectNothingDangles(t)
      await expectOrderIntact(t)
    })
  })
}

/**
 * For each record, a rule that takes it (`rule(record)`, named afresh) and the record's delete, sent
 * together: the pair's statuses as `rule/delete`.
 */
async function race(t: TestApp, records: { id: string }[], rule: (r: { id: string }) => object, deletePath: (r: { id: string }) => string): Promise<string[]> {
  return Promise.all(
    records.map(async (r) => {
      const [created, del] = await Promise.all([t.admin('POST', RULES, { body: { name: uniq('race'), ...rule(r) } }), t.admin('DELETE', deletePath(r))])
      return `${created.status}/${del.status}`
    }),
  )
}

/** Every reference a rule holds names a record its owner still has (read through the owners' APIs). */
async function expectNothingDangles(t: TestApp): Promise<void> {
  const rules = (await t.admin('GET', RULES)).body as any[]
  const paths: [string | null, (id: string) => string][] = []
  for (const r of rules) {
    paths.push([r.who_user_id, (id) => `/api/v1/users/${id}`], [r.who_group_id, (id) => `/api/v1/user-groups/${id}`])
    paths.push([r.where_device_id, (id) => `/api/v1/devices/${id}`], [r.where_device_group_id, (id) => `/api/v1/device-groups/${id}`])
    paths.push([r.tacacs_profile_id, (id) => `/api/v1/tacacs/profiles/${id}`], [r.radius_profile_id, (id) => `/api/v1/radius/profiles/${id}`])
    if (!r.is_default) expect(r.who_name, r.name).to.be.a('string')
    if (!r.is_default) expect(r.where_name, r.name).to.be.a('string')
  }
  for (const [id, path] of paths) if (id) expect((await t.admin('GET', path(id))).status, path(id)).to.equal(200)
}
