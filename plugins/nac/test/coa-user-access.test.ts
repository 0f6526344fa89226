/**
 * A user's access ended (disabled, deleted, network login off): each of their open sessions, known from
 * accounting (lines fed to the real ingester), gets a Disconnect-Request (RFC 5176) at the NAS once the
 * FreeRADIUS deploy that refuses them is active, recorded with reason `user_access_ended`. Another user's
 * session is left alone; a silent NAS neither blocks nor undoes the user change; a user whose access came
 * back before the deploy keeps the session.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { freshMac, uniq, waitFor } from './helpers.js'
import { ACCT_FILE, acctLine } from './radius-lines.js'

const now = () => Math.floor(Date.now() / 1000)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))


describe("nac: a user's access ended ends their live sessions by Disconnect-Request", function () {
  this.timeout(120_000)
  let t: TestApp
  let nas: LoopbackNas
  let dir: string
  const address = `127.0.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nac-coa-user-'))
    t = await startTestApp({
      plugins: ['inventory', 'radius', 'aaa-logs', 'nac'],
      settings: { 'aaa-logs.poll_ms': 20, 'nac.coa_timeout_ms': 300, 'nac.coa_retries': 0 },
      options: { 'radius.log_directory': dir },
    })
    const secret = `s-${randomUUID().slice(0, 8)}`
    nas = await LoopbackNas.start(address, secret)
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address, vendor: 'Aruba', radius_secret: secret } })
    expect(dev.status, dev.text).to.equal(201)
    expect((await t.admin('PUT', `/api/v1/nac/coa-nas/${dev.body.id}`, { body: { port: nas.port } })).status).to.equal(200)
  })
  after(async () => {
    nas?.close()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const user = async () => {
    const r = await t.admin('POST', '/api/v1/users', { body: { username: uniq('net'), password: 'Correct-Horse-9', network_login: true } })
    expect(r.status, r.text).to.equal(201)
    return r.body as { id: string; username: string }
  }
  /** A session opened by accounting (Start), as the NAS names the user (here in another case). */
  const session = async (username: string) => {
    const mac = freshMac()
    const sid = `S-${randomUUID().slice(0, 8)}`
    appendFileSync(path.join(dir, ACCT_FILE), acctLine({ ts: now(), mac, nas: address, user: username.toUpperCase(), status: 'Start', sid, portId: 'Gi1/0/3' }))
    await waitFor(() => t.app.db.knex('nac_sessions').where({ acct_session_id: sid }).first(), `session ${sid}`)
    return { mac, sid }
  }
  const waiting = async () => (await t.app.db.knex('nac_coa_waiting_sessions').select('acct_session_id')).map((r) => r.acct_session_id)
  const deploy = async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius', comment: 'user access ended' } })
    expect(r.status, r.text).to.equal(201)
  }
  const records = (sid: string) => t.app.db.knex('nac_coa_requests').whereRaw("attributes::text LIKE ?", [`%${sid}%`]).select('*')
  const drained = () => waitFor(async () => (await waiting()).length === 0, 'the waiting Disconnect-Requests to go')

  it('disabled: nothing at the change; after the deploy, a Disconnect-Request naming the session, and none for another user', async () => {
    nas.answer = { kind: 'ack' }
    const alice = await user()
    const bob = await user()
    const a = await session(alice.username)
    const b = await session(bob.username)
    const before = nas.received.length
    const r = await t.admin('PUT', `/api/v1/users/${alice.id}`, { body: { enabled: false } })
    expect(r.status, r.text).to.equal(200)
    await sleep(300)
    expect(nas.received.length, 'sent before the deploy refused the user').to.equal(before)
    expect(await waiting()).to.include(a.sid).and.not.include(b.sid)
    await deploy()
    const got = (await nas.waitFor(before + 1))[before]
    expect(got.code).to.equal(40)
    expect(got.signed).to.equal(true)
    expect(got.attributes['Acct-Session-Id']).to.equal(a.sid)
    expect(got.attributes['Calling-Station-Id']).to.equal(a.mac.toUpperCase().replace(/:/g, '-'))
    expect(got.attributes['NAS-Port-Id']).to.equal('Gi1/0/3')
    await drained()
    const [rec] = await waitFor(async () => {
      const rows = await records(a.sid)
      return rows.length && rows[0].result !== 'pending' ? rows : null
    }, 'the record')
    expect(rec).to.include({ action: 'disconnect', reason: 'user_access_ended', result: 'ack', mac: a.mac, nas_ip: address, requested_by: null, packet_code: 40 })
    await sleep(300)
    expect(nas.received.length).to.equal(before + 1)
    expect(await records(b.sid)).to.have.length(0)
  })

  it('deleted, or network login off: the same; a silent NAS neither blocks nor undoes the change', async () => {
    nas.answer = { kind: 'silent' }
    const carol = await user()
    const dave = await user()
    const c = await session(carol.username)
    const d = await session(dave.username)
    const before = nas.received.length
    expect((await t.admin('PUT', `/api/v1/users/${carol.id}`, { body: { network_login: false } })).status).to.equal(200)
    expect((await t.admin('DELETE', `/api/v1/users/${dave.id}`)).status).to.equal(204)
    expect(await waiting()).to.include.members([c.sid, d.sid])
    await deploy()
    await nas.waitFor(before + 2)
    await drained()
    for (const s of [c, d]) {
      const [rec] = await waitFor(async () => {
        const rows = await records(s.sid)
        return rows.length && rows[0].result !== 'pending' ? rows : null
      }, 'the record')
      expect(rec).to.include({ action: 'disconnect', reason: 'user_access_ended', result: 'timeout' })
    }
    expect((await t.admin('GET', `/api/v1/users/${carol.id}`)).body.network_login).to.equal(false)
    expect((await t.admin('GET', `/api/v1/users/${dave.id}`)).status).to.equal(404)
  })

  it('access back before the deploy, or CoA off: nothing is sent', async () => {
    nas.answer = { kind: 'ack' }
    const erin = await user()
    const e = await session(erin.username)
    const before = nas.received.length
    expect((await t.admin('PUT', `/api/v1/users/${erin.id}`, { body: { enabled: false } })).status).to.equal(200)
    expect((await t.admin('PUT', `/api/v1/users/${erin.id}`, { body: { enabled: true } })).status).to.equal(200)
    await deploy()
    await drained()
    await sleep(300)
    expect(nas.received.length).to.equal(before)
    expect(await records(e.sid)).to.have.length(0)

    expect((await t.admin('PUT', '/api/v1/settings/nac.coa_on_change', { body: { value: 'off' } })).status).to.equal(200)
    try {
      expect((await t.admin('PUT', `/api/v1/users/${erin.id}`, { body: { enabled: false } })).status).to.equal(200)
      expect(await waiting()).to.not.include(e.sid)
      await deploy()
      await sleep(300)
      expect(nas.received.length).to.equal(before)
    } finally {
      expect((await t.admin('PUT', '/api/v1/settings/nac.coa_on_change', { body: { value: 'reauthenticate' } })).status).to.equal(200)
    }
  })
})
