/**
 * /api/v1/tacacs/profiles, enable: the mode (none by default), the level, and the secret, which is
 * stored only as its SHA-512 crypt verifier, never returned (nor audited), forgotten when the mode
 * leaves `secret`; bad combinations answer 422 and change nothing. The rendered profile carries it.
 */
import { expect } from 'chai'
import { sha512CryptMatches } from '../../../sdk/index.js'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createTacacsService } from '../services/tacacs-service.js'
import { createProfile, expectError, uniq } from './helpers.js'

const BASE = '/api/v1/tacacs/profiles'
const SECRET = 'enable-Secret-42'

describe('tacacs profiles API: enable', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'tacacs'] })
  })
  after(async () => t?.stop())

  const stored = async (id: string) => (await t.app.db.knex('tacacs_profiles').where({ id }).first('enable_secret'))!.enable_secret as string | null

  it('defaults to enable refused at level 15, with no secret', async () => {
    const p = await createProfile(t)
    expect(p).to.include({ enable_mode: 'none', enable_privilege_level: 15, has_enable_secret: false })
    expect(await stored(p.id)).to.equal(null)
  })

  it('keeps a secret only as its SHA-512 crypt verifier: never in a response, a list or the audit', async () => {
    const p = await createProfile(t, { enable_mode: 'secret', enable_secret: SECRET, enable_privilege_level: 7 })
    expect(p).to.include({ enable_mode: 'secret', enable_privilege_level: 7, has_enable_secret: true })
    expect(p).to.not.have.property('enable_secret')
    const verifier = await stored(p.id)
    expect(verifier).to.match(/^\$6\$/)
    expect(sha512CryptMatches(SECRET, verifier!)).to.equal(true)
    const list = await t.admin('GET', `${BASE}?search=${encodeURIComponent(p.name)}`)
    const everything = JSON.stringify([p, (await t.admin('GET', `${BASE}/${p.id}`)).body, list.body])
    const audit = JSON.stringify(await t.app.db.knex('audit_log').where({ resource_id: p.id }))
    for (const text of [everything, audit]) {
      expect(text).to.not.include(SECRET)
      expect(text).to.not.include(verifier!)
    }
    // A change of something else keeps the secret; a new secret replaces it.
    await t.admin('PUT', `${BASE}/${p.id}`, { body: { description: 'x' } })
    expect(await stored(p.id)).to.equal(verifier)
    const r = await t.admin('PUT', `${BASE}/${p.id}`, { body: { enable_secret: 'another-Secret-43' } })
    expect(r.status).to.equal(200)
    expect(sha512CryptMatches('another-Secret-43', (await stored(p.id))!)).to.equal(true)
  })

  it('forgets the secret when the mode leaves secret; asking for secret again needs a new one', async () => {
    const p = await createProfile(t, { enable_mode: 'secret', enable_secret: SECRET })
    const r = await t.admin('PUT', `${BASE}/${p.id}`, { body: { enable_mode: 'login' } })
    expect(r.body).to.include({ enable_mode: 'login', has_enable_secret: false })
    expect(await stored(p.id)).to.equal(null)
    expectError(await t.admin('PUT', `${BASE}/${p.id}`, { body: { enable_mode: 'secret' } }), 422, 'ENABLE_SECRET_REQUIRED', 'enable_secret')
    expect((await t.admin('GET', `${BASE}/${p.id}`)).body).to.deep.equal(r.body)
  })

  it('refuses a secret mode without a secret, a secret with another mode, a bad secret or level: 422, nothing changed', async () => {
    const name = uniq('p')
    expectError(await t.admin('POST', BASE, { body: { name, enable_mode: 'secret' } }), 422, 'ENABLE_SECRET_REQUIRED', 'enable_secret')
    expectError(await t.admin('POST', BASE, { body: { name, enable_secret: SECRET } }), 422, 'ENABLE_SECRET_UNUSED', 'enable_secret')
    expectError(await t.admin('POST', BASE, { body: { name, enable_mode: 'login', enable_secret: SECRET } }), 422, 'ENABLE_SECRET_UNUSED', 'enable_secret')
    expectError(await t.admin('POST', BASE, { body: { name, enable_mode: 'secret', enable_secret: 'a\u0000b' } }), 422, 'VALIDATION_FAILED', 'enable_secret')
    expectError(await t.admin('POST', BASE, { body: { name, enable_mode: 'secret', enable_secret: '' } }), 422, 'VALIDATION_FAILED', 'enable_secret')
    expectError(await t.admin('POST', BASE, { body: { name, enable_mode: 'secret', enable_secret: 'seven77' } }), 422, 'VALIDATION_FAILED', 'enable_secret')
    expectError(await t.admin('POST', BASE, { body: { name, enable_mode: 'enable' } }), 422, 'VALIDATION_FAILED', 'enable_mode')
    expectError(await t.admin('POST', BASE, { body: { name, enable_privilege_level: 16 } }), 422, 'VALIDATION_FAILED', 'enable_privilege_level')
    expect((await t.admin('GET', `${BASE}?search=${name}`)).body.items).to.deep.equal([])
    const p = await createProfile(t, { enable_mode: 'login' })
    expectError(await t.admin('PUT', `${BASE}/${p.id}`, { body: { enable_secret: SECRET } }), 422, 'ENABLE_SECRET_UNUSED', 'enable_secret')
    expect((await t.admin('GET', `${BASE}/${p.id}`)).body).to.deep.equal(p)
  })

  it('renders `enable N = login` or `enable N = crypt "<verifier>"` in the profile, nothing for none', async () => {
    const service = createTacacsService(t.app.db)
    const none = await service.getProfile((await createProfile(t)).id)
    const login = await service.getProfile((await createProfile(t, { enable_mode: 'login', enable_privilege_level: 10 })).id)
    const secret = await service.getProfile((await createProfile(t, { enable_mode: 'secret', enable_secret: SECRET })).id)
    expect(await service.renderProfile(none!)).to.not.include('enable')
    expect(await service.renderProfile(login!)).to.include('\n    enable 10 = login\n')
    const text = await service.renderProfile(secret!)
    expect(text).to.include(`\n    enable 15 = crypt "${await stored(secret!.id)}"\n`)
    expect(text).to.not.include(SECRET)
  })
})
