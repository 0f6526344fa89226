/**
 * Change of Authorization (RFC 5176) against a loopback NAS written with the
 * npm `radius` package (coa-nas.ts): what reaches it, signed with which
 * secret; ACK, NAK, silence and a forged answer, each as recorded; the CoA
 * that follows an endpoint moving group; the refusals; the permissions.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { auditRows, createEndpoint, createGroup, expectError, importCsv, uniq } from './helpers.js'

let host = 10 + Math.floor(Math.random() * 200)
/** A loopback address of its own per NAS (Linux answers on all of 127/8), so each test has its own device and listener. */
const freshLoopback = () => `127.0.${Math.floor(Math.random() * 250) + 1}.${(host = (host % 250) + 1)}`

describe('nac: Change of Authorization', () => {
  let t: TestApp
  const nases: LoopbackNas[] = []
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'nac'], settings: { 'nac.coa_timeout_ms': 300, 'nac.coa_retries': 1 } })
  })
  after(async () => {
    for (const n of nases) n.close()
    await t?.stop()
  })

  /** A NAS: the listener, the inventory device for its address (with the secret), its CoA port set to the listener's. */
  async function nas(o: { vendor?: string | null; dialect?: string } = {}) {
    const address = freshLoopback()
    const secret = `s3cret-${randomUUID().slice(0, 8)}`
    const listener = await LoopbackNas.start(address, secret)
    nases.push(listener)
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address, vendor: o.vendor === undefined ? 'Cisco' : o.vendor, radius_secret: secret } })
    expect(dev.status, dev.text).to.equal(201)
    const put = await t.admin('PUT', `/api/v1/nac/coa-nas/${dev.body.id}`, { body: { port: listener.port, ...(o.dialect ? { dialect: o.dialect } : {}) } })
    expect(put.status, put.text).to.equal(200)
    return { listener, device: dev.body, address, secret }
  }

  /** What the ingester writes when the NAS authenticates the endpoint (telemetry: no API writes it). */
  const seenAt = (endpointId: string, ip: string, port: string | null = 'GigabitEthernet1/0/7') =>
    t.app.db.knex('nac_endpoints').where({ id: endpointId }).update({ last_nas_ip: ip, last_nas_port: port, last_seen_at: new Date() })

  const coaCount = async () => Number((await t.app.db.knex('nac_coa_requests').count({ n: '*' }).first())!.n)

  /** The endpoint's records, once none is pending any more. */
  async function settled(endpointId: string, n = 1, ms = 5000): Promise<any[]> {
    const end = Date.now() + ms
    for (;;) {
      const r = await t.admin('GET', `/api/v1/nac/endpoints/${endpointId}/coa`)
      expect(r.status, r.text).to.equal(200)
      if (r.body.items.length >= n && r.body.items.every((x: any) => x.result !== 'pending')) return r.body.items
      if (Date.now() > end) throw new Error(`no settled CoA for ${endpointId}: ${r.text}`)
      await new Promise((res) => setTimeout(res, 50))
    }
  }

  it('reauthenticate (Cisco): the NAS gets a signed CoA-Request naming the session, the ACK is recorded and audited', async () => {
    const { listener, device, address, secret } = await nas()
    const e = await createEndpoint(t)
    await seenAt(e.id, address)
    const r = await t.admin('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body: { action: 'reauthenticate' } })
    expect(r.status, r.text).to.equal(201)
    const [got] = await listener.waitFor(1)
    expect(got.code).to.equal(43)
    expect(got.signed, 'Request Authenticator and Message-Authenticator with the device secret').to.equal(true)
    expect(got.hasMessageAuthenticator).to.equal(true)
    expect(got.attributes['Calling-Station-Id']).to.equal(e.mac.replace(/:/g, '-').toUpperCase())
    expect(got.attributes['NAS-IP-Address']).to.equal(address)
    expect(got.attributes['NAS-Port-Id']).to.equal('GigabitEthernet1/0/7')
    expect(got.ciscoAvPairs).to.include('subscriber:command=reauthenticate')
    expect(got.attributes['Service-Type']).to.equal(undefined)
    expect(r.body).to.include({ endpoint_id: e.id, mac: e.mac, action: 'reauthenticate', reason: 'admin', result: 'ack', attempts: 1, device_id: device.id, device_name: device.name })
    expect(r.body).to.include({ nas_ip: address, nas_port: listener.port, dialect: 'cisco', packet_code: 43, error_cause: null })
    expect(r.body.requested_by).to.be.a('string')
    expect(r.body.requested_by_username).to.be.a('string')
    expect(r.body.answered_at).to.be.a('string')
    expect(r.body.attributes).to.deep.include({ name: 'Cisco-AVPair', value: 'subscriber:command=reauthenticate' })
    expect(JSON.stringify(r.body)).not.to.include(secret)
    const list = await t.admin('GET', `/api/v1/nac/endpoints/${e.id}/coa`)
    expect(list.body.items).to.deep.equal([r.body])
    const global = await t.admin('GET', `/api/v1/nac/coa-requests?endpoint_id=${e.id}`)
    expect(global.body.items.map((x: any) => x.id)).to.deep.equal([r.body.id])
    const audit = await auditRows(t, e.id)
    expect(audit.map((a) => a.action)).to.include('endpoint.coa')
    expect(audit.find((a) => a.action === 'endpoint.coa')!.after).to.include({ coa_request_id: r.body.id, action: 'reauthenticate', nas_ip: address })
  })

  it('disconnect and bounce-port in both dialects; RFC 5176 reauthenticate is Service-Type Authorize-Only', async () => {
    const cisco = await nas()
    const other = await nas({ vendor: 'Aruba' })
    const e1 = await createEndpoint(t)
    const e2 = await createEndpoint(t)
    await seenAt(e1.id, cisco.address)
    await seenAt(e2.id, other.address, null)
    const send = async (id: string, action: string) => {
      const r = await t.admin('POST', `/api/v1/nac/endpoints/${id}/coa`, { body: { action } })
      expect(r.status, r.text).to.equal(201)
      expect(r.body.result).to.equal('ack')
      return r.body
    }
    await send(e1.id, 'disconnect')
    await send(e1.id, 'bounce-port')
    const [disc, bounce] = await cisco.listener.waitFor(2)
    expect(disc.code).to.equal(40)
    expect(disc.ciscoAvPairs).to.deep.equal([])
    expect(bounce.code).to.equal(43)
    expect(bounce.ciscoAvPairs).to.deep.equal(['subscriber:command=bounce-host-port'])
    expect(disc.signed && bounce.signed).to.equal(true)

    const reauth = await send(e2.id, 'reauthenticate')
    expect(reauth.dialect).to.equal('rfc5176')
    const rfcBounce = await send(e2.id, 'bounce-port')
    expect(rfcBounce.packet_code).to.equal(40)
    const [a, b] = await other.listener.waitFor(2)
    expect(a.code).to.equal(43)
    expect(a.attributes['Service-Type']).to.equal('Authorize-Only')
    expect(a.ciscoAvPairs).to.deep.equal([])
    expect(a.attributes['NAS-Port-Id']).to.equal(undefined)
    expect(b.code).to.equal(40)
    expect(a.signed && b.signed).to.equal(true)

    // The device's dialect override wins over its vendor.
    const forced = await nas({ vendor: 'Aruba', dialect: 'cisco' })
    const e3 = await createEndpoint(t)
    await seenAt(e3.id, forced.address)
    expect((await send(e3.id, 'reauthenticate')).dialect).to.equal('cisco')
    expect((await forced.listener.waitFor(1))[0].ciscoAvPairs).to.include('subscriber:command=reauthenticate')
  })

  it('records a NAK with its Error-Cause', async () => {
    const { listener, address } = await nas()
    listener.answer = { kind: 'nak', errorCause: 503 }
    const e = await createEndpoint(t)
    await seenAt(e.id, address)
    const r = await t.admin('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body: { action: 'disconnect' } })
    expect(r.status, r.text).to.equal(201)
    expect(r.body).to.include({ result: 'nak', error_cause: 503, error_cause_name: 'Session-Context-Not-Found', attempts: 1 })
    expect((await t.admin('GET', '/api/v1/nac/coa-requests?result=nak')).body.items.map((x: any) => x.id)).to.include(r.body.id)
    // The record outlives the endpoint: its id goes, its MAC stays.
    expect((await t.admin('DELETE', `/api/v1/nac/endpoints/${e.id}`)).status).to.equal(204)
    const kept = (await t.admin('GET', '/api/v1/nac/coa-requests?result=nak')).body.items.find((x: any) => x.id === r.body.id)
    expect(kept).to.include({ endpoint_id: null, mac: e.mac, result: 'nak' })
  })

  it('records a timeout after the retries, each the same datagram', async () => {
    const { listener, address } = await nas()
    listener.answer = { kind: 'silent' }
    const e = await createEndpoint(t)
    await seenAt(e.id, address)
    const r = await t.admin('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body: { action: 'reauthenticate' } })
    expect(r.status, r.text).to.equal(201)
    expect(r.body).to.include({ result: 'timeout', attempts: 2, answered_at: null, error_cause: null })
    const got = await listener.waitFor(2)
    expect(got).to.have.length(2)
    expect(got[1].raw.equals(got[0].raw), 'a retransmission repeats identifier and authenticator').to.equal(true)
  })

  it('refuses an answer signed with another secret (Response Authenticator): bad_response, not ack', async () => {
    const { listener, address } = await nas()
    listener.answer = { kind: 'wrong-secret' }
    const e = await createEndpoint(t)
    await seenAt(e.id, address)
    const r = await t.admin('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body: { action: 'reauthenticate' } })
    expect(r.status, r.text).to.equal(201)
    expect(r.body.result).to.equal('bad_response')
    expect(r.body.error_detail).to.match(/Response Authenticator/)
    expect(r.body.answered_at).to.equal(null)
    expect(listener.received.length).to.be.at.least(1)
  })

  it('an endpoint moved to another group (PUT or import) gets a reauthenticate CoA after the commit; off sends none', async () => {
    const { listener, address } = await nas()
    const g1 = await createGroup(t)
    const g2 = await createGroup(t)
    const e = await createEndpoint(t, { endpoint_group_id: g1.id })
    await seenAt(e.id, address)
    const put = await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { endpoint_group_id: g2.id } })
    expect(put.status, put.text).to.equal(200)
    const [got] = await listener.waitFor(1)
    expect(got.code).to.equal(43)
    expect(got.signed).to.equal(true)
    expect(got.ciscoAvPairs).to.include('subscriber:command=reauthenticate')
    const [rec] = await settled(e.id)
    expect(rec).to.include({ reason: 'group_change', action: 'reauthenticate', result: 'ack', requested_by: null })

    // A change that keeps the group sends nothing.
    expect((await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { description: 'same group' } })).status).to.equal(200)
    // The import moves it back.
    const imp = await importCsv(t, `mac,endpoint_group\n${e.mac},${g1.name}\n`)
    expect(imp.status, imp.text).to.equal(200)
    expect(imp.body.updated).to.equal(1)
    await listener.waitFor(2)
    expect((await settled(e.id, 2)).map((x) => x.reason)).to.deep.equal(['group_change', 'group_change'])

    expect((await t.admin('PUT', '/api/v1/settings/nac.coa_on_change', { body: { value: 'off' } })).status).to.be.oneOf([200, 204])
    try {
      expect((await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { endpoint_group_id: g2.id } })).status).to.equal(200)
      await new Promise((res) => setTimeout(res, 400))
      expect(listener.received).to.have.length(2)
      expect(await settled(e.id, 2)).to.have.length(2)
    } finally {
      await t.admin('PUT', '/api/v1/settings/nac.coa_on_change', { body: { value: 'reauthenticate' } })
    }
  })

  it('the write does not wait for the NAS: a silent NAS leaves the CoA pending while the PUT has answered', async () => {
    const { listener, address } = await nas()
    listener.answer = { kind: 'silent' }
    const g = await createGroup(t)
    const e = await createEndpoint(t)
    await seenAt(e.id, address)
    const set = (key: string, value: number) => t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
    await set('nac.coa_timeout_ms', 2000)
    await set('nac.coa_retries', 0)
    try {
      const t0 = Date.now()
      const put = await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { endpoint_group_id: g.id } })
      expect(put.status, put.text).to.equal(200)
      expect(Date.now() - t0, 'the PUT answered before the NAS could time out').to.be.below(2000)
      await listener.waitFor(1)
      const now = (await t.admin('GET', `/api/v1/nac/endpoints/${e.id}/coa`)).body.items
      expect(now.map((x: any) => x.result)).to.deep.equal(['pending'])
      expect((await settled(e.id, 1, 6000))[0]).to.include({ result: 'timeout', attempts: 1 })
    } finally {
      await set('nac.coa_timeout_ms', 300)
      await set('nac.coa_retries', 1)
    }
  })

  it('an automatic CoA whose NAS is not in the inventory is recorded as an error; the write still succeeds', async () => {
    const g = await createGroup(t)
    const e = await createEndpoint(t)
    await seenAt(e.id, '192.0.2.77')
    const put = await t.admin('PUT', `/api/v1/nac/endpoints/${e.id}`, { body: { endpoint_group_id: g.id } })
    expect(put.status, put.text).to.equal(200)
    const [rec] = await settled(e.id)
    expect(rec).to.include({ result: 'error', reason: 'group_change', nas_ip: '192.0.2.77', device_id: null })
    expect(rec.error_detail).to.match(/^COA_NAS_UNKNOWN/)
    // One never seen by a NAS has no session: nothing recorded.
    const fresh = await createEndpoint(t)
    expect((await t.admin('PUT', `/api/v1/nac/endpoints/${fresh.id}`, { body: { endpoint_group_id: g.id } })).status).to.equal(200)
    await new Promise((res) => setTimeout(res, 200))
    expect((await t.admin('GET', `/api/v1/nac/endpoints/${fresh.id}/coa`)).body.items).to.deep.equal([])
  })

  it('no NAS to ask: 409 with the reason, nothing sent or recorded', async () => {
    const before = await coaCount()
    const never = await createEndpoint(t)
    expectError(await t.admin('POST', `/api/v1/nac/endpoints/${never.id}/coa`, { body: { action: 'reauthenticate' } }), 409, 'COA_NO_NAS', 'endpoint_id')
    const unknown = await createEndpoint(t)
    await seenAt(unknown.id, '198.51.100.9')
    const r = await t.admin('POST', `/api/v1/nac/endpoints/${unknown.id}/coa`, { body: { action: 'disconnect' } })
    expectError(r, 409, 'COA_NAS_UNKNOWN', 'endpoint_id')
    expect(r.body.detail).to.include('198.51.100.9')
    const address = freshLoopback()
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address } })
    expect(dev.status).to.equal(201)
    const nosecret = await createEndpoint(t)
    await seenAt(nosecret.id, address)
    const r2 = await t.admin('POST', `/api/v1/nac/endpoints/${nosecret.id}/coa`, { body: { action: 'reauthenticate' } })
    expectError(r2, 409, 'COA_NAS_NO_SECRET', 'endpoint_id')
    expect(r2.body.detail).to.include(dev.body.name)
    expect(await coaCount()).to.equal(before)
    expect((await auditRows(t, unknown.id)).map((a) => a.action)).not.to.include('endpoint.coa')
  })

  it('bad input: 422 or 404 in the envelope, nothing sent', async () => {
    const { listener, address, device } = await nas()
    const e = await createEndpoint(t)
    await seenAt(e.id, address)
    const before = await coaCount()
    const post = (id: string, body: unknown) => t.admin('POST', `/api/v1/nac/endpoints/${id}/coa`, { body })
    expectError(await post(e.id, { action: 'reboot' }), 422, 'VALIDATION_FAILED', 'action')
    expectError(await post(e.id, {}), 422, 'FIELD_REQUIRED', 'action')
    expectError(await post(e.id, { action: 'disconnect', port: 1700 }), 422, 'UNKNOWN_FIELD', 'port')
    expectError(await post('not-a-uuid', { action: 'disconnect' }), 422, 'VALIDATION_FAILED', 'endpoint_id')
    expectError(await post(randomUUID(), { action: 'disconnect' }), 404, 'NOT_FOUND', 'endpoint_id')
    expectError(await t.admin('GET', `/api/v1/nac/endpoints/${randomUUID()}/coa`), 404, 'NOT_FOUND', 'endpoint_id')
    expectError(await t.admin('GET', '/api/v1/nac/coa-requests?result=maybe'), 422, 'VALIDATION_FAILED', 'result')
    expectError(await t.admin('GET', '/api/v1/nac/coa-requests?per_page=101'), 422, 'VALIDATION_FAILED', 'per_page')
    for (const port of [0, 65536, 1.5, '3799']) expectError(await t.admin('PUT', `/api/v1/nac/coa-nas/${device.id}`, { body: { port } }), 422, 'VALIDATION_FAILED', 'port')
    expectError(await t.admin('PUT', `/api/v1/nac/coa-nas/${device.id}`, { body: { dialect: 'juniper' } }), 422, 'VALIDATION_FAILED', 'dialect')
    expectError(await t.admin('PUT', `/api/v1/nac/coa-nas/${randomUUID()}`, { body: { port: 1700 } }), 404, 'NOT_FOUND', 'device_id')
    expectError(await t.admin('GET', `/api/v1/nac/coa-nas/${randomUUID()}`), 404, 'NOT_FOUND', 'device_id')
    expect((await t.admin('GET', `/api/v1/nac/coa-nas/${device.id}`)).body).to.include({ port: listener.port, effective_port: listener.port, dialect: 'auto', effective_dialect: 'cisco' })
    expect(await coaCount()).to.equal(before)
    expect(listener.received).to.have.length(0)
  })

  it('the device override: the setting applies without one, and it goes with the device', async () => {
    const { device } = await nas()
    expect((await t.admin('DELETE', `/api/v1/nac/coa-nas/${device.id}`)).status).to.equal(204)
    expect((await t.admin('GET', `/api/v1/nac/coa-nas/${device.id}`)).body).to.include({ port: null, effective_port: 3799, dialect: 'auto' })
    expect((await t.admin('PUT', `/api/v1/nac/coa-nas/${device.id}`, { body: { port: 1700 } })).body).to.include({ port: 1700, effective_port: 1700 })
    expect((await auditRows(t, device.id)).map((a) => a.action)).to.include.members(['coa_nas.update', 'coa_nas.delete'])
    expect((await t.admin('DELETE', `/api/v1/devices/${device.id}`)).status).to.equal(204)
    expect(await t.app.db.knex('nac_coa_nas').where({ device_id: device.id }).first()).to.equal(undefined)
  })

  it('an IPv6 NAS: NAS-IPv6-Address, over UDP6', async () => {
    const secret = `s6-${randomUUID().slice(0, 8)}`
    const listener = await LoopbackNas.start('::1', secret)
    nases.push(listener)
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw6'), address: '::1', vendor: 'Cisco', radius_secret: secret } })
    expect(dev.status, dev.text).to.equal(201)
    expect((await t.admin('PUT', `/api/v1/nac/coa-nas/${dev.body.id}`, { body: { port: listener.port } })).status).to.equal(200)
    const e = await createEndpoint(t)
    await seenAt(e.id, '::1')
    const r = await t.admin('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body: { action: 'disconnect' } })
    expect(r.status, r.text).to.equal(201)
    expect(r.body).to.include({ result: 'ack', nas_ip: '::1' })
    const [got] = await listener.waitFor(1)
    expect(got.signed).to.equal(true)
    expect(got.attributes['NAS-IP-Address']).to.equal(undefined)
    const v6 = got.raw_attributes.find(([type]) => type === 95)
    expect(v6 && v6[1].toString('hex')).to.equal('0'.repeat(31) + '1')
  })

  it('authorization: 401 without a token, 403 without the permission', async () => {
    const { listener, address, device } = await nas()
    const e = await createEndpoint(t)
    await seenAt(e.id, address)
    const body = { action: 'reauthenticate' }
    expect((await t.req('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body })).status).to.equal(401)
    expect((await t.req('GET', `/api/v1/nac/endpoints/${e.id}/coa`)).status).to.equal(401)
    expect((await t.req('GET', '/api/v1/nac/coa-requests')).status).to.equal(401)
    expect((await t.req('PUT', `/api/v1/nac/coa-nas/${device.id}`, { body: { port: 1 } })).status).to.equal(401)
    const reader = await t.token({ permissions: ['nac.read'] })
    const writer = await t.token({ permissions: ['nac.write'] })
    const sender = await t.token({ permissions: ['nac.coa.send'] })
    expect((await t.req('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body, token: reader })).status).to.equal(403)
    expect((await t.req('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body, token: writer })).status).to.equal(403)
    expect((await t.req('GET', '/api/v1/nac/coa-requests', { token: sender })).status).to.equal(403)
    expect((await t.req('GET', `/api/v1/nac/endpoints/${e.id}/coa`, { token: sender })).status).to.equal(403)
    expect((await t.req('PUT', `/api/v1/nac/coa-nas/${device.id}`, { body: { port: 1 }, token: reader })).status).to.equal(403)
    expect((await t.req('DELETE', `/api/v1/nac/coa-nas/${device.id}`, { token: reader })).status).to.equal(403)
    expect(listener.received).to.have.length(0)
    const ok = await t.req('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body, token: sender })
    expect(ok.status, ok.text).to.equal(201)
    expect(ok.body.result).to.equal('ack')
    expect((await t.req('GET', `/api/v1/nac/endpoints/${e.id}/coa`, { token: reader })).body.items).to.have.length(1)
  })
})
