/**
 * /api/v1/ncm/rules: create, read, list, change and delete compliance rules; who may (ncm.read
 * reads, writing needs ncm.rules.manage and ncm.reveal); every bad input 422 at its field with
 * nothing changed; a device group scoping a rule is not deleted. Run by compliance.test.ts on its
 * app (one app start for both).
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError, uniq } from '../../../test/kit/expect.js'

const BASE = '/api/v1/ncm/rules'
const FIELDS = ['id', 'name', 'description', 'device_group_id', 'device_group_name', 'requirement', 'match', 'pattern', 'notify', 'enabled', 'evaluating', 'evaluated_at', 'created_at', 'updated_at']

export function describeRulesApi(app: () => TestApp): void {
  describe('the rules API', () => {
    let t: TestApp
    before(() => {
      t = app()
    })

    const group = async () => {
      const r = await t.admin('POST', '/api/v1/device-groups', { body: { name: uniq('grp') } })
      expect(r.status).to.equal(201)
      return r.body as { id: string; name: string }
    }
    const rule = async (body: Record<string, unknown> = {}) => {
      const r = await t.admin('POST', BASE, { body: { name: uniq('rule'), requirement: 'must_not_contain', match: 'literal', pattern: 'ip http server', ...body } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      return r.body
    }
    const count = async () => Number((await t.app.db.knex('ncm_rules').count({ n: '*' }).first())!.n)

    it('creates, reads, lists, changes and deletes a rule, each write audited', async () => {
      const g = await group()
      const name = uniq('no-http')
      const r = await t.admin('POST', BASE, { body: { name, description: 'No plain HTTP', device_group_id: g.id, requirement: 'must_not_contain', match: 'regex', pattern: 'ip http server( .*)?', notify: true } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, description: 'No plain HTTP', device_group_id: g.id, device_group_name: g.name, requirement: 'must_not_contain', match: 'regex', pattern: 'ip http server( .*)?', notify: true, enabled: true })
      expect((await t.admin('GET', `${BASE}/${r.body.id}`)).body).to.deep.include({ id: r.body.id, name, pattern: 'ip http server( .*)?' })

      const list = await t.admin('GET', `${BASE}?search=${encodeURIComponent(name)}`)
      expect(list.status).to.equal(200)
      expect(list.body.items.map((x: { id: string }) => x.id)).to.deep.equal([r.body.id])

      const u = await t.admin('PUT', `${BASE}/${r.body.id}`, { body: { description: 'changed', notify: false } })
      expect(u.status, JSON.stringify(u.body)).to.equal(200)
      expect(u.body).to.include({ name, description: 'changed', notify: false, pattern: 'ip http server( .*)?', device_group_id: g.id })
      const all = await t.admin('PUT', `${BASE}/${r.body.id}`, { body: { device_group_id: null } })
      expect(all.body).to.include({ device_group_id: null, device_group_name: null })

      expect((await t.admin('DELETE', `${BASE}/${r.body.id}`)).status).to.equal(204)
      expectError(await t.admin('GET', `${BASE}/${r.body.id}`), 404, 'NOT_FOUND', 'rule_id')
      expect((await auditRows(t, r.body.id)).map((a) => a.action)).to.deep.equal(['ncm.rule.create', 'ncm.rule.update', 'ncm.rule.update', 'ncm.rule.delete'])
    })

    it('stores a literal trimmed, as the lines it is compared with', async () => {
      const r = await rule({ pattern: '  no ip http server  ' })
      expect(r.pattern).to.equal('no ip http server')
    })

    it('takes a safe regex with `/` (interface names), and refuses an unsafe one at `pattern`', async () => {
      expect((await rule({ match: 'regex', pattern: 'interface GigabitEthernet1/0/\\d+' })).pattern).to.equal('interface GigabitEthernet1/0/\\d+')
      const before = await count()
      expectError(await t.admin('POST', BASE, { body: { name: uniq('r'), requirement: 'must_contain', match: 'regex', pattern: '(a+)+' } }), 422, 'NCM_REGEX_UNSAFE', 'pattern')
      expectError(await t.admin('POST', BASE, { body: { name: uniq('r'), requirement: 'must_contain', match: 'regex', pattern: '^logging host .*' } }), 422, 'NCM_REGEX_UNSAFE', 'pattern')
      expect(await count()).to.equal(before)
    })

    it('answers every bad input 422 at its field and stores nothing', async () => {
      const ok = { name: uniq('r'), requirement: 'must_contain', match: 'literal', pattern: 'service password-encryption' }
      const cases: [Record<string, unknown>, string, string][] = [
        [{ ...ok, colour: 'red' }, 'UNKNOWN_FIELD', 'colour'],
        [{ ...ok, name: undefined }, 'FIELD_REQUIRED', 'name'],
        [{ ...ok, name: '' }, 'VALIDATION_FAILED', 'name'],
        [{ ...ok, name: 'n'.repeat(65) }, 'VALIDATION_FAILED', 'name'],
        [{ ...ok, name: 'a\u202Eb' }, 'VALIDATION_FAILED', 'name'],
        [{ ...ok, description: 'd'.repeat(501) }, 'VALIDATION_FAILED', 'description'],
        [{ ...ok, requirement: 'should_contain' }, 'VALIDATION_FAILED', 'requirement'],
        [{ ...ok, requirement: undefined }, 'FIELD_REQUIRED', 'requirement'],
        [{ ...ok, match: 'glob' }, 'VALIDATION_FAILED', 'match'],
        [{ ...ok, pattern: '' }, 'VALIDATION_FAILED', 'pattern'],
        [{ ...ok, pattern: 'a\nb' }, 'VALIDATION_FAILED', 'pattern'],
        [{ ...ok, pattern: 'a\u0000b' }, 'VALIDATION_FAILED', 'pattern'],
        [{ ...ok, pattern: 'p'.repeat(501) }, 'VALIDATION_FAILED', 'pattern'],
        [{ ...ok, pattern: 42 }, 'VALIDATION_FAILED', 'pattern'],
        [{ ...ok, notify: 'yes' }, 'VALIDATION_FAILED', 'notify'],
        [{ ...ok, device_group_id: 'core' }, 'VALIDATION_FAILED', 'device_group_id'],
        [{ ...ok, device_group_id: randomUUID() }, 'NCM_GROUP_NOT_FOUND', 'device_group_id'],
      ]
      const before = await count()
      for (const [body, code, field] of cases) expectError(await t.admin('POST', BASE, { body: JSON.parse(JSON.stringify(body)) }), 422, code, field)
      expect(await count()).to.equal(before)

      const r = await rule({ pattern: '(a+)+' })
      const put: [Record<string, unknown>, string, string][] = [
        [{ match: 'regex' }, 'NCM_REGEX_UNSAFE', 'pattern'],
        [{ pattern: '' }, 'VALIDATION_FAILED', 'pattern'],
        [{ evaluating: false }, 'UNKNOWN_FIELD', 'evaluating'],
        [{ device_group_id: randomUUID() }, 'NCM_GROUP_NOT_FOUND', 'device_group_id'],
        [{ enabled: 'no' }, 'VALIDATION_FAILED', 'enabled'],
      ]
      for (const [body, code, field] of put) expectError(await t.admin('PUT', `${BASE}/${r.id}`, { body }), 422, code, field)
      expectError(await t.admin('PUT', `${BASE}/not-a-uuid`, { body: {} }), 422, 'VALIDATION_FAILED', 'rule_id')
      expectError(await t.admin('PUT', `${BASE}/${randomUUID()}`, { body: {} }), 404, 'NOT_FOUND', 'rule_id')
      const now = (await t.admin('GET', `${BASE}/${r.id}`)).body
      expect({ ...now, evaluating: r.evaluating, evaluated_at: r.evaluated_at }).to.deep.equal(r)
    })

    it('answers 409 NCM_RULE_NAME_TAKEN case-insensitively, on create and rename', async () => {
      const a = await rule()
      const b = await rule()
      expectError(await t.admin('POST', BASE, { body: { name: a.name.toUpperCase(), requirement: 'must_contain', match: 'literal', pattern: 'x' } }), 409, 'NCM_RULE_NAME_TAKEN', 'name')
      expectError(await t.admin('PUT', `${BASE}/${b.id}`, { body: { name: a.name.toUpperCase(), pattern: 'changed' } }), 409, 'NCM_RULE_NAME_TAKEN', 'name')
      expect((await t.admin('GET', `${BASE}/${b.id}`)).body.pattern).to.equal(b.pattern)
    })

    it('lets ncm.read read but not write; writing needs ncm.rules.manage and ncm.reveal', async () => {
      const r = await rule()
      const reader = await t.token({ permissions: ['ncm.read'] })
      expect((await t.req('GET', BASE, { token: reader })).status).to.equal(200)
      expect((await t.req('GET', `${BASE}/${r.id}`, { token: reader })).status).to.equal(200)
      expect((await t.req('GET', '/api/v1/ncm/compliance', { token: reader })).status).to.equal(200)
      expect((await t.req('GET', '/api/v1/ncm/compliance/summary', { token: reader })).status).to.equal(200)
      const body = { name: uniq('r'), requirement: 'must_contain', match: 'literal', pattern: 'x' }
      const before = await count()
      expect((await t.req('POST', BASE, { token: reader, body })).status).to.equal(403)
      expect((await t.req('PUT', `${BASE}/${r.id}`, { token: reader, body: { pattern: 'y' } })).status).to.equal(403)
      expect((await t.req('DELETE', `${BASE}/${r.id}`, { token: reader })).status).to.equal(403)

      const manager = await t.token({ permissions: ['ncm.read', 'ncm.rules.manage'] })
      expectError(await t.req('POST', BASE, { token: manager, body }), 403, 'NCM_REVEAL_REQUIRED')
      expectError(await t.req('PUT', `${BASE}/${r.id}`, { token: manager, body: { pattern: 'y' } }), 403, 'NCM_REVEAL_REQUIRED')
      expect(await count()).to.equal(before)
      expect((await t.admin('GET', `${BASE}/${r.id}`)).body.pattern).to.equal(r.pattern)

      // ncm.reveal alone writes nothing either.
      expect((await t.req('POST', BASE, { token: await t.token({ permissions: ['ncm.read', 'ncm.reveal'] }), body })).status).to.equal(403)
      const full = await t.token({ permissions: ['ncm.read', 'ncm.rules.manage', 'ncm.reveal'] })
      expect((await t.req('POST', BASE, { token: full, body })).status).to.equal(201)
      // Deleting decides nothing on the configurations: ncm.rules.manage alone may.
      expect((await t.req('DELETE', `${BASE}/${r.id}`, { token: manager })).status).to.equal(204)
    })

    it('keeps a device group scoping a rule from being deleted (409 naming the rule)', async () => {
      const g = await group()
      const r = await rule({ device_group_id: g.id })
      const del = await t.admin('DELETE', `/api/v1/device-groups/${g.id}`)
      expectError(del, 409, 'GROUP_IN_USE')
      expect(del.body.detail).to.include(r.name)
      expect((await t.admin('GET', `${BASE}/${r.id}`)).body.device_group_id).to.equal(g.id)
      expect((await t.admin('PUT', `${BASE}/${r.id}`, { body: { device_group_id: null } })).status).to.equal(200)
      expect((await t.admin('DELETE', `/api/v1/device-groups/${g.id}`)).status).to.equal(204)
    })
  })
}
