/** /api/v1/radius/profiles: CRUD, strict bodies, names, list behaviour, permissions, audit, and deletion under a SET NULL reference. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { Validator } from '@seriousme/openapi-schema-validator'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, createProfile, expectError, uniq } from './helpers.js'

const FIELDS = ['id', 'name', 'description', 'attributes', 'allow_mschapv1', 'created_at', 'updated_at']
const ADMIN_SHELL = [
  { name: 'Service-Type', value: 'Administrative-User' },
  { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
]

describe('radius profiles API', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'radius'], env: { DOCS_ENABLED: 'true' } })
  })
  after(async () => t?.stop())

  describe('create, read, update, delete', () => {
    it('creates a profile, keeping the attribute order, and reads it back', async () => {
      const name = uniq('Admins')
      const attributes = [...ADMIN_SHELL, { name: 'Reply-Message', value: 'Welcome, operator' }, { name: 'Cisco-AVPair', value: 'shell:roles="network-admin"' }]
      const r = await t.admin('POST', '/api/v1/radius/profiles', { body: { name, description: 'Full access', attributes } })
      expect(r.status).to.equal(201)
      expect(Object.keys(r.body).sort()).to.deep.equal([...FIELDS].sort())
      expect(r.body).to.include({ name, description: 'Full access' })
      expect(r.body.attributes).to.deep.equal(attributes)
      expect(r.body.created_at).to.match(/Z$/)
      expect((await t.admin('GET', `/api/v1/radius/profiles/${r.body.id}`)).body).to.deep.equal(r.body)
    })

    it('defaults to no attributes and MS-CHAPv1 refused, and stores a blank description as null', async () => {
      const p = await createProfile(t, { description: '   ' })
      expect(p).to.include({ description: null, allow_mschapv1: false })
      expect(p.attributes).to.deep.equal([])
    })

    it('updates only the fields given; attributes replaces the list', async () => {
      const p = await createProfile(t, { description: 'd1', attributes: ADMIN_SHELL })
      const a = await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { description: 'd2' } })
      expect(a.status).to.equal(200)
      expect(a.body).to.include({ name: p.name, description: 'd2' })
      expect(a.body.attributes).to.deep.equal(ADMIN_SHELL)
      expect(new Date(a.body.updated_at).getTime()).to.be.at.least(new Date(p.updated_at).getTime())
      const b = await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { name: `${p.name}-x`, attributes: [{ name: 'Service-Type', value: 'NAS-Prompt-User' }] } })
      expect(b.body).to.include({ name: `${p.name}-x`, description: 'd2' })
      expect(b.body.attributes).to.deep.equal([{ name: 'Service-Type', value: 'NAS-Prompt-User' }])
      const c = await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { attributes: [], description: '' } })
      expect(c.body).to.include({ description: null })
      expect(c.body.attributes).to.deep.equal([])
      expect(c.body.created_at).to.equal(p.created_at)
    })

    it('allows MS-CHAPv1 only when asked, on create or update; a change of other fields keeps it', async () => {
      const p = await createProfile(t, { allow_mschapv1: true })
      expect(p.allow_mschapv1).to.equal(true)
      const a = await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { description: 'legacy NAS' } })
      expect(a.body).to.include({ allow_mschapv1: true, description: 'legacy NAS' })
      const b = await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { allow_mschapv1: false } })
      expect(b.body.allow_mschapv1).to.equal(false)
      expect((await auditRows(t, p.id)).at(-1)).to.deep.include({ action: 'radius_profile.update' })
      expect((await auditRows(t, p.id)).at(-1)!.after.allow_mschapv1).to.equal(false)
      expectError(await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { allow_mschapv1: 'yes' } }), 422, 'VALIDATION_FAILED', 'allow_mschapv1')
    })

    it('deletes a profile', async () => {
      const p = await createProfile(t)
      expect((await t.admin('DELETE', `/api/v1/radius/profiles/${p.id}`)).status).to.equal(204)
      expectError(await t.admin('GET', `/api/v1/radius/profiles/${p.id}`), 404, 'NOT_FOUND', 'profile_id')
      expectError(await t.admin('DELETE', `/api/v1/radius/profiles/${p.id}`), 404, 'NOT_FOUND', 'profile_id')
    })

    it('deletes a profile that a row references with ON DELETE SET NULL (as AAA policy rules do), clearing the reference', async () => {
      const knex = t.app.db.knex
      const table = `radius_ref_probe_${randomUUID().slice(0, 8)}`
      await knex.schema.createTable(table, (tb) => {
        tb.increments('id')
        tb.uuid('radius_profile_id').references('radius_profiles.id').onDelete('SET NULL')
      })
      try {
        const p = await createProfile(t, { attributes: ADMIN_SHELL })
        await knex(table).insert({ radius_profile_id: p.id })
        expect((await t.admin('DELETE', `/api/v1/radius/profiles/${p.id}`)).status).to.equal(204)
        expect(await knex(table).pluck('radius_profile_id')).to.deep.equal([null])
      } finally {
        await knex.schema.dropTable(table)
      }
    })

    it('answers 404 naming profile_id for an unknown id, 422 for a malformed one', async () => {
      for (const m of ['GET', 'PUT', 'DELETE']) {
        const o = m === 'PUT' ? { body: {} } : {}
        expectError(await t.admin(m, `/api/v1/radius/profiles/${randomUUID()}`, o), 404, 'NOT_FOUND', 'profile_id')
        expectError(await t.admin(m, '/api/v1/radius/profiles/abc', o), 422, 'VALIDATION_FAILED', 'profile_id')
      }
    })
  })

  describe('strict bodies and names', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['an unknown field', { name: 'x', vendor: 'cisco' }, 'UNKNOWN_FIELD', 'vendor'],
      ['an unknown field in an attribute', { name: 'x', attributes: [{ name: 'Service-Type', value: 'Login-User', tag: 1 }] }, 'UNKNOWN_FIELD', 'attributes[0].tag'],
      ['no name', { attributes: [] }, 'FIELD_REQUIRED', 'name'],
      ['an empty name', { name: '' }, 'VALIDATION_FAILED', 'name'],
      ['a name of 65 characters', { name: 'p'.repeat(65) }, 'VALIDATION_FAILED', 'name'],
      ['a name with a space', { name: 'net admins' }, 'VALIDATION_FAILED', 'name'],
      ['a name starting with a dot', { name: '.hidden' }, 'VALIDATION_FAILED', 'name'],
      ['a name with a quote', { name: 'a"b' }, 'VALIDATION_FAILED', 'name'],
      ['a description of 501 characters', { name: 'x', description: 'd'.repeat(501) }, 'VALIDATION_FAILED', 'description'],
      ['attributes that are not a list', { name: 'x', attributes: { name: 'Service-Type' } }, 'VALIDATION_FAILED', 'attributes'],
      ['51 attributes', { name: 'x', attributes: Array.from({ length: 51 }, () => ({ name: 'Reply-Message', value: 'hi' })) }, 'VALIDATION_FAILED', 'attributes'],
      ['an attribute without a value', { name: 'x', attributes: [{ name: 'Service-Type' }] }, 'FIELD_REQUIRED', 'attributes[0].value'],
      ['an empty value', { name: 'x', attributes: [{ name: 'Reply-Message', value: '' }] }, 'VALIDATION_FAILED', 'attributes[0].value'],
      ['a value that is a number', { name: 'x', attributes: [{ name: 'Session-Timeout', value: 3600 }] }, 'VALIDATION_FAILED', 'attributes[0].value'],
      ['a value of 254 characters', { name: 'x', attributes: [{ name: 'Reply-Message', value: 'm'.repeat(254) }] }, 'VALIDATION_FAILED', 'attributes[0].value'],
    ]
    for (const [what, body, code, field] of cases) {
      it(`refuses ${what} (422 ${code} at ${field})`, async () => {
        expectError(await t.admin('POST', '/api/v1/radius/profiles', { body }), 422, code, field)
      })
    }

    it('accepts names of 1 and 64 characters with dots, dashes and underscores', async () => {
      // Each test app has a database of its own, so a one-character name is free.
      expect((await createProfile(t, { name: '7' })).name).to.equal('7')
      const long = `Net_Ops.v2-${randomUUID().replace(/-/g, '')}`.padEnd(64, 'x')
      expect(long).to.have.length(64)
      expect((await createProfile(t, { name: long })).name).to.equal(long)
    })

    it('accepts 50 attributes', async () => {
      const attributes = Array.from({ length: 50 }, (_, i) => ({ name: 'Cisco-AVPair', value: `shell:cmd${i}=x` }))
      expect((await createProfile(t, { attributes })).attributes).to.have.length(50)
    })

    it('answers 409 PROFILE_NAME_TAKEN, case-insensitively, on create and rename, in both languages', async () => {
      const name = uniq('Operators')
      const first = await createProfile(t, { name })
      expectError(await t.admin('POST', '/api/v1/radius/profiles', { body: { name: name.toLowerCase() } }), 409, 'PROFILE_NAME_TAKEN', 'name')
      const other = await createProfile(t)
      expectError(await t.admin('PUT', `/api/v1/radius/profiles/${other.id}`, { body: { name: name.toUpperCase() } }), 409, 'PROFILE_NAME_TAKEN', 'name')
      const ru = await t.admin('POST', '/api/v1/radius/profiles', { body: { name }, headers: { 'accept-language': 'ru' } })
      expect(ru.body.detail).to.equal(`Профиль RADIUS «${name}» уже существует.`)
      const en = await t.admin('POST', '/api/v1/radius/profiles', { body: { name } })
      expect(en.body.detail).to.equal(`A RADIUS profile named "${name}" already exists.`)
      // Renaming a profile to its own name, in another case, is no conflict.
      const self = await t.admin('PUT', `/api/v1/radius/profiles/${first.id}`, { body: { name: name.toUpperCase() } })
      expect(self.status).to.equal(200)
      expect(self.body.name).to.equal(name.toUpperCase())
    })

    it('lets only one of three racing creates of the same name through', async () => {
      const name = uniq('race')
      const rs = await Promise.all([0, 1, 2].map(() => t.admin('POST', '/api/v1/radius/profiles', { body: { name } })))
      expect(rs.map((r) => r.status).sort()).to.deep.equal([201, 409, 409])
      for (const r of rs.filter((x) => x.status === 409)) expect(r.body.code).to.equal('PROFILE_NAME_TAKEN')
    })
  })

  describe('list', () => {
    const tag = uniq('rplist')
    before(async () => {
      await createProfile(t, { name: `${tag}-b`, description: 'Helpdesk read only' })
      await createProfile(t, { name: `${tag}-a` })
      await createProfile(t, { name: `${tag}-c`, description: 'Net 100% ops' })
    })
    const list = (q: string) => t.admin('GET', `/api/v1/radius/profiles?search=${tag}&${q}`)
    const names = (r: { body: { items: { name: string }[] } }) => r.body.items.map((i) => i.name.slice(tag.length + 1))

    it('searches name and description, case-insensitively; total counts every profile', async () => {
      const all = Number((await t.app.db.knex('radius_profiles').count({ n: '*' }).first())!.n)
      const r = await list('')
      expect(r.body).to.include({ total: all, total_by_filter: 3, page: 1, per_page: 20, pages: 1 })
      expect(names(r)).to.deep.equal(['a', 'b', 'c'])
      const byDescription = await t.admin('GET', '/api/v1/radius/profiles?search=HELPDESK%20READ')
      expect(byDescription.body.items.map((i: { name: string }) => i.name)).to.deep.equal([`${tag}-b`])
      // % is matched literally, not as a wildcard.
      const literal = await t.admin('GET', `/api/v1/radius/profiles?search=${encodeURIComponent('100% ops')}`)
      expect(literal.body.items.map((i: { name: string }) => i.name)).to.deep.equal([`${tag}-c`])
      expect((await t.admin('GET', `/api/v1/radius/profiles?search=${encodeURIComponent('1%0')}`)).body.total_by_filter).to.equal(0)
    })

    it('sorts by name, created_at and updated_at, and pages', async () => {
      expect(names(await list('sort_by=name&sort_order=desc'))).to.deep.equal(['c', 'b', 'a'])
      expect(names(await list('sort_by=created_at'))).to.deep.equal(['b', 'a', 'c'])
      expect(names(await list('sort_by=created_at&sort_order=desc'))).to.deep.equal(['c', 'a', 'b'])
      const b = (await list('sort_by=name')).body.items[1]
      await t.admin('PUT', `/api/v1/radius/profiles/${b.id}`, { body: { description: 'touched' } })
      expect(names(await list('sort_by=updated_at&sort_order=desc'))[0]).to.equal('b')
      const p = await list('per_page=1&page=3')
      expect(p.body).to.include({ total_by_filter: 3, pages: 3, page: 3, per_page: 1 })
      expect(names(p)).to.deep.equal(['c'])
      expect((await list('per_page=2&page=5')).body.items).to.deep.equal([])
    })

    it('refuses a bad sort, page size or page', async () => {
      expectError(await list('sort_by=attributes'), 422, 'VALIDATION_FAILED', 'sort_by')
      expectError(await list('sort_order=up'), 422, 'VALIDATION_FAILED', 'sort_order')
      expectError(await list('per_page=101'), 422, 'VALIDATION_FAILED', 'per_page')
      expectError(await list('per_page=0'), 422, 'VALIDATION_FAILED', 'per_page')
      expectError(await list('page=0'), 422, 'VALIDATION_FAILED', 'page')
      expectError(await list('colour=red'), 422, 'UNKNOWN_FIELD', 'colour')
      expect((await list('per_page=100')).status).to.equal(200)
    })
  })

  describe('permissions and audit', () => {
    it('gates reads by radius.read and changes by radius.write', async () => {
      const none = await t.token({ permissions: [] })
      const reader = await t.token({ permissions: ['radius.read'] })
      const writer = await t.token({ permissions: ['radius.write'] })
      const p = await createProfile(t)
      for (const path of ['/api/v1/radius/profiles', `/api/v1/radius/profiles/${p.id}`, '/api/v1/radius/dictionary']) {
        expectError(await t.req('GET', path, { token: none }), 403, 'PERMISSION_DENIED')
        expect((await t.req('GET', path, { token: reader })).status, path).to.equal(200)
      }
      expectError(await t.req('POST', '/api/v1/radius/profiles', { token: reader, body: { name: uniq('x') } }), 403, 'PERMISSION_DENIED')
      expectError(await t.req('PUT', `/api/v1/radius/profiles/${p.id}`, { token: reader, body: {} }), 403, 'PERMISSION_DENIED')
      expectError(await t.req('DELETE', `/api/v1/radius/profiles/${p.id}`, { token: reader }), 403, 'PERMISSION_DENIED')
      expect((await t.req('POST', '/api/v1/radius/profiles', { token: writer, body: { name: uniq('w') } })).status).to.equal(201)
      expect((await t.req('PUT', `/api/v1/radius/profiles/${p.id}`, { token: writer, body: {} })).status).to.equal(200)
      expect((await t.req('DELETE', `/api/v1/radius/profiles/${p.id}`, { token: writer })).status).to.equal(204)
      expectError(await t.req('GET', '/api/v1/radius/profiles'), 401, 'TOKEN_INVALID')
    })

    it('declares its permissions in English and Russian', async () => {
      const en = (await t.admin('GET', '/api/v1/rbac/schema')).text
      const ru = (await t.admin('GET', '/api/v1/rbac/schema', { headers: { 'accept-language': 'ru' } })).text
      expect(en).to.include('radius.read').and.include('radius.write').and.include('Create, change and delete RADIUS profiles.')
      expect(ru).to.include('Создание, изменение и удаление профилей RADIUS.')
    })

    it('audits create, update and delete with before and after, by the actor', async () => {
      const writerId = randomUUID()
      const token = await t.token({ sub: writerId, permissions: ['radius.write'] })
      const c = await t.req('POST', '/api/v1/radius/profiles', { token, body: { name: uniq('aud'), attributes: ADMIN_SHELL } })
      const id = c.body.id
      const u = await t.req('PUT', `/api/v1/radius/profiles/${id}`, { token, body: { attributes: [{ name: 'Service-Type', value: 'NAS-Prompt-User' }] } })
      expect((await t.req('DELETE', `/api/v1/radius/profiles/${id}`, { token })).status).to.equal(204)
      const rows = await auditRows(t, id)
      expect(rows.map((r) => r.action)).to.deep.equal(['radius_profile.create', 'radius_profile.update', 'radius_profile.delete'])
      expect(rows.every((r) => r.resource_type === 'radius_profile' && r.actor_id === writerId)).to.equal(true)
      expect(rows[0]).to.deep.include({ before: null, after: c.body })
      expect(rows[1]).to.deep.include({ before: c.body, after: u.body })
      expect(rows[2]).to.deep.include({ before: u.body, after: null })
    })

    it('audits nothing for a refused change', async () => {
      const p = await createProfile(t)
      await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { attributes: [{ name: 'Service-Type', value: 'Root' }] } })
      expect((await auditRows(t, p.id)).map((r) => r.action)).to.deep.equal(['radius_profile.create'])
      expect((await t.admin('GET', `/api/v1/radius/profiles/${p.id}`)).body).to.deep.equal(p)
    })
  })

  it('publishes its routes in a valid OpenAPI document, gated by its permissions', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body
    const result = await new Validator().validate(doc)
    expect(result.valid, JSON.stringify(result.errors, null, 2)).to.equal(true)
    const ops: [string, string, string][] = [
      ['get', '/api/v1/radius/profiles', 'radius.read'],
      ['post', '/api/v1/radius/profiles', 'radius.write'],
      ['get', '/api/v1/radius/profiles/{profile_id}', 'radius.read'],
      ['put', '/api/v1/radius/profiles/{profile_id}', 'radius.write'],
      ['delete', '/api/v1/radius/profiles/{profile_id}', 'radius.write'],
      ['get', '/api/v1/radius/dictionary', 'radius.read'],
    ]
    for (const [method, path, permission] of ops) {
      const op = doc.paths[path]?.[method]
      expect(op, `${method} ${path}`).to.be.an('object')
      expect(op['x-plugin']).to.equal('radius')
      expect(op['x-permission'], path).to.equal(permission)
    }
    expect(doc.components.schemas).to.include.keys('RadiusProfileCreate', 'RadiusProfileUpdate', 'RadiusProfileResponse', 'RadiusProfileListResponse', 'RadiusAttribute', 'RadiusDictionaryResponse')
    expect(doc.paths['/api/v1/radius/profiles'].post.responses).to.include.keys('201', '409', '422')
  })
})
