/** PUT /api/v1/aaa/policy/rules/reorder, and the order's invariants under parallel changes. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { testEngines } from '../../../test/kit/app.js'
import { auditRows, clearRules, createDevice, createRule, createUser, expectError, expectOrderIntact, listRules, RULES, startPolicyApp, uniq } from './helpers.js'

const REORDER = `${RULES}/reorder`

for (const engine of testEngines()) {
  describe(`AAA policy rules: order (${engine})`, () => {
    let t: TestApp
    let user: any
    let device: any
    const rule = (body: Record<string, unknown> = {}) => createRule(t, { who: { user_id: user.id }, where: { device_id: device.id }, ...body })
    const ids = async () => (await listRules(t)).map((r) => r.id)

    before(async () => {
      t = await startPolicyApp({ engine })
      ;[user, device] = await Promise.all([createUser(t), createDevice(t)])
    })
    after(async () => t?.stop())

    describe('reorder', () => {
      let a: any, b: any, c: any, def: string
      beforeEach(async () => {
        await clearRules(t)
        a = await rule()
        b = await rule()
        c = await rule()
        def = (await ids())[3]
      })

      it('writes the complete order and answers the rules in it', async () => {
        const r = await t.admin('PUT', REORDER, { body: { rule_ids: [c.id, a.id, b.id, def] } })
        expect(r.status, JSON.stringify(r.body)).to.equal(200)
        expect(r.body.map((x: any) => x.id)).to.deep.equal([c.id, a.id, b.id, def])
        expect(r.body.map((x: any) => x.position)).to.deep.equal([0, 1, 2, 3])
        expect(await ids()).to.deep.equal([c.id, a.id, b.id, def])
        await expectOrderIntact(t)
        const audit = (await auditRows(t, { action: 'aaa_policy_rule.reorder' })).at(-1)
        expect(audit?.after.rule_ids).to.deep.equal([c.id, a.id, b.id, def])
        expect(audit?.before.rule_ids).to.deep.equal([a.id, b.id, c.id, def])
        // The names beside the ids, as they were: the console reads the move by name.
        expect(audit?.after.rule_names).to.deep.equal([c.name, a.name, b.name, 'default'])
        expect(audit?.before.rule_names).to.deep.equal([a.name, b.name, c.name, 'default'])
      })

      it('takes ids in any case, as PostgreSQL does', async () => {
        const r = await t.admin('PUT', REORDER, { body: { rule_ids: [b.id.toUpperCase(), a.id, c.id.toUpperCase(), def.toUpperCase()] } })
        expect(r.status, JSON.stringify(r.body)).to.equal(200)
        expect(r.body.map((x: any) => x.id)).to.deep.equal([b.id, a.id, c.id, def])
        expectError(await t.admin('PUT', REORDER, { body: { rule_ids: [a.id, a.id.toUpperCase(), b.id, c.id, def] } }), 422, 'RULE_ORDER_DUPLICATE', 'rule_ids[1]')
      })

      it('keeps updated_at: it dates the rule, not its place', async () => {
        await t.admin('PUT', REORDER, { body: { rule_ids: [b.id, a.id, c.id, def] } })
        expect((await t.admin('GET', `${RULES}/${a.id}`)).body.updated_at).to.equal(a.updated_at)
      })

      const bad: [string, () => string[], string, string][] = [
        ['leaves a rule out', () => [a.id, b.id, def], 'RULE_ORDER_INCOMPLETE', 'rule_ids'],
        ['names a rule twice', () => [a.id, b.id, a.id, c.id, def], 'RULE_ORDER_DUPLICATE', 'rule_ids[2]'],
        ['names an unknown rule', () => [a.id, b.id, randomUUID(), c.id, def], 'REFERENCE_NOT_FOUND', 'rule_ids[2]'],
        ['puts the default rule first', () => [def, a.id, b.id, c.id], 'DEFAULT_RULE_NOT_LAST', 'rule_ids[0]'],
        ['puts the default rule in the middle', () => [a.id, def, b.id, c.id], 'DEFAULT_RULE_NOT_LAST', 'rule_ids[1]'],
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

      it('is not mistaken for a rule id on the other methods', async () => {
        expect((await t.admin('GET', REORDER)).status).to.be.oneOf([405, 422])
      })
    })

    it('keeps positions 0..n-1, unique, one default and last, under ~20 parallel creates, moves, deletes and reorders', async function () {
      this.timeout(120_000)
      await clearRules(t)
      const seed = await Promise.all(Array.from({ length: 6 }, () => rule()))
      const jobs: (() => Promise<unknown>)[] = []
      for (let i = 0; i < 6; i++) jobs.push(() => t.admin('POST', RULES, { body: { name: uniq('par'), who: { user_id: user.id }, where: { device_id: device.id }, ...(i % 2 ? { position: 0 } : {}) } }))
      for (const s of seed.slice(0, 4)) jobs.push(() => t.admin('DELETE', `${RULES}/${s.id}`))
      jobs.push(() => t.admin('PUT', `${RULES}/${seed[4].id}`, { body: { position: 0 } }))
      jobs.push(() => t.admin('PUT', `${RULES}/${seed[5].id}`, { body: { position: 1, enabled: false } }))
      // Reorders built from a snapshot that the other jobs change: each either wins whole or fails whole (422).
      const snapshot = await ids()
      for (let i = 0; i < 6; i++) {
        jobs.push(async () => {
          const body = [...snapshot.slice(0, -1)].sort(() => Math.random() - 0.5)
          return t.admin('PUT', REORDER, { body: { rule_ids: [...body, snapshot[snapshot.length - 1]] } })
        })
      }
      jobs.push(async () => t.admin('PUT', REORDER, { body: { rule_ids: await ids() } }))
      const results = (await Promise.all(jobs.map((j) => j()))) as { status: number; body: any }[]
      for (const r of results) expect([200, 201, 204, 404, 422], JSON.stringify(r.body)).to.include(r.status)
      expect(results.filter((r) => r.status === 201)).to.have.length(6)
      expect(results.filter((r) => r.status >= 500)).to.deep.equal([])
      const rows = await expectOrderIntact(t)
      expect(rows).to.have.length(6 + 2 + 1)
      const listed = await listRules(t)
      expect(listed.map((r) => r.position)).to.deep.equal(listed.map((_, i) => i))
    })

    it('keeps the order dense when refused deletes of rule targets run beside API changes', async function () {
      this.timeout(120_000)
      await clearRules(t)
      const victims = await Promise.all(Array.from({ length: 4 }, () => createUser(t)))
      for (const v of victims) await createRule(t, { who: { user_id: v.id }, where: { device_id: device.id }, position: 0 })
      await rule()
      const jobs: Promise<{ status: number }>[] = [
        ...victims.map((v) => t.admin('DELETE', `/api/v1/users/${v.id}`)),
        ...Array.from({ length: 4 }, (_, i) => t.admin('POST', RULES, { body: { name: uniq('c'), who: { user_id: user.id }, where: { device_id: device.id }, position: i } })),
        (async () => t.admin('PUT', REORDER, { body: { rule_ids: [...(await ids())].reverse().slice(1).concat((await ids()).slice(-1)) } }))(),
      ]
      const results = await Promise.all(jobs)
      for (const r of results) expect([200, 201, 409, 422]).to.include(r.status)
      // Every user delete is refused (its rule targets it): the victims' rules all remain.
      for (const r of results.slice(0, victims.length)) expect(r.status).to.equal(409)
      const rows = await expectOrderIntact(t)
      expect(rows).to.have.length(4 + 1 + 4 + 1)
    })
  })
}
