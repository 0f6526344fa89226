/**
 * The policy test serves the ordered rules from memory (services/cache.ts), checked per request
 * against aaa_policy_version, which the rules' own trigger bumps (migration 0002), and the owners'
 * rename events through the reference contract (services/references.ts). Each change below comes
 * right after a policy test that filled the cache, and the next answer must already show it: a
 * rule edit, a reorder, a profile delete (the profile's guard clears the rules), renames of a user
 * group, a user and a device (each through its owner's API), bare SQL on the policy's own table.
 * On both engines, so the PL/pgSQL trigger is checked on the embedded one too.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { testEngines } from '../../../test/kit/app.js'
import { clearRules, createDevice, createRule, createTacacsProfile, createUser, createUserGroup, defaultRule, RULES, startPolicyApp, uniq } from './helpers.js'

const rename = async (t: TestApp, path: string, body: Record<string, unknown>) => {
  const r = await t.admin('PUT', path, { body })
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
  return r.body
}

const TEST = '/api/v1/aaa/policy/test'
const RULES_TABLE = 'aaa_policy_rules'

for (const engine of testEngines()) {
  describe(`AAA policy: the in-memory rules of the policy test follow every change (${engine})`, () => {
    let t: TestApp
    let noc: any, alice: any, sw: any, tpAdmin: any, tpRead: any, rGroup: any, rUser: any, def: any

    const test = async () => {
      const r = await t.admin('POST', TEST, { body: { protocol: 'tacacs', username: alice.username, device_id: sw.id } })
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return r.body
    }
    const version = async () => String((await t.app.db.knex('aaa_policy_version').first('version'))?.version)

    before(async () => {
      t = await startPolicyApp({ engine })
      noc = await createUserGroup(t)
      alice = await createUser(t, { group_ids: [noc.id] })
      sw = await createDevice(t)
      tpAdmin = await createTacacsProfile(t, { privilege_level: 15 })
      tpRead = await createTacacsProfile(t, { privilege_level: 1 })
      await clearRules(t)
      rGroup = await createRule(t, { name: 'noc-sw', who: { group_id: noc.id }, where: { device_id: sw.id }, tacacs_profile_id: tpAdmin.id })
      rUser = await createRule(t, { name: 'alice-sw', who: { user_id: alice.id }, where: { device_id: sw.id }, tacacs_profile_id: tpRead.id })
      def = await defaultRule(t)
    })
    after(async () => t?.stop())

    it('answers the same from memory as from the database, and a read changes no version', async () => {
      const v = await version()
      const first = await test()
      const second = await test()
      expect(second).to.deep.equal(first)
      expect(first).to.include({ decision: 'permit' })
      expect(first.matched_rule).to.deep.equal({ id: rGroup.id, name: 'noc-sw', position: 0 })
      expect(first.trace[0].reason).to.equal(`matched: user ${alice.username} in group ${noc.name}, device ${sw.name}`)
      expect(await version()).to.equal(v)
    })

    it('a rule edit: disabled, the next rule decides; enabled again, it decides again', async () => {
      await test()
      expect((await t.admin('PUT', `${RULES}/${rGroup.id}`, { body: { enabled: false } })).status).to.equal(200)
      const off = await test()
      expect(off.matched_rule.id).to.equal(rUser.id)
      expect(off.profile.id).to.equal(tpRead.id)
      expect(off.trace[0]).to.include({ rule_id: rGroup.id, enabled: false, matched: false, reason: 'disabled' })
      expect((await t.admin('PUT', `${RULES}/${rGroup.id}`, { body: { enabled: true } })).status).to.equal(200)
      expect((await test()).matched_rule.id).to.equal(rGroup.id)
    })

    it('a reorder: the rule moved first decides', async () => {
      expect((await test()).matched_rule.id).to.equal(rGroup.id)
      const r = await t.admin('PUT', `${RULES}/reorder`, { body: { rule_ids: [rUser.id, rGroup.id, def.id] } })
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const after = await test()
      expect(after.matched_rule).to.deep.equal({ id: rUser.id, name: 'alice-sw', position: 0 })
      expect(after.profile.id).to.equal(tpRead.id)
    })

    it("a profile delete: the profile's reference guard clears the rule's profile, so the rule denies", async () => {
      expect(await test()).to.include({ decision: 'permit' })
      expect((await t.admin('DELETE', `/api/v1/tacacs/profiles/${tpRead.id}`)).status).to.equal(204)
      const after = await test()
      expect(after).to.include({ decision: 'deny', reason: 'rule alice-sw has no TACACS+ profile, so it denies', profile: null })
      expect(after.matched_rule.id).to.equal(rUser.id)
    })

    it("a user group rename: the trace shows the group's new name", async () => {
      expect((await t.admin('PUT', `${RULES}/reorder`, { body: { rule_ids: [rGroup.id, rUser.id, def.id] } })).status).to.equal(200)
      expect((await test()).trace[0].reason).to.contain(`in group ${noc.name},`)
      const name = uniq('renamed')
      const r = await t.admin('PUT', `/api/v1/user-groups/${noc.id}`, { body: { name } })
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const after = await test()
      expect(after.matched_rule.id).to.equal(rGroup.id)
      expect(after.trace[0].reason).to.equal(`matched: user ${alice.username} in group ${name}, device ${sw.name}`)
      noc = r.body
    })

    it("a user rename and a device rename (the kernel's and the inventory's rename events): the trace shows the new names", async () => {
      const bob = await createUser(t)
      const sw2 = await createDevice(t)
      const byUser = await createRule(t, { who: { user_id: bob.id }, where: { device_id: sw.id }, position: 0 })
      const byDevice = await createRule(t, { who: { group_id: noc.id }, where: { device_id: sw2.id }, position: 1 })
      let trace = (await test()).trace
      expect(trace[0].reason).to.equal(`user is not ${bob.username}`)
      expect(trace[1].reason).to.equal(`device ${sw.name} is not ${sw2.name}`)
      const v = await version()
      const newUser = uniq('bob')
      const newDevice = uniq('sw2')
      await rename(t, `/api/v1/users/${bob.id}`, { username: newUser })
      trace = (await test()).trace
      expect(trace[0].reason).to.equal(`user is not ${newUser}`)
      await rename(t, `/api/v1/devices/${sw2.id}`, { name: newDevice })
      trace = (await test()).trace
      expect(trace[1].reason).to.equal(`device ${sw.name} is not ${newDevice}`)
      expect(BigInt(await version()) - BigInt(v)).to.equal(2n)
      // A change that renames nothing announces nothing: the views stay cached.
      await rename(t, `/api/v1/devices/${sw2.id}`, { description: 'same name' })
      expect(await version()).to.equal(String(BigInt(v) + 2n))
      for (const r of [byUser, byDevice]) expect((await t.admin('DELETE', `${RULES}/${r.id}`)).status).to.equal(204)
    })

    it("changes made in bare SQL to the policy's own table are seen too (its trigger, not the routes, bumps the version)", async () => {
      await test()
      const v = await version()
      await t.app.db.knex(RULES_TABLE).where({ id: rGroup.id }).update({ tacacs_profile_id: null })
      const after = await test()
      expect(after).to.include({ decision: 'deny', reason: 'rule noc-sw has no TACACS+ profile, so it denies' })
      expect(BigInt(await version()) - BigInt(v)).to.equal(1n)
    })
  })
}
