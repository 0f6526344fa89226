/** Opt-in CHAP: `chap_enabled` round-trips, and the sealed verifiers keep the cleartext only while it is on (with network login). */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'
import { auditRows, createUser, expectError, STRONG, STRONG_2 } from './helpers.js'

describe('users API: chap_enabled', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  const put = async (id: string, body: Record<string, unknown>) => {
    const r = await t.admin('PUT', `/api/v1/users/${id}`, { body })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  const sealed = async (id: string) => (await t.app.db.knex('users').where({ id }).first())!.network_verifiers

  it('defaults to false and round-trips through create, read, update and list', async () => {
    const plain = await createUser(t, { password: STRONG })
    expect(plain.chap_enabled).to.equal(false)
    const u = await createUser(t, { password: STRONG, network_login: true, chap_enabled: true })
    expect(u.chap_enabled).to.equal(true)
    expect((await t.admin('GET', `/api/v1/users/${u.id}`)).body.chap_enabled).to.equal(true)
    expect((await put(u.id, { chap_enabled: false })).chap_enabled).to.equal(false)
    expect((await put(u.id, { chap_enabled: true, password: STRONG_2 })).chap_enabled).to.equal(true)
    const list = await t.admin('GET', `/api/v1/users?search=${encodeURIComponent(u.username)}`)
    expect(list.body.items.find((x: any) => x.id === u.id).chap_enabled).to.equal(true)
  })

  it('keeps the cleartext in the sealed verifiers only with network_login and chap_enabled, never in the API or the audit trail', async () => {
    const chap = await createUser(t, { password: STRONG, network_login: true, chap_enabled: true })
    const v = (await t.app.identity.networkVerifiers(chap.id))!
    expect(v.cleartext).to.equal(STRONG)
    expect(v.sha512_crypt).to.match(/^\$6\$/)
    expect(await sealed(chap.id)).to.be.a('string').and.not.include(STRONG)
    expect(JSON.stringify(chap)).to.not.include(STRONG)
    expect(JSON.stringify((await t.admin('GET', `/api/v1/users/${chap.id}`)).body)).to.not.include(STRONG)
    expect(JSON.stringify(await auditRows(t, chap.id))).to.not.include(STRONG)

    const noChap = await createUser(t, { password: STRONG, network_login: true })
    expect((await t.app.identity.networkVerifiers(noChap.id))!).to.not.have.property('cleartext')
    // chap_enabled without network login: nothing is sealed at all.
    const noNetwork = await createUser(t, { password: STRONG, chap_enabled: true })
    expect(await sealed(noNetwork.id)).to.equal(null)
  })

  it('turning it on for a network user asks for the password in the same request and keeps it; a password change keeps it current', async () => {
    const u = await createUser(t, { password: STRONG, network_login: true })
    expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { chap_enabled: true } }), 422, 'NETWORK_PASSWORD_REQUIRED', 'password')
    expect((await t.app.identity.networkVerifiers(u.id))!).to.not.have.property('cleartext')
    const on = await put(u.id, { chap_enabled: true, password: STRONG })
    expect(JSON.stringify(on)).to.not.include(STRONG)
    expect((await t.app.identity.networkVerifiers(u.id))!.cleartext).to.equal(STRONG)
    const after = await put(u.id, { password: STRONG_2 })
    expect(JSON.stringify(after)).to.not.include(STRONG_2)
    expect((await t.app.identity.networkVerifiers(u.id))!.cleartext).to.equal(STRONG_2)
  })

  it('turning it off clears the cleartext at once and keeps the other verifiers', async () => {
    const u = await createUser(t, { password: STRONG, network_login: true, chap_enabled: true })
    const before = (await t.app.identity.networkVerifiers(u.id))!
    expect(before.cleartext).to.equal(STRONG)
    const off = await put(u.id, { chap_enabled: false })
    expect(off).to.include({ chap_enabled: false, network_verifiers_set: true })
    const v = (await t.app.identity.networkVerifiers(u.id))!
    expect(v).to.not.have.property('cleartext')
    expect(v).to.deep.equal({ sha512_crypt: before.sha512_crypt, nt_hash: before.nt_hash })
    // On again: only with the password, which nothing kept.
    expectError(await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { chap_enabled: true } }), 422, 'NETWORK_PASSWORD_REQUIRED', 'password')
    expect((await t.app.identity.networkVerifiers(u.id))!).to.not.have.property('cleartext')
    await put(u.id, { chap_enabled: true, password: STRONG_2 })
    expect((await t.app.identity.networkVerifiers(u.id))!.cleartext).to.equal(STRONG_2)
    // Off together with a new password: the new verifiers come without it.
    await put(u.id, { chap_enabled: false, password: STRONG })
    expect((await t.app.identity.networkVerifiers(u.id))!).to.not.have.property('cleartext')
  })
})
