/** PUT /api/v1/nac/policy/rules/reorder: the whole order at once, atomically; stale or malformed orders change nothing. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError, uniq } from './helpers.js'
import { createProfile, createRule, expectOrderIntact, listRules, RULES, startPolicyApp } from './policy-helpers.js'

const REORDER = `${RULES}/reorder`

describe('nac: policy reorder', () => {
  let t: TestApp
  let profile: any
  let a: any, b: any, c: any, def: string
  const ids = async () => (await listRules(t)).map((r) => r.id)

  before(async () => {
    t = await startPolicyApp()
    profile = await createProfile(t, { vlan: 10 })
    a = await createRule(t, { authorization_profile_id: profile.id })
    b = await createRule(t, { authorization_profile_id: profile.id })
    c = await createRule(t, { authorization_profile_id: profile.id })
    def = (await ids())[3]
  })
  after(async () => t?.stop())

  it('writes the complete order, answers the rules in it, audits once; an unchanged order writes nothing', async () => {
    const r = await t.admin('PUT', REORDER, { body: { rule_ids: [c.id, a.id.toUpperCase(), b.id, def] } })
    expect(r.status, r.text).to.equal(200)
    expect(r.body.map((x: any) => x.id)).to.deep.equal([c.id, a.id, b.id, def])
    expect(r.body.map((x: any) => x.position)).to.deep.equal([0, 1, 2, 3])
    await expectOrderIntact(t)
    const again = await t.admin('PUT', REORDER, { body: { rule_ids: [c.id, a.id, b.id, def] } })
    expect(again.status).to.equal(200)
    const entries = await t.app.db.knex('audit_log').where({ action: 'nac_policy_rule.reorder' }).select<{ after: { rule_ids: string[] } }[]>('after')
    expect(entries).to.have.length(1)
    expect(entries[0].after.rule_ids).to.deep.equal([c.id, a.id, b.id, def])
    expect((await t.admin('GET', `${RULES}/${a.id}`)).body.updated_at).to.equal(a.updated_at)
    expect((await auditRows(t, a.id)).map((x) => x.action)).to.deep.equal(['nac_policy_rule.create'])
  })

  const bad: [string, () => string[], string, string][] = [
    ['leaves a rule out (a stale list)', () => [a.id, b.id, def], 'RULE_ORDER_INCOMPLETE', 'rule_ids'],
    ['names a rule twice', () => [a.id, b.id, a.id, c.id, def], 'RULE_ORDER_DUPLICATE', 'rule_ids[2]'],
    ['names an unknown (deleted) rule', () => [a.id, b.id, randomUUID(), c.id, def], 'REFERENCE_NOT_FOUND', 'rule_ids[2]'],
    ['puts the default rule first', () => [def, a.id, b.id, c.id], 'DEFAULT_RULE_NOT_LAST', 'rule_ids[0]'],
    ['leaves the default rule out', () => [a.id, b.id, c.id], 'RULE_ORDER_INCOMPLETE', 'rule_ids'],
  ]
  for (const [what, order, code, field] of bad) {
    it(`answers 422 ${code} and changes nothing when the order ${what}`, async () => {
      const before = await ids()
      expectError(await t.admin('PUT', REORDER, { body: { rule_ids: order() } }), 422, code, field)
      expect(await ids()).to.deep.equal(before)
    })
  }

  it('refuses a malformed body', async () => {
    expectError(await t.admin('PUT', REORDER, { body: {} }), 422, 'FIELD_REQUIRED', 'rule_ids')
    expectError(await t.admin('PUT', REORDER, { body: { rule_ids: [] } }), 422, 'VALIDATION_FAILED', 'rule_ids')
    expectError(await t.admin('PUT', REORDER, { body: { rule_ids: ['x'] } }), 422, 'VALIDATION_FAILED', 'rule_ids[0]')
    expectError(await t.admin('PUT', REORDER, { body: { rule_ids: [a.id], extra: 1 } }), 422, 'UNKNOWN_FIELD', 'extra')
  })

  it('keeps positions 0..n-1, one default and last, under parallel creates, moves, deletes and reorders', async function () {
    this.timeout(120_000)
    const seed = await Promise.all(Array.from({ length: 6 }, () => createRule(t, { authorization_profile_id: profile.id })))
    const jobs: (() => Promise<{ status: number; body: any }>)[] = []
    for (let i = 0; i < 5; i++) jobs.push(() => t.admin('POST', RULES, { body: { name: uniq('par'), authorization_profile_id: profile.id, ...(i % 2 ? { position: 0 } : {}) } }))
    for (const s of seed.slice(0, 3)) jobs.push(() => t.admin('DELETE', `${RULES}/${s.id}`))
    jobs.push(() => t.admin('PUT', `${RULES}/${seed[4].id}`, { body: { position: 0 } }))
    const snapshot = await ids()
    for (let i = 0; i < 5; i++) {
      jobs.push(() => {
        const body = snapshot.slice(0, -1).sort(() => Math.random() - 0.5)
        return t.admin('PUT', REORDER, { body: { rule_ids: [...body, snapshot[snapshot.length - 1]] } })
      })
    }
    const results = await Promise.all(jobs.map((j) => j()))
    for (const r of results) expect([200, 201, 204, 422], JSON.stringify(r.body)).to.include(r.status)
    expect(results.filter((r) => r.status === 201)).to.have.length(5)
    const rows = await expectOrderIntact(t)
    expect(rows).to.have.length(3 + 6 - 3 + 5 + 1)
  })
})
