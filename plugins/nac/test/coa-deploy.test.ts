/**
 * The automatic CoA waits for the deploy (edition with the radius plugin): FreeRADIUS answers from
 * its rendered tree, so the switch is told to re-ask only once a release carrying the change is
 * active. What waits is in a table: a restart loses nothing; turning `nac.coa_on_change` off drops it.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { createEndpoint, createGroup, uniq } from './helpers.js'

const PLUGINS = ['inventory', 'radius', 'nac']

describe('nac: an automatic CoA waits for the FreeRADIUS deploy that carries the change', function () {
  this.timeout(60_000)
  let t: TestApp
  let listener: LoopbackNas
  const address = `127.0.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`

  before(async () => {
    t = await startTestApp({ plugins: PLUGINS, settings: { 'nac.coa_timeout_ms': 300, 'nac.coa_retries': 0 } })
    const secret = `s3cret-${randomUUID().slice(0, 8)}`
    listener = await LoopbackNas.start(address, secret)
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address, vendor: 'Cisco', radius_secret: secret } })
    expect(dev.status, dev.text).to.equal(201)
    expect((await t.admin('PUT', `/api/v1/nac/coa-nas/${dev.body.id}`, { body: { port: listener.port } })).status).to.equal(200)
  })
  after(async () => {
    listener?.close()
    await t?.stop()
  })

  const seenAt = (endpointId: string) => t.app.db.knex('nac_endpoints').where({ id: endpointId }).update({ last_nas_ip: address, last_seen_at: new Date() })
  const waiting = async () => (await t.app.db.knex('nac_coa_waiting').select('endpoint_id')).map((r) => r.endpoint_id)
  const move = async (id: string, groupId: string) => expect((await t.admin('PUT', `/api/v1/nac/endpoints/${id}`, { body: { endpoint_group_id: groupId } })).status).to.equal(200)
  const deploy = async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius', comment: 'coa wait' } })
    expect(r.status, r.text).to.equal(201)
  }

  it('nothing reaches the NAS at the change; the deploy sends it, once for two changes', async () => {
    const a = await createGroup(t)
    const b = await createGroup(t)
    const e = await createEndpoint(t, { mac: '02:aa:00:00:00:01', endpoint_group_id: a.id })
    await seenAt(e.id)
    const before = listener.received.length
    await move(e.id, b.id)
    await move(e.id, a.id)
    await new Promise((r) => setTimeout(r, 500))
    expect(listener.received.length).to.equal(before)
    expect(await waiting()).to.deep.equal([e.id])
    await deploy()
    await listener.waitFor(before + 1)
    const end = Date.now() + 5000
    while ((await waiting()).length && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
    expect(await waiting()).to.deep.equal([])
    await new Promise((r) => setTimeout(r, 300))
    expect(listener.received.length).to.equal(before + 1)
    expect(listener.received.at(-1)!.ciscoAvPairs).to.include('subscriber:command=reauthenticate')
  })

  it('what waits survives a restart and goes at the next deploy; with coa_on_change off it is dropped', async () => {
    const a = await createGroup(t)
    const e = await createEndpoint(t, { mac: '02:aa:00:00:00:02' })
    await seenAt(e.id)
    await move(e.id, a.id)
    const end = Date.now() + 5000
    while (!(await waiting()).includes(e.id) && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
    // A restart is a second node on the same database: PostgreSQL only (the embedded engine belongs to one
    // process); on the embedded engine the same node goes on, and the rest holds alike.
    const second = t.databaseUrl ? await startTestApp({ plugins: PLUGINS, databaseUrl: t.databaseUrl, masterKey: t.masterKey }) : t
    try {
      expect(await waiting()).to.include(e.id)
      const before = listener.received.length
      const r = await second.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })
      expect(r.status, r.text).to.equal(201)
      await listener.waitFor(before + 1)
      const e2 = await createEndpoint(second, { mac: '02:aa:00:00:00:03' })
      await second.app.db.knex('nac_endpoints').where({ id: e2.id }).update({ last_nas_ip: address })
      expect((await second.admin('PUT', `/api/v1/nac/endpoints/${e2.id}`, { body: { endpoint_group_id: a.id } })).status).to.equal(200)
      while (!(await waiting()).includes(e2.id) && Date.now() < end + 5000) await new Promise((r) => setTimeout(r, 50))
      expect((await second.admin('PUT', '/api/v1/settings/nac.coa_on_change', { body: { value: 'off' } })).status).to.equal(200)
      const n = listener.received.length
      expect((await second.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })).status).to.equal(201)
      const stop = Date.now() + 5000
      while ((await waiting()).includes(e2.id) && Date.now() < stop) await new Promise((r) => setTimeout(r, 50))
      expect(await waiting()).to.not.include(e2.id)
      await new Promise((r) => setTimeout(r, 300))
      expect(listener.received.length).to.equal(n)
    } finally {
      if (second !== t) await second.stop()
    }
  })
})
