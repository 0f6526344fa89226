/**
 * The CoA service as profiling will use it: through `nacCoaServiceRef`, by a
 * fixture plugin. authorizationChanged returns at once and the NAS gets its
 * CoA in the background; send() waits for the answer and names the session
 * by Acct-Session-Id when given. Without the inventory, no NAS can be found.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { createEndpoint, expectError, uniq } from './helpers.js'
import { skipBecause } from '../../../test/kit/skip.js'

const CONSUMER = './plugins/nac/test/fixtures/coa-consumer'

describe('nac: the CoA service through its ref', () => {
  let t: TestApp
  let nas: LoopbackNas
  const address = `127.0.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'nac', CONSUMER], settings: { 'nac.coa_timeout_ms': 300, 'nac.coa_retries': 0 } })
    const secret = `s-${randomUUID().slice(0, 8)}`
    nas = await LoopbackNas.start(address, secret)
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address, vendor: 'Cisco Systems', radius_secret: secret } })
    expect(dev.status, dev.text).to.equal(201)
    expect((await t.admin('PUT', `/api/v1/nac/coa-nas/${dev.body.id}`, { body: { port: nas.port } })).status).to.equal(200)
  })
  after(async () => {
    nas?.close()
    await t?.stop()
  })
  const seen = (id: string) => t.app.db.knex('nac_endpoints').where({ id }).update({ last_nas_ip: address })

  it('authorizationChanged: returns at once; each endpoint a NAS saw gets a reauthenticate CoA, recorded with the reason', async () => {
    nas.answer = { kind: 'silent' }
    const a = await createEndpoint(t)
    const b = await createEndpoint(t)
    const never = await createEndpoint(t)
    await seen(a.id)
    await seen(b.id)
    const r = await t.admin('POST', '/api/v1/nac-coa-consumer/changed', { body: { ids: [a.id, b.id, never.id, a.id, 'not-a-uuid'], reason: 'device_type_change', wait: false } })
    expect(r.status, r.text).to.equal(200)
    // The NAS is silent for 300 ms a request: the call did not wait for it.
    expect(r.body.returned_in_ms).to.be.below(50)
    expect((await t.admin('POST', '/api/v1/nac-coa-consumer/changed', { body: { ids: [], reason: 'device_type_change', wait: true } })).status).to.equal(200)
    await nas.waitFor(2)
    const rows = await t.app.db.knex('nac_coa_requests').whereIn('endpoint_id', [a.id, b.id, never.id]).select('endpoint_id', 'reason', 'result', 'action')
    expect(rows).to.have.length(2)
    for (const row of rows) expect(row).to.include({ reason: 'device_type_change', result: 'timeout', action: 'reauthenticate' })
    expect(nas.received.every((x) => x.signed && x.ciscoAvPairs.includes('subscriber:command=reauthenticate'))).to.equal(true)
  })

  it('send: awaits the answer; names the session by Acct-Session-Id when given', async () => {
    nas.answer = { kind: 'ack' }
    const before = nas.received.length
    const e = await createEndpoint(t)
    await seen(e.id)
    const r = await t.admin('POST', '/api/v1/nac-coa-consumer/send', { body: { id: e.id, action: 'disconnect', acct_session_id: '00000A2B-1' } })
    expect(r.status, r.text).to.equal(201)
    expect(r.body).to.include({ result: 'ack', reason: 'device_type_change', requested_by: null, packet_code: 40 })
    const got = (await nas.waitFor(before + 1))[before]
    expect(got.attributes['Acct-Session-Id']).to.equal('00000A2B-1')
    expectError(await t.admin('POST', '/api/v1/nac-coa-consumer/send', { body: { id: randomUUID(), action: 'disconnect' } }), 404, 'NOT_FOUND', 'endpoint_id')
  })

  it('without the inventory there is no NAS to reach: 409 COA_NAS_UNKNOWN', async () => {
    const bare = await startTestApp({ plugins: ['nac'] })
    try {
      const e = await createEndpoint(bare)
      await bare.app.db.knex('nac_endpoints').where({ id: e.id }).update({ last_nas_ip: '10.0.0.1' })
      expectError(await bare.admin('POST', `/api/v1/nac/endpoints/${e.id}/coa`, { body: { action: 'reauthenticate' } }), 409, 'COA_NAS_UNKNOWN', 'endpoint_id')
      expectError(await bare.admin('GET', `/api/v1/nac/coa-nas/${randomUUID()}`), 404, 'NOT_FOUND', 'device_id')
    } finally {
      await bare.stop()
    }
  })

  it('a request left pending by a node that stopped mid-exchange is closed as error at the next boot; a recent one is left alone', async function () {
    // A second node on the same database: PostgreSQL only (the embedded engine belongs to one process).
    if (!t.databaseUrl) skipBecause(this, 'two nodes on one database: PostgreSQL only (runs in the PostgreSQL run)')
    const e = await createEndpoint(t)
    const [old] = await t.app.db.knex('nac_coa_requests').insert({ endpoint_id: e.id, mac: e.mac, action: 'disconnect', reason: 'admin', result: 'pending', created_at: new Date(Date.now() - 3600_000) }).returning('id')
    const [recent] = await t.app.db.knex('nac_coa_requests').insert({ endpoint_id: e.id, mac: e.mac, action: 'disconnect', reason: 'admin', result: 'pending' }).returning('id')
    const second = await startTestApp({ plugins: ['inventory', 'nac'], databaseUrl: t.databaseUrl!, masterKey: t.masterKey })
    try {
      const rows = await t.app.db.knex('nac_coa_requests').whereIn('id', [old.id, recent.id]).select('id', 'result', 'error_detail')
      expect(rows.find((r) => r.id === old.id)).to.include({ result: 'error' })
      expect(rows.find((r) => r.id === old.id)!.error_detail).to.match(/stopped/)
      expect(rows.find((r) => r.id === recent.id)).to.include({ result: 'pending' })
    } finally {
      await second.stop()
    }
  })
})
