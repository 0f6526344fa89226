/** /api/v1/log-exclusions: CRUD, strict bodies, validation per match type, list behaviour, permissions, audit, drop counts; the matcher. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { buildMatcher, exclusionLoader } from '../services/exclusions.js'
import { compileGlob } from '../services/glob.js'
import { expectError, uniq } from './helpers.js'

const FIELDS = ['id', 'name', 'description', 'protocol', 'match_type', 'match_value', 'dropped_total', 'created_at', 'updated_at']
const BASE = '/api/v1/log-exclusions'

describe('aaa-logs exclusion rules API', () => {
  let t: TestApp
  const create = async (body: Record<string, unknown> = {}) => {
    const r = await t.admin('POST', BASE, { body: { name: uniq('rule'), match_type: 'username', match_value: 'probe', ...body } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    return r.body
  }
  const group = async (name: string, members: string[] = []) => {
    const knex = t.app.db.knex
    const [{ id }] = await knex('user_groups').insert({ name }).returning('id')
    for (const u of members) {
      const [{ id: uid }] = await knex('users').insert({ username: u, network_login: true }).returning('id')
      await knex('user_group_members').insert({ group_id: id, user_id: uid })
    }
    return id
  }

  before(async () => {
    t = await startTestApp({ plugins: ['aaa-logs'], env: { DOCS_ENABLED: 'true' } })
  })
  after(async () => t?.stop())

  describe('create, read, update, delete', () => {
    it('creates a rule with every field, defaults protocol to all, and reads it back', async () => {
      const name = uniq('Monitoring')
      const r = await t.admin('POST', BASE, { body: { name, description: 'NMS polling account', match_type: 'username', match_value: 'nms-poller' } })
      expect(r.status).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, description: 'NMS polling account', protocol: 'all', match_type: 'username', match_value: 'nms-poller', dropped_total: 0 })
      expect(r.body.created_at).to.match(/Z$/)
      expect((await t.admin('GET', `${BASE}/${r.body.id}`)).body).to.deep.equal(r.body)
    })

    it('updates only the fields given and validates the resulting pair', async () => {
      const e = await create({ description: 'd1', protocol: 'tacacs' })
      const a = await t.admin('PUT', `${BASE}/${e.id}`, { body: { description: 'd2' } })
      expect(a.status).to.equal(200)
      expect(a.body).to.include({ name: e.name, description: 'd2', protocol: 'tacacs', match_type: 'username', match_value: 'probe' })
      const b = await t.admin('PUT', `${BASE}/${e.id}`, { body: { match_type: 'username_pattern', match_value: 'svc-*', protocol: 'radius', description: '' } })
      expect(b.body).to.include({ match_type: 'username_pattern', match_value: 'svc-*', protocol: 'radius', description: null })
      // Changing only the type re-checks the kept value against it.
      expectError(await t.admin('PUT', `${BASE}/${e.id}`, { body: { match_type: 'user_group' } }), 422, 'USER_GROUP_UNKNOWN', 'match_value')
      expect(b.body.created_at).to.equal(e.created_at)
    })

    it('deletes a rule with its drop counts', async () => {
      const e = await create()
      await t.app.db.knex('aaa_log_exclusion_drops').insert({ node_id: randomUUID(), exclusion_id: e.id, day: new Date('2026-11-20T12:00:00Z'), dropped: 3 })
      expect((await t.admin('DELETE', `${BASE}/${e.id}`)).status).to.equal(204)
      expectError(await t.admin('GET', `${BASE}/${e.id}`), 404, 'NOT_FOUND', 'exclusion_id')
      expectError(await t.admin('DELETE', `${BASE}/${e.id}`), 404, 'NOT_FOUND', 'exclusion_id')
      expectError(await t.admin('PUT', `${BASE}/${e.id}`, { body: { description: 'x' } }), 404, 'NOT_FOUND', 'exclusion_id')
      expect(await t.app.db.knex('aaa_log_exclusion_drops').where({ exclusion_id: e.id })).to.have.length(0)
    })

    it('answers 422 for a malformed id', async () => {
      const r = await t.admin('GET', `${BASE}/not-a-uuid`)
      expect(r.status).to.equal(422)
      expect(r.body.field).to.equal('exclusion_id')
    })

    it('records every change in the audit trail', async () => {
      const e = await create()
      await t.admin('PUT', `${BASE}/${e.id}`, { body: { description: 'changed' } })
      await t.admin('DELETE', `${BASE}/${e.id}`)
      const rows = await t.app.db.knex('audit_log').where({ resource_id: e.id }).orderBy('at').select('action', 'resource_type', 'before', 'after')
      expect(rows.map((r) => r.action)).to.deep.equal(['log_exclusion.create', 'log_exclusion.update', 'log_exclusion.delete'])
      expect(rows.every((r) => r.resource_type === 'log_exclusion')).to.equal(true)
      expect(rows[1].before).to.have.property('description', null)
      expect(rows[1].after).to.have.property('description', 'changed')
    })
  })

  describe('drop counts', () => {
    it('sums the ingester\'s counts over nodes and days, in the entry and the list', async () => {
      const e = await create({ name: uniq('dropper') })
      const knex = t.app.db.knex
      await knex('aaa_log_exclusion_drops').insert([
        { node_id: randomUUID(), exclusion_id: e.id, day: new Date('2026-11-19T12:00:00Z'), dropped: 5 },
        { node_id: randomUUID(), exclusion_id: e.id, day: new Date('2026-11-20T12:00:00Z'), dropped: 7 },
      ])
      expect((await t.admin('GET', `${BASE}/${e.id}`)).body.dropped_total).to.equal(12)
      const list = await t.admin('GET', `${BASE}?search=${encodeURIComponent(e.name)}`)
      expect(list.body.items[0]).to.include({ id: e.id, dropped_total: 12 })
    })
  })

  describe('validation', () => {
    it('rejects unknown, missing and out-of-range fields', async () => {
      expect((await t.admin('POST', BASE, { body: { name: uniq('x'), match_type: 'username', match_value: 'a', extra: 1 } })).status).to.equal(422)
      expect((await t.admin('POST', BASE, { body: { name: uniq('x'), match_type: 'username' } })).body.field).to.equal('match_value')
      expect((await t.admin('POST', BASE, { body: { name: 'x'.repeat(65), match_type: 'username', match_value: 'a' } })).body.field).to.equal('name')
      expect((await t.admin('POST', BASE, { body: { name: '', match_type: 'username', match_value: 'a' } })).body.field).to.equal('name')
      expect((await t.admin('POST', BASE, { body: { name: uniq('x'), match_type: 'username', match_value: 'a'.repeat(254) } })).body.field).to.equal('match_value')
      expect((await t.admin('POST', BASE, { body: { name: uniq('x'), match_type: 'regex', match_value: 'a' } })).body.field).to.equal('match_type')
      expect((await t.admin('POST', BASE, { body: { name: uniq('x'), protocol: 'ldap', match_type: 'username', match_value: 'a' } })).body.field).to.equal('protocol')
      expect((await t.admin('PUT', `${BASE}/${randomUUID()}`, { body: { bogus: true } })).status).to.equal(422)
      expect((await create({ match_value: 'a'.repeat(253) })).match_value).to.have.length(253)
    })

    it('refuses control characters in names and patterns', async () => {
      expectError(await t.admin('POST', BASE, { body: { name: uniq('x'), match_type: 'username', match_value: 'bad\nname' } }), 422, 'LOG_EXCLUSION_VALUE_INVALID', 'match_value')
      expectError(await t.admin('POST', BASE, { body: { name: uniq('x'), match_type: 'username_pattern', match_value: 'svc-*\t' } }), 422, 'LOG_EXCLUSION_VALUE_INVALID', 'match_value')
    })

    it('wants an existing user group, stored in its own spelling', async () => {
      expectError(await t.admin('POST', BASE, { body: { name: uniq('x'), match_type: 'user_group', match_value: 'NoSuchGroup' } }), 422, 'USER_GROUP_UNKNOWN', 'match_value')
      const g = uniq('Monitors')
      await group(g)
      const e = await create({ match_type: 'user_group', match_value: g.toLowerCase() })
      expect(e.match_value).to.equal(g)
    })

    it('keeps names unique, case-insensitively (409)', async () => {
      const e = await create()
      expectError(await t.admin('POST', BASE, { body: { name: e.name.toUpperCase(), match_type: 'username', match_value: 'a' } }), 409, 'LOG_EXCLUSION_NAME_TAKEN', 'name')
      const other = await create()
      expectError(await t.admin('PUT', `${BASE}/${other.id}`, { body: { name: e.name } }), 409, 'LOG_EXCLUSION_NAME_TAKEN', 'name')
      expect((await t.admin('PUT', `${BASE}/${e.id}`, { body: { name: e.name.toUpperCase() } })).status).to.equal(200)
    })
  })

  describe('list', () => {
    let tag: string
    before(async () => {
      tag = uniq('lst')
      await create({ name: `${tag}-b`, protocol: 'tacacs', match_type: 'username', match_value: 'alice' })
      await create({ name: `${tag}-a`, protocol: 'radius', match_type: 'username_pattern', match_value: 'svc-*' })
      await create({ name: `${tag}-c`, protocol: 'all', match_type: 'username', match_value: 'bob', description: 'the printer' })
    })
    const list = (q: string) => t.admin('GET', `${BASE}?search=${tag}&${q}`)

    it('paginates with per_page default 20 and maximum 100, sorting by name by default', async () => {
      const r = await list('')
      expect(r.status).to.equal(200)
      expect(r.body).to.include({ total_by_filter: 3, page: 1, per_page: 20, pages: 1 })
      expect(r.body.total).to.be.at.least(3)
      expect(r.body.items.map((i: any) => i.name)).to.deep.equal([`${tag}-a`, `${tag}-b`, `${tag}-c`])
      expect((await list('per_page=101')).status).to.equal(422)
      expect((await list('per_page=0')).status).to.equal(422)
      const p2 = await list('per_page=2&page=2')
      expect(p2.body).to.include({ total_by_filter: 3, pages: 2 })
      expect(p2.body.items.map((i: any) => i.name)).to.deep.equal([`${tag}-c`])
    })

    it('filters by protocol and match_type, searches description and match_value', async () => {
      expect((await list('protocol=tacacs')).body.items.map((i: any) => i.name)).to.deep.equal([`${tag}-b`])
      expect((await list('match_type=username_pattern')).body.items.map((i: any) => i.name)).to.deep.equal([`${tag}-a`])
      expect((await t.admin('GET', `${BASE}?search=THE%20PRINTER`)).body.items.map((i: any) => i.name)).to.include(`${tag}-c`)
      expect((await t.admin('GET', `${BASE}?search=svc-`)).body.items.map((i: any) => i.name)).to.include(`${tag}-a`)
      expect((await list('protocol=ldap')).body.field).to.equal('protocol')
      expect((await list('match_type=regex')).body.field).to.equal('match_type')
    })

    it('sorts by each allowed name and refuses others', async () => {
      expect((await list('sort_by=protocol')).body.items.map((i: any) => i.protocol)).to.deep.equal(['all', 'radius', 'tacacs'])
      expect((await list('sort_by=match_type&sort_order=desc')).body.items.map((i: any) => i.match_type)).to.deep.equal(['username_pattern', 'username', 'username'])
      for (const s of ['created_at', 'updated_at', 'name']) expect((await list(`sort_by=${s}`)).status).to.equal(200)
      const bad = await list('sort_by=match_value')
      expect(bad.status).to.equal(422)
      expect(bad.body.field).to.equal('sort_by')
    })
  })

  describe('permissions', () => {
    it('reads with aaa-logs.exclusions.read, writes only with aaa-logs.exclusions.write', async () => {
      const reader = await t.token({ permissions: ['aaa-logs.exclusions.read'] })
      const writer = await t.token({ permissions: ['aaa-logs.exclusions.write'] })
      const logs = await t.token({ permissions: ['aaa-logs.read'] })
      expect((await t.req('GET', BASE, { token: reader })).status).to.equal(200)
      expect((await t.req('GET', BASE, { token: logs })).status).to.equal(403)
      expect((await t.req('POST', BASE, { token: reader, body: { name: uniq('x'), match_type: 'username', match_value: 'a' } })).status).to.equal(403)
      expect((await t.req('POST', BASE, { token: writer, body: { name: uniq('x'), match_type: 'username', match_value: 'a' } })).status).to.equal(201)
      expect((await t.req('GET', BASE)).status).to.equal(401)
    })
  })

  describe('matcher', () => {
    it('matches usernames exactly and case-sensitively, per protocol', () => {
      const m = buildMatcher([
        { id: 'r1', protocol: 'tacacs', match_type: 'username', match_value: 'alice' },
        { id: 'r2', protocol: 'all', match_type: 'username', match_value: 'bob' },
      ])
      expect(m.match('tacacs', 'alice')).to.equal('r1')
      expect(m.match('radius', 'alice')).to.equal(null)
      expect(m.match('tacacs', 'Alice')).to.equal(null)
      expect(m.match('tacacs', 'alice2')).to.equal(null)
      expect(m.match('radius', 'bob')).to.equal('r2')
      expect(m.match('tacacs', 'bob')).to.equal('r2')
    })

    it('matches globs over the whole name', () => {
      const m = buildMatcher([{ id: 'g', protocol: 'radius', match_type: 'username_pattern', match_value: 'svc-??-*' }])
      expect(m.match('radius', 'svc-ab-poller')).to.equal('g')
      expect(m.match('radius', 'svc-ab-')).to.equal('g')
      expect(m.match('radius', 'svc-a-poller')).to.equal(null)
      expect(m.match('radius', 'xsvc-ab-poller')).to.equal(null)
      expect(m.match('radius', 'SVC-ab-poller')).to.equal(null)
      expect(m.match('tacacs', 'svc-ab-poller')).to.equal(null)
    })

    it('compiles globs with * and ? only: regex characters are literal', () => {
      expect(compileGlob('a.b').test('a.b')).to.equal(true)
      expect(compileGlob('a.b').test('axb')).to.equal(false)
      expect(compileGlob('(x)+[y]').test('(x)+[y]')).to.equal(true)
      expect(compileGlob('*').test('')).to.equal(true)
      expect(compileGlob('?').test('')).to.equal(false)
      expect(compileGlob('a*').test('a')).to.equal(true)
      expect(compileGlob('*b*').test('abc')).to.equal(true)
      expect(compileGlob('a?c').test('añc')).to.equal(true)
      expect(compileGlob('a?c').test('a😀c')).to.equal(true)
      expect(compileGlob('**a**').test('bab')).to.equal(true)
    })

    it('matches a pathological pattern against a long name in linear-ish time', () => {
      const g = compileGlob('*a*a*a*a*a*a*a*a*a*a*a*a*b')
      const name = 'a'.repeat(253)
      const started = performance.now()
      for (let i = 0; i < 200; i++) expect(g.test(name)).to.equal(false)
      expect(g.test('a'.repeat(252) + 'b')).to.equal(true)
      expect(performance.now() - started).to.be.below(500)
      // The same through the API: stored and accepted.
      expect(compileGlob('*'.repeat(253)).test('anything')).to.equal(true)
    })

    it('loads user_group members, and all the rule kinds, through the loader', async () => {
      const g = uniq('NoLog')
      await group(g, [uniq('m1'), uniq('m2')])
      const members = (await t.app.db.knex('users as u').join('user_group_members as m', 'm.user_id', 'u.id').join('user_groups as g', 'g.id', 'm.group_id').where('g.name', g).pluck('u.username')) as string[]
      const e = await create({ name: uniq('grp'), protocol: 'tacacs', match_type: 'user_group', match_value: g })
      const p = await create({ name: uniq('pat'), protocol: 'radius', match_type: 'username_pattern', match_value: 'probe-*' })
      const identity = t.app.identity
      const m = await exclusionLoader(identity)(t.app.db.knex)
      expect(m.match('tacacs', members[0])).to.equal(e.id)
      expect(m.match('tacacs', members[1])).to.equal(e.id)
      expect(m.match('radius', members[0])).to.equal(null)
      expect(m.match('radius', 'probe-7')).to.equal(p.id)
      expect(m.match('tacacs', 'nobody-here')).to.equal(null)
    })
  })
})
