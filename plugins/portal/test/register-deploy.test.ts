/**
 * Flow 4 with the radius plugin: a registration asks for the FreeRADIUS deploy by itself (no
 * administrator), and the NAC's automatic reauthenticate CoA, which waits for that deploy, reaches
 * the NAS (a loopback listener); the portal sends no CoA of its own, and its answer does not wait.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { createPortal, freshMac, GuestApi, REDIRECT_KEY, db } from './helpers.js'

describe('portal: a registration reaches FreeRADIUS by a deploy the platform asks for, then the CoA', function () {
  this.timeout(120_000)
  let t: TestApp
  let nas: LoopbackNas
  const address = `127.0.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`

  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'radius', 'nac', 'portal'], env: { TRUST_PROXY: 'true' }, settings: { 'nac.coa_timeout_ms': 300, 'nac.coa_retries': 0 } })
    expect((await t.admin('PUT', '/api/v1/settings/nac.portal_redirect_key', { body: { value: REDIRECT_KEY } })).status).to.equal(200)
    const secret = `s3cret-${randomUUID().slice(0, 8)}`
    nas = await LoopbackNas.start(address, secret)
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: `sw-${randomUUID().slice(0, 6)}`, address, vendor: 'Cisco', radius_secret: secret } })
    expect(dev.status, dev.text).to.equal(201)
    expect((await t.admin('PUT', `/api/v1/nac/coa-nas/${dev.body.id}`, { body: { port: nas.port } })).status).to.equal(200)
  })
  after(async () => {
    nas?.close()
    await t?.stop()
  })

  it('hotspot: the deploy is made (audited with the MAC), then one reauthenticate CoA reaches the NAS', async () => {
    const p = await createPortal(t, { methods: ['hotspot'] })
    const mac = freshMac()
    // The switch's MAB was seen (the redirect): the NAC knows the endpoint and its NAS.
    const seen = await t.admin('POST', '/api/v1/nac/endpoints', { body: { mac } })
    expect(seen.status, seen.text).to.equal(201)
    await db(t)('nac_endpoints').where({ id: seen.body.id }).update({ last_nas_ip: address, last_seen_at: new Date() })
    const before = nas.received.length
    const g = new GuestApi(t)
    await g.start(p.slug, mac)
    const r = await g.call('POST', '/guest/hotspot', { accept_terms: true })
    expect(r.status, r.text).to.equal(200)
    expect(r.body.session.state).to.equal('active')
    const got = await nas.waitFor(before + 1, 60_000)
    expect(got.at(-1)!.ciscoAvPairs).to.include('subscriber:command=reauthenticate')
    const deploys = await t.admin('GET', '/api/v1/deploys?daemon=freeradius')
    expect(deploys.status, deploys.text).to.equal(200)
    expect(JSON.stringify(deploys.body)).to.include(`captive portal: ${mac} registered`)
    await new Promise((res) => setTimeout(res, 500))
    expect(nas.received.length, 'one CoA: the NAC\'s, none of the portal\'s own').to.equal(before + 1)
  })
})
