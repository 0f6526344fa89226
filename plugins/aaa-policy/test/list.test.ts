/** GET /api/v1/aaa/policy/rules: evaluation order, every filter, AND across dimensions, OR within, resolve_groups. */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import {
  clearRules, createDevice, createDeviceGroup, createRadiusProfile, createRule, createTacacsProfile, createUser, createUserGroup, expectError, listRules, NIL,
  startPolicyApp,
} from './helpers.js'

describe('AAA policy rules: list and filters', () => {
  let t: TestApp
  // alice is in noc; bob in nothing. sw1 sits in branch, which sits under region (under root).
  let alice: any, bob: any, noc: any, other: any
  let root: any, region: any, branch: any, sw1: any, sw2: any
  let tp1: any, tp2: any, rp1: any
  let def: any
  const R: Record<string, any> = {}
  const names = (rules: any[]) => rules.map((r) => r.name)

  before(async () => {
    t = await startPolicyApp()
    ;[noc, other, tp1, tp2, rp1] = await Promise.all([createUserGroup(t), createUserGroup(t), createTacacsProfile(t), createTacacsProfile(t), createRadiusProfile(t)])
    ;[alice, bob] = await Promise.all([createUser(t, { group_ids: [noc.id] }), createUser(t)])
    root = await createDeviceGroup(t)
    region = await createDeviceGroup(t, { parent_id: root.id })
    branch = await createDeviceGroup(t, { parent_id: region.id })
    ;[sw1, sw2] = await Promise.all([createDevice(t, { device_group_id: branch.id }), createDevice(t)])
    await clearRules(t)
    const make = async (name: string, body: Record<string, unknown>) => (R[name] = await createRule(t, { name, ...body }))
    await make('alice-sw1', { who: { user_id: alice.id }, where: { device_id: sw1.id }, tacacs_profile_id: tp1.id })
    await make('noc-branch', { who: { group_id: noc.id }, where: { device_group_id: branch.id }, tacacs_profile_id: tp2.id, radius_profile_id: rp1.id })
    await make('noc-root', { who: { group_id: noc.id }, where: { device_group_id: root.id }, radius_profile_id: rp1.id })
    await make('bob-sw2', { who: { user_id: bob.id }, where: { device_id: sw2.id }, tacacs_profile_id: tp1.id })
    await make('other-sw1', { who: { group_id: other.id }, where: { device_id: sw1.id } })
    await make('alice-region', { who: { user_id: alice.id }, where: { device_group_id: region.id }, tacacs_profile_id: tp2.id })
    def = (await listRules(t)).find((r) => r.is_default)
  })
  after(async () => t?.stop())

  it('answers the whole list, not paginated, in evaluation order, the default last', async () => {
    const rules = await listRules(t)
    expect(names(rules)).to.deep.equal(['alice-sw1', 'noc-branch', 'noc-root', 'bob-sw2', 'other-sw1', 'alice-region', 'default'])
    expect(rules.map((r) => r.position)).to.deep.equal([0, 1, 2, 3, 4, 5, 6])
  })

  describe('one filter at a time (literal targets; the default rule is not listed)', () => {
    const cases: [string, () => string, string[]][] = [
      ['who_user_id', () => `who_user_id=${alice.id}`, ['alice-sw1', 'alice-region']],
      ['who_group_id', () => `who_group_id=${noc.id}`, ['noc-branch', 'noc-root']],
      ['where_device_id', () => `where_device_id=${sw1.id}`, ['alice-sw1', 'other-sw1']],
      ['where_device_group_id', () => `where_device_group_id=${branch.id}`, ['noc-branch']],
      ['tacacs_profile_id', () => `tacacs_profile_id=${tp1.id}`, ['alice-sw1', 'bob-sw2']],
      ['radius_profile_id', () => `radius_profile_id=${rp1.id}`, ['noc-branch', 'noc-root']],
    ]
    for (const [what, q, expected] of cases) {
      it(`filters by ${what}`, async () => {
        expect(names(await listRules(t, `?${q()}`))).to.deep.equal(expected)
      })
    }

    it('lists the default rule under a profile filter when it has that profile', async () => {
      await t.admin('PUT', `/api/v1/aaa/policy/rules/${def.id}`, { body: { tacacs_profile_id: tp1.id } })
      try {
        expect(names(await listRules(t, `?tacacs_profile_id=${tp1.id}`))).to.deep.equal(['alice-sw1', 'bob-sw2', 'default'])
      } finally {
        await t.admin('PUT', `/api/v1/aaa/policy/rules/${def.id}`, { body: { tacacs_profile_id: null } })
      }
    })

    it('matches nothing for an id nobody uses', async () => {
      expect(await listRules(t, `?who_user_id=${NIL}`)).to.deep.equal([])
    })
  })

  describe('OR within a dimension', () => {
    it('repeated values of one parameter', async () => {
      expect(names(await listRules(t, `?who_user_id=${alice.id}&who_user_id=${bob.id}`))).to.deep.equal(['alice-sw1', 'bob-sw2', 'alice-region'])
      expect(names(await listRules(t, `?tacacs_profile_id=${tp1.id}&tacacs_profile_id=${tp2.id}`))).to.deep.equal(['alice-sw1', 'noc-branch', 'bob-sw2', 'alice-region'])
    })

    it('the two parameters of WHO', async () => {
      expect(names(await listRules(t, `?who_user_id=${bob.id}&who_group_id=${other.id}`))).to.deep.equal(['bob-sw2', 'other-sw1'])
    })

    it('the two parameters of WHERE', async () => {
      expect(names(await listRules(t, `?where_device_id=${sw2.id}&where_device_group_id=${root.id}`))).to.deep.equal(['noc-root', 'bob-sw2'])
    })
  })

  describe('AND across dimensions', () => {
    it('WHO and WHERE', async () => {
      expect(names(await listRules(t, `?who_user_id=${alice.id}&where_device_id=${sw1.id}`))).to.deep.equal(['alice-sw1'])
      expect(names(await listRules(t, `?who_group_id=${noc.id}&where_device_id=${sw1.id}`))).to.deep.equal([])
    })

    it('WHO, WHERE and a profile, with OR inside each', async () => {
      const q = `?who_user_id=${alice.id}&who_group_id=${noc.id}&where_device_id=${sw1.id}&where_device_group_id=${branch.id}&tacacs_profile_id=${tp2.id}`
      expect(names(await listRules(t, q))).to.deep.equal(['noc-branch'])
    })

    it('the two profiles', async () => {
      expect(names(await listRules(t, `?tacacs_profile_id=${tp2.id}&radius_profile_id=${rp1.id}`))).to.deep.equal(['noc-branch'])
    })
  })

  describe('resolve_groups', () => {
    it('who_user_id also matches the groups of the user, and the default rule', async () => {
      expect(names(await listRules(t, `?who_user_id=${alice.id}&resolve_groups=true`))).to.deep.equal(['alice-sw1', 'noc-branch', 'noc-root', 'alice-region', 'default'])
      expect(names(await listRules(t, `?who_user_id=${bob.id}&resolve_groups=true`))).to.deep.equal(['bob-sw2', 'default'])
    })

    it('where_device_id also matches the group of the device and every ancestor, and the default rule', async () => {
      expect(names(await listRules(t, `?where_device_id=${sw1.id}&resolve_groups=true`))).to.deep.equal(['alice-sw1', 'noc-branch', 'noc-root', 'other-sw1', 'alice-region', 'default'])
      expect(names(await listRules(t, `?where_device_id=${sw2.id}&resolve_groups=true`))).to.deep.equal(['bob-sw2', 'default'])
    })

    it('both at once: the rules that apply to this user on this device, in order', async () => {
      expect(names(await listRules(t, `?who_user_id=${alice.id}&where_device_id=${sw1.id}&resolve_groups=true`))).to.deep.equal([
        'alice-sw1', 'noc-branch', 'noc-root', 'alice-region', 'default',
      ])
      expect(names(await listRules(t, `?who_user_id=${bob.id}&where_device_id=${sw1.id}&resolve_groups=true`))).to.deep.equal(['default'])
    })

    it('false is the same as absent', async () => {
      expect(names(await listRules(t, `?who_user_id=${alice.id}&resolve_groups=false`))).to.deep.equal(['alice-sw1', 'alice-region'])
    })

    it('alone, with no WHO or WHERE filter, changes nothing', async () => {
      expect(await listRules(t, '?resolve_groups=true')).to.have.length(7)
    })
  })

  describe('bad queries', () => {
    it('refuses a malformed id, an unknown parameter and a non-boolean resolve_groups', async () => {
      expectError(await t.admin('GET', '/api/v1/aaa/policy/rules?who_user_id=bob'), 422, 'VALIDATION_FAILED')
      expectError(await t.admin('GET', `/api/v1/aaa/policy/rules?user_id=${alice.id}`), 422, 'UNKNOWN_FIELD', 'user_id')
      expectError(await t.admin('GET', '/api/v1/aaa/policy/rules?resolve_groups=maybe'), 422, 'VALIDATION_FAILED', 'resolve_groups')
    })
  })
})
