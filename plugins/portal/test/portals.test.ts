/**
 * /api/v1/captive-portal/portals: CRUD, every refusal at its field, the references to NAC endpoint
 * groups and user groups, the logo, hostile text, the permission gates, and the sponsor group's
 * capability by membership (the kernel's no-escalation rule).
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError, uniq } from '../../../test/kit/expect.js'
import { createGroup, createPortal, insertSession, slugOf } from './admin-helpers.js'

const API = '/api/v1/captive-portal/portals'
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64')
const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64')
const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'

describe('portal: portals API', () => {
  let t: TestApp
  before(async function () {
    this.timeout(120_000)
    t = await startTestApp({ plugins: ['nac', 'portal'] })
  })
  after(async () => t?.stop())

  const snapshot = async () => JSON.stringify(await t.app.db.knex('portal_portals').orderBy('id').select('*'))
  const logo = (id: string, bytes: Buffer, type: string, token = t.adminToken) => t.req('PUT', `${API}/${id}/logo`, { token, raw: bytes as unknown as string, headers: { 'content-type': type } })

  it('creates with the defaults, reads, lists with filters, changes and deletes, each audited', async () => {
    const g = await createGroup(t)
    const name = uniq('Lobby')
    const r = await t.admin('POST', API, { body: { name, slug: slugOf(name), methods: ['hotspot'], guest_endpoint_group_id: g.id, sponsor_domains: ['Example.COM'] } })
    expect(r.status, r.text).to.equal(201)
    expect(r.body).to.deep.include({
      name, slug: slugOf(name), url_path: `/portal/${slugOf(name)}`, description: null, enabled: true, methods: ['hotspot'], nas_ips: [], ssids: [], accept_unsigned_redirect: false,
      guest_endpoint_group_id: g.id, byod_endpoint_group_id: null, guest_minutes: 480, byod_days: null, byod_device_limit: 3, byod_onboarding: 'none',
      self_registration_fields: [], sponsor_domains: ['example.com'], sponsor_group_id: null, sponsor_link_minutes: 60, branding: {}, has_logo: false, logo_url: null,
    })
    const id = r.body.id
    expect((await t.admin('GET', `${API}/${id}`)).body).to.deep.equal(r.body)
    const list = await t.admin('GET', `${API}?search=${encodeURIComponent(name)}&method=hotspot&enabled=true`)
    expect(list.body.items.map((p: any) => p.id)).to.deep.equal([id])
    expect((await t.admin('GET', `${API}?search=${encodeURIComponent(name)}&method=byod`)).body.items).to.deep.equal([])
    const fields = [{ name: 'company', label: { en: 'Company', ru: 'Компания' }, required: true }]
    const u = await t.admin('PATCH', `${API}/${id}`, {
      body: { methods: ['self_registration', 'hotspot'], self_registration_fields: fields, nas_ips: ['10.0.0.1', '2001:DB8::1'], ssids: ['Guest WiFi'], guest_minutes: 90, enabled: false, branding: { primary_colour: '#0a0b0c', texts: { ru: { title: 'Добро пожаловать' } } } },
    })
    expect(u.status, u.text).to.equal(200)
    expect(u.body).to.deep.include({ methods: ['self_registration', 'hotspot'], self_registration_fields: fields, nas_ips: ['10.0.0.1', '2001:db8::1'], ssids: ['Guest WiFi'], guest_minutes: 90, enabled: false, name })
    expect(u.body.branding).to.deep.equal({ primary_colour: '#0a0b0c', texts: { ru: { title: 'Добро пожаловать' } } })
    expect((await t.admin('DELETE', `${API}/${id}`)).status).to.equal(204)
    expect((await t.admin('GET', `${API}/${id}`)).status).to.equal(404)
    const audit = await auditRows(t, id)
    expect(audit.map((a) => a.action)).to.deep.equal(['captive_portal.create', 'captive_portal.update', 'captive_portal.delete'])
    expect(audit[1].before.guest_minutes).to.equal(480)
    expect(audit[1].after.guest_minutes).to.equal(90)
  })

  it('refuses each bad field at that field, changing nothing', async () => {
    const g = await createGroup(t)
    const taken = await createPortal(t)
    const ok = { name: 'ok-portal', slug: 'ok-portal', methods: ['hotspot'], guest_endpoint_group_id: g.id }
    const cases: [Record<string, unknown>, number, string, string | null][] = [
      [{ ...ok, colour: 'red' }, 422, 'UNKNOWN_FIELD', 'colour'],
      [{ slug: 'x', methods: ['hotspot'] }, 422, 'FIELD_REQUIRED', 'name'],
      [{ ...ok, name: ' ' }, 422, 'VALIDATION_FAILED', 'name'],
      [{ ...ok, slug: 'Lobby' }, 422, 'VALIDATION_FAILED', 'slug'],
      [{ ...ok, slug: '-lobby' }, 422, 'VALIDATION_FAILED', 'slug'],
      [{ ...ok, slug: 'a'.repeat(41) }, 422, 'VALIDATION_FAILED', 'slug'],
      [{ ...ok, slug: '../admin' }, 422, 'VALIDATION_FAILED', 'slug'],
      [{ ...ok, methods: [] }, 422, 'VALIDATION_FAILED', 'methods'],
      [{ ...ok, methods: ['wifi'] }, 422, 'VALIDATION_FAILED', 'methods[0]'],
      [{ ...ok, methods: ['hotspot', 'hotspot'] }, 422, 'VALIDATION_FAILED', 'methods'],
      [{ ...ok, nas_ips: ['10.0.0.300'] }, 422, 'VALIDATION_FAILED', 'nas_ips[0]'],
      [{ ...ok, nas_ips: ['10.0.0.1', 'switch-1'] }, 422, 'VALIDATION_FAILED', 'nas_ips[1]'],
      [{ ...ok, ssids: ['line\nbreak'] }, 422, 'VALIDATION_FAILED', 'ssids[0]'],
      [{ ...ok, sponsor_domains: ['not a domain'] }, 422, 'VALIDATION_FAILED', 'sponsor_domains[0]'],
      [{ ...ok, sponsor_domains: ['example.com', 'localhost'] }, 422, 'VALIDATION_FAILED', 'sponsor_domains[1]'],
      [{ ...ok, branding: { primary_colour: 'red' } }, 422, 'VALIDATION_FAILED', 'branding.primary_colour'],
      [{ ...ok, branding: { background_colour: '#FFFFFF' } }, 422, 'VALIDATION_FAILED', 'branding.background_colour'],
      [{ ...ok, branding: { texts: { en: { title: 't'.repeat(101) } } } }, 422, 'VALIDATION_FAILED', 'branding.texts.en.title'],
      [{ ...ok, branding: { texts: { ru: { terms: 't'.repeat(20001) } } } }, 422, 'VALIDATION_FAILED', 'branding.texts.ru.terms'],
      [{ ...ok, branding: { texts: { de: { title: 'x' } } } }, 422, 'UNKNOWN_FIELD', 'branding.texts.de'],
      [{ ...ok, guest_minutes: 4 }, 422, 'VALIDATION_FAILED', 'guest_minutes'],
      [{ ...ok, guest_minutes: 525601 }, 422, 'VALIDATION_FAILED', 'guest_minutes'],
      [{ ...ok, byod_days: 0 }, 422, 'VALIDATION_FAILED', 'byod_days'],
      [{ ...ok, byod_device_limit: 0 }, 422, 'VALIDATION_FAILED', 'byod_device_limit'],
      [{ ...ok, sponsor_link_minutes: 10081 }, 422, 'VALIDATION_FAILED', 'sponsor_link_minutes'],
      [{ ...ok, self_registration_fields: [{ name: 'Company', label: { en: 'C' }, required: true }] }, 422, 'VALIDATION_FAILED', 'self_registration_fields[0].name'],
      [{ ...ok, self_registration_fields: [{ name: 'email', label: { en: 'E' }, required: true }] }, 422, 'VALIDATION_FAILED', 'self_registration_fields[0].name'],
      [{ ...ok, self_registration_fields: [{ name: 'a', label: { en: 'A' }, required: true }, { name: 'a', label: { en: 'B' }, required: false }] }, 422, 'VALIDATION_FAILED', 'self_registration_fields[1].name'],
      [{ ...ok, guest_endpoint_group_id: null }, 422, 'PORTAL_METHOD_NEEDS_GROUP', 'guest_endpoint_group_id'],
      [{ ...ok, methods: ['byod'] }, 422, 'PORTAL_METHOD_NEEDS_GROUP', 'byod_endpoint_group_id'],
      [{ ...ok, methods: ['sponsored'] }, 422, 'PORTAL_SPONSORED_NEEDS_SPONSORS', 'sponsor_domains'],
      [{ ...ok, guest_endpoint_group_id: randomUUID() }, 422, 'REFERENCE_NOT_FOUND', 'guest_endpoint_group_id'],
      [{ ...ok, methods: ['byod'], byod_endpoint_group_id: randomUUID() }, 422, 'REFERENCE_NOT_FOUND', 'byod_endpoint_group_id'],
      [{ ...ok, sponsor_group_id: randomUUID() }, 422, 'REFERENCE_NOT_FOUND', 'sponsor_group_id'],
      [{ ...ok, byod_onboarding: 'certificate' }, 422, 'PORTAL_ONBOARDING_UNAVAILABLE', 'byod_onboarding'],
      [{ ...ok, name: taken.name.toUpperCase() }, 409, 'PORTAL_NAME_TAKEN', 'name'],
      [{ ...ok, slug: taken.slug }, 409, 'PORTAL_SLUG_TAKEN', 'slug'],
    ]
    const before = await snapshot()
    for (const [body, status, code, field] of cases) expectError(await t.admin('POST', API, { body }), status, code, field)
    const p = await createPortal(t)
    const after = await t.app.db.knex('portal_portals').whereNot({ id: p.id }).orderBy('id').select('*')
    expect(JSON.stringify(after)).to.equal(before)
    // A change is checked on the portal as it will be.
    const patches: [Record<string, unknown>, number, string, string][] = [
      [{ guest_endpoint_group_id: null }, 422, 'PORTAL_METHOD_NEEDS_GROUP', 'guest_endpoint_group_id'],
      [{ methods: ['hotspot', 'byod'] }, 422, 'PORTAL_METHOD_NEEDS_GROUP', 'byod_endpoint_group_id'],
      [{ methods: ['sponsored'], sponsor_domains: [] }, 422, 'PORTAL_SPONSORED_NEEDS_SPONSORS', 'sponsor_domains'],
      [{ name: taken.name }, 409, 'PORTAL_NAME_TAKEN', 'name'],
      [{ slug: taken.slug }, 409, 'PORTAL_SLUG_TAKEN', 'slug'],
      [{ id: randomUUID() }, 422, 'UNKNOWN_FIELD', 'id'],
      [{ has_logo: true }, 422, 'UNKNOWN_FIELD', 'has_logo'],
    ]
    const mid = await snapshot()
    for (const [body, status, code, field] of patches) expectError(await t.admin('PATCH', `${API}/${p.id}`, { body }), status, code, field)
    expect(await snapshot()).to.equal(mid)
    expect((await t.admin('PATCH', `${API}/${p.id}`, { body: { name: p.name.toUpperCase() } })).status, 'its own name in another case').to.equal(200)
  })

  it('answers 404 naming portal_id, 422 for a malformed id', async () => {
    for (const [m, suffix, o] of [['GET', '', {}], ['PATCH', '', { body: {} }], ['DELETE', '', {}], ['DELETE', '/logo', {}]] as const) {
      expectError(await t.admin(m, `${API}/${randomUUID()}${suffix}`, o), 404, 'NOT_FOUND', 'portal_id')
      expectError(await t.admin(m, `${API}/nope${suffix}`, o), 422, 'VALIDATION_FAILED', 'portal_id')
    }
    expectError(await logo(randomUUID(), PNG, 'image/png'), 404, 'NOT_FOUND', 'portal_id')
  })

  it('keeps an endpoint group or user group a portal names from being deleted (409 naming the portal), and a portal with active sessions', async () => {
    const byod = await createGroup(t)
    const ug = await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('sponsors') } })
    expect(ug.status, ug.text).to.equal(201)
    const p = await createPortal(t, { methods: ['hotspot', 'byod', 'sponsored'], byod_endpoint_group_id: byod.id, sponsor_group_id: ug.body.id })
    for (const [path, code, field] of [
      [`/api/v1/nac/endpoint-groups/${p.guest_endpoint_group_id}`, 'GROUP_IN_USE', 'endpoint_group_id'],
      [`/api/v1/nac/endpoint-groups/${byod.id}`, 'GROUP_IN_USE', 'endpoint_group_id'],
      [`/api/v1/user-groups/${ug.body.id}`, 'RECORD_IN_USE', 'group_id'],
    ]) {
      const r = await t.admin('DELETE', path)
      expectError(r, 409, code, field)
      expect(r.body.detail).to.include(p.name)
    }
    const refs = await t.admin('GET', `/api/v1/nac/endpoint-groups/${byod.id}/references`)
    expect(refs.body.blocking).to.deep.equal([{ type: 'captive_portal', id: p.id, name: p.name }])
    const s = await insertSession(t, p)
    const inUse = await t.admin('DELETE', `${API}/${p.id}`)
    expectError(inUse, 409, 'PORTAL_IN_USE', 'portal_id')
    expect(inUse.body.detail).to.include('1 active session.')
    expect((await t.admin('DELETE', `${API}/${p.id}`, { headers: { 'accept-language': 'ru' } })).body.detail).to.include('1 активный сеанс')
    await t.app.db.knex('portal_sessions').where({ id: s.id }).update({ state: 'ended', ended_at: new Date() })
    expect((await t.admin('PATCH', `${API}/${p.id}`, { body: { methods: ['hotspot'], byod_endpoint_group_id: null, sponsor_group_id: null } })).status).to.equal(200)
    expect((await t.admin('DELETE', `/api/v1/nac/endpoint-groups/${byod.id}`)).status).to.equal(204)
    expect((await t.admin('DELETE', `/api/v1/user-groups/${ug.body.id}`)).status).to.equal(204)
    expect((await t.admin('DELETE', `${API}/${p.id}`)).status).to.equal(204)
    expect(await t.app.db.knex('portal_sessions').where({ id: s.id }).first(), 'its sessions go with it').to.equal(undefined)
  })

  it('takes a PNG, JPEG or GIF logo by its bytes, never returns them, and removes it', async () => {
    const p = await createPortal(t)
    const up = await logo(p.id, PNG, 'image/png')
    expect(up.status, up.text).to.equal(200)
    expect(up.body).to.include({ has_logo: true, logo_url: `/portal/${p.slug}/logo` })
    expect(up.text).not.to.include(PNG.toString('base64').slice(0, 16))
    const stored = await t.app.db.knex('portal_portals').where({ id: p.id }).first('logo', 'logo_type')
    expect(Buffer.compare(stored!.logo!, PNG)).to.equal(0)
    expect(stored!.logo_type).to.equal('image/png')
    const list = await t.admin('GET', `${API}?search=${p.name}`)
    expect(Object.keys(list.body.items[0])).not.to.include('logo')
    expect((await logo(p.id, GIF, 'image/gif')).body.has_logo).to.equal(true)
    const before = await snapshot()
    expectError(await logo(p.id, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/svg+xml'), 415, 'BODY_UNSUPPORTED_TYPE', null)
    expectError(await logo(p.id, GIF, 'image/png'), 415, 'PORTAL_LOGO_TYPE', null)
    expectError(await logo(p.id, Buffer.from(`<html>${HOSTILE}</html>`), 'image/jpeg'), 415, 'PORTAL_LOGO_TYPE', null)
    expectError(await logo(p.id, Buffer.concat([PNG, Buffer.alloc(256 * 1024)]), 'image/png'), 413, 'BODY_TOO_LARGE', null)
    expect(await snapshot()).to.equal(before)
    expect((await t.admin('DELETE', `${API}/${p.id}/logo`)).status).to.equal(204)
    expect((await t.admin('GET', `${API}/${p.id}`)).body).to.include({ has_logo: false, logo_url: null })
    expect((await auditRows(t, p.id)).map((a) => a.action)).to.deep.equal(['captive_portal.create', 'captive_portal.logo_upload', 'captive_portal.logo_upload', 'captive_portal.logo_delete'])
  })

  it('stores hostile names and texts as given and returns them as JSON', async () => {
    const texts = { title: HOSTILE.slice(0, 100), welcome: `${HOSTILE}\n"quotes" & 'apostrophes'`, terms: `{{7*7}} \${x} ${HOSTILE}` }
    const p = await createPortal(t, { name: `${HOSTILE} ${uniq('n')}`, description: HOSTILE, branding: { texts: { en: texts, ru: texts } }, self_registration_fields: [{ name: 'note', label: { en: HOSTILE.slice(0, 100) }, required: false }] })
    const r = await t.admin('GET', `${API}/${p.id}`)
    expect(r.headers.get('content-type')).to.match(/^application\/json/)
    expect(r.body.name.startsWith(HOSTILE)).to.equal(true)
    expect(r.body.description).to.equal(HOSTILE)
    expect(r.body.branding.texts.en).to.deep.equal(texts)
    expect(r.body.self_registration_fields[0].label.en).to.equal(HOSTILE.slice(0, 100))
  })

  it('gates by permission: read sees, only manage writes; the others write nothing', async () => {
    const p = await createPortal(t)
    const reader = await t.token({ permissions: ['portal.read'] })
    const guests = await t.token({ permissions: ['portal.read', 'portal.guests'] })
    const sponsor = await t.token({ permissions: ['portal.sponsor'] })
    const nobody = await t.token({ permissions: ['nac.read'] })
    const manager = await t.token({ permissions: ['portal.manage', 'nac.read'] })
    expect((await t.req('GET', API, { token: reader })).status).to.equal(200)
    expect((await t.req('GET', `${API}/${p.id}`, { token: reader })).status).to.equal(200)
    expectError(await t.req('GET', API, { token: nobody }), 403, 'PERMISSION_DENIED')
    const before = await snapshot()
    const g = p.guest_endpoint_group_id
    for (const token of [reader, guests, sponsor, nobody]) {
      expectError(await t.req('POST', API, { token, body: { name: uniq('x'), slug: uniq('x'), methods: ['hotspot'], guest_endpoint_group_id: g } }), 403, 'PERMISSION_DENIED')
      expectError(await t.req('PATCH', `${API}/${p.id}`, { token, body: { enabled: false } }), 403, 'PERMISSION_DENIED')
      expectError(await t.req('DELETE', `${API}/${p.id}`, { token }), 403, 'PERMISSION_DENIED')
      expectError(await logo(p.id, PNG, 'image/png', token), 403, 'PERMISSION_DENIED')
    }
    expect(await snapshot()).to.equal(before)
    const name = uniq('managed')
    expect((await t.req('POST', API, { token: manager, body: { name, slug: slugOf(name), methods: ['hotspot'], guest_endpoint_group_id: g } })).status).to.equal(201)
  })

  it('lets only an administrator or a holder of portal.sponsor name a sponsor group (its members hold portal.sponsor)', async () => {
    const ug = await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('sponsors') } })
    const p = await createPortal(t)
    const manager = await t.token({ permissions: ['portal.manage'] })
    const both = await t.token({ permissions: ['portal.manage', 'portal.sponsor'] })
    const before = await snapshot()
    expectError(await t.req('PATCH', `${API}/${p.id}`, { token: manager, body: { sponsor_group_id: ug.body.id } }), 403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'sponsor_group_id')
    const name = uniq('s')
    expectError(await t.req('POST', API, { token: manager, body: { name, slug: slugOf(name), methods: ['hotspot'], guest_endpoint_group_id: p.guest_endpoint_group_id, sponsor_group_id: ug.body.id } }), 403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'sponsor_group_id')
    expect(await snapshot()).to.equal(before)
    expect((await t.req('PATCH', `${API}/${p.id}`, { token: both, body: { sponsor_group_id: ug.body.id } })).status).to.equal(200)
    // Once set, the manager may change the rest without holding it.
    expect((await t.req('PATCH', `${API}/${p.id}`, { token: manager, body: { guest_minutes: 60 } })).status).to.equal(200)
  })

  it('holds a portal\'s sponsor group to the no-escalation rule: users.write alone puts nobody into it', async () => {
    const ug = await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('sponsors') } })
    await createPortal(t, { sponsor_group_id: ug.body.id })
    const plain = await t.admin('POST', '/api/v1/users', { body: { username: uniq('guest-host') } })
    expect(plain.status, plain.text).to.equal(201)
    const userAdmin = await t.token({ permissions: ['users.read', 'users.write'] })
    const members = () => t.app.db.knex('user_group_members').where({ group_id: ug.body.id }).pluck('user_id')
    expectError(await t.req('PUT', `/api/v1/users/${plain.body.id}`, { token: userAdmin, body: { group_ids: [ug.body.id] } }), 403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'group_ids[0]')
    expectError(await t.req('POST', '/api/v1/users', { token: userAdmin, body: { username: uniq('sneaky'), group_ids: [ug.body.id] } }), 403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'group_ids[0]')
    expect(await members()).to.deep.equal([])
    const holder = await t.token({ permissions: ['users.read', 'users.write', 'portal.sponsor'] })
    expect((await t.req('PUT', `/api/v1/users/${plain.body.id}`, { token: holder, body: { group_ids: [ug.body.id] } })).status).to.equal(200)
    expect(await members()).to.deep.equal([plain.body.id])
  })
})
