/**
 * A directory user registers their own device: the portal checks the password against the
 * directory (a real slapd) as the API's sign-in does (IdentityService.checkSignInPassword).
 */
import { expect } from 'chai'
import { PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd, type Slapd } from '../../../test/kit/slapd.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { createPortal, endpointOf, freshMac, GuestApi, startPortalApp, type PortalApp } from './helpers.js'

describe('portal: BYOD for a directory user', function () {
  this.timeout(120_000)
  let a: PortalApp
  let ldap: Slapd
  const person = { uid: `dana${Date.now() % 100000}`, password: 'Dana-Directory-Pass-7' }
  before(async function () {
    if (!slapdBinary()) skipBecause(this, SLAPD_SKIP)
    ldap = await startSlapd([person])
    a = await startPortalApp(['nac', 'portal'])
    for (const [key, value] of [['directory.url', ldap.url], ['directory.bind_dn', READER.dn], ['directory.bind_password', READER.password], ['directory.user_base_dn', PEOPLE_DN]]) {
      expect((await a.t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status).to.equal(200)
    }
  })
  after(async () => {
    await a?.stop()
    await ldap?.destroy()
  })

  it('the directory password registers the device to the user; a wrong one is refused', async () => {
    const u = await a.t.admin('POST', '/api/v1/users', { body: { username: person.uid, source: 'directory' } })
    expect(u.status, u.text).to.equal(201)
    const p = await createPortal(a.t, { methods: ['byod'] })
    const g = new GuestApi(a.t)
    const mac = freshMac()
    await g.start(p.slug, mac)
    expect((await g.call('POST', '/guest/login', { username: person.uid, password: 'not-it' })).status).to.equal(401)
    const ok = await g.call('POST', '/guest/login', { username: person.uid, password: person.password })
    expect(ok.status, ok.text).to.equal(200)
    expect(ok.body.status).to.equal('registered')
    expect(await endpointOf(a.t, mac)).to.include({ endpoint_group_id: p.byod_endpoint_group_id, owner_user_id: u.body.id })
  })
})
