/**
 * /api/v1/captive-portal/sessions and /approvals, and the expiry job: ending a session or revoking a
 * guest takes the device out of its group and sends a Disconnect-Request (recorded by the NAC), an
 * approval registers the device, and time running out expires guests and sessions and purges old rows.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError, uniq } from '../../../test/kit/expect.js'
import { runExpiry } from '../services/expiry.js'
import { createGroup, createPortal, freshMac, groupOf, insertGuest, insertSession, portalContext } from './admin-helpers.js'

const API = '/api/v1/captive-portal'
const DAY = 86_400_000
let host = 10 + Math.floor(Math.random() * 200)
const freshLoopback = () => `127.0.${Math.floor(Math.random() * 250) + 1}.${(host = (host % 250) + 1)}`

describe('portal: sessions, approvals and expiry', () => {
  let t: TestApp
  let portal: any
  before(async function () {
    this.timeout(120_000)
    t = await startTestApp({ plugins: ['inventory', 'nac', 'portal'], settings: { 'nac.coa_timeout_ms': 200, 'nac.coa_retries': 0, 'nac.coa_on_change': 'off' } })
    portal = await createPortal(t, { methods: ['hotspot', 'sponsored'], sponsor_domains: ['example.com'] })
  })
  after(async () => t?.stop())

  /** A NAS in the inventory (nobody answers at its address: the CoA is recorded as a timeout), and the endpoint last seen there. */
  async function seenAtNas(endpointId: string) {
    const address = freshLoopback()
    const dev = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address, vendor: 'Cisco', radius_secret: `s-${randomUUID()}` } })
    expect(dev.status, dev.text).to.equal(201)
    await t.app.db.knex('nac_endpoints').where({ id: endpointId }).update({ last_nas_ip: address, last_nas_port: 'Gi1/0/7', last_seen_at: new Date() })
    return address
  }

  /** The Disconnect-Request the NAC recorded for the session, once the background work sent it. */
  async function disconnectOf(sessionId: string) {
    const end = Date.now() + 15_000
    for (;;) {
      const s = await t.app.db.knex('portal_sessions').where({ id: sessionId }).first('coa_request_id')
      if (s?.coa_request_id) return (await t.app.db.knex('nac_coa_requests').where({ id: s.coa_request_id }).first())!
      if (Date.now() > end) throw new Error(`no Disconnect-Request recorded for session ${sessionId}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  it('lists with filters (a MAC in any notation) and search, shows one without its token, 404 and 422', async () => {
    const p = await createPortal(t)
    const username = uniq('acct')
    const g = await insertGuest(t, { portal_id: p.id, kind: 'account', username, name: 'Carol' })
    const a = await insertSession(t, p, { guest_id: g, method: 'account' })
    const b = await insertSession(t, p, { state: 'started', method: null, registered_at: null, expires_at: null })
    const ids = async (q: string) => (await t.admin('GET', `${API}/sessions?portal_id=${p.id}&${q}`)).body.items.map((s: any) => s.id)
    expect(await ids('')).to.have.members([a.id, b.id])
    expect(await ids('state=started')).to.deep.equal([b.id])
    expect(await ids('method=account')).to.deep.equal([a.id])
    const cisco = a.mac.replace(/:/g, '').replace(/(....)(?=.)/g, '$1.').toUpperCase()
    expect(await ids(`mac=${cisco}`)).to.deep.equal([a.id])
    expect(await ids(`search=${username}`)).to.deep.equal([a.id])
    expect(await ids('search=carol')).to.deep.equal([a.id])
    expectError(await t.admin('GET', `${API}/sessions?mac=zz:zz`), 422, 'MAC_INVALID', 'mac')
    expectError(await t.admin('GET', `${API}/sessions?state=gone`), 422, 'VALIDATION_FAILED', 'state')
    const d = await t.admin('GET', `${API}/sessions/${a.id}`)
    expect(d.body).to.include({ id: a.id, mac: a.mac, state: 'active', method: 'account', guest_id: g, guest_username: username, guest_name: 'Carol', portal_name: p.name, endpoint_group_id: p.guest_endpoint_group_id })
    expect(Object.keys(d.body)).not.to.include('token_hash')
    for (const [m, s] of [['GET', ''], ['POST', '/end']] as const) {
      expectError(await t.admin(m, `${API}/sessions/${randomUUID()}${s}`), 404, 'NOT_FOUND', 'session_id')
      expectError(await t.admin(m, `${API}/sessions/nope${s}`), 422, 'VALIDATION_FAILED', 'session_id')
    }
  })

  it('ends a session: the device leaves its group, a Disconnect-Request goes to its NAS, audited; twice is 409', async function () {
    this.timeout(60_000)
    const s = await insertSession(t, portal)
    const nas = await seenAtNas(s.endpoint_id!)
    const pending = await insertSession(t, portal, { state: 'started', registered_at: null, expires_at: null })
    const r = await t.admin('POST', `${API}/sessions/${s.id}/end`)
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.include({ state: 'ended', end_reason: 'admin' })
    expect(await groupOf(t, s.endpoint_id!), 'out of the guest group').to.equal(null)
    const coa = await disconnectOf(s.id)
    expect(coa).to.include({ endpoint_id: s.endpoint_id, action: 'disconnect', reason: 'admin', nas_ip: nas, packet_code: 40 })
    expect(coa.requested_by).to.be.a('string')
    const audit = await auditRows(t, s.id)
    expect(audit.map((x) => x.action)).to.deep.equal(['portal_session.end'])
    expect(audit[0]).to.deep.include({ resource_type: 'portal_session' })
    expect(audit[0].before.state).to.equal('active')
    expectError(await t.admin('POST', `${API}/sessions/${s.id}/end`), 409, 'PORTAL_SESSION_ENDED', 'session_id')
    // One that never registered ends without touching the network.
    expect((await t.admin('POST', `${API}/sessions/${pending.id}/end`)).body).to.include({ state: 'ended', coa_request_id: null })
    expect(await t.app.db.knex('nac_coa_requests').where({ mac: pending.mac }).first()).to.equal(undefined)
  })

  it('revokes a guest: every session ends, the device leaves its group and is disconnected, pending requests lapse', async function () {
    this.timeout(60_000)
    const g = await insertGuest(t, { portal_id: portal.id, kind: 'self_registration', name: 'Dan', email: 'dan@example.org' })
    const s = await insertSession(t, portal, { guest_id: g })
    await seenAtNas(s.endpoint_id!)
    const other = await insertSession(t, portal, { guest_id: g, state: 'pending_approval', registered_at: null, expires_at: null })
    const [{ id: req }] = await t.app.db.knex('portal_sponsor_requests').insert({ session_id: other.id, guest_id: g, sponsor_email: 'host@example.com', token_hash: randomUUID(), expires_at: new Date(Date.now() + DAY) }).returning('id')
    const r = await t.admin('POST', `${API}/guests/${g}/revoke`)
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.include({ status: 'revoked', active_sessions: 0 })
    for (const id of [s.id, other.id]) expect(await t.app.db.knex('portal_sessions').where({ id }).first('state', 'end_reason')).to.deep.equal({ state: 'ended', end_reason: 'revoked' })
    expect(await groupOf(t, s.endpoint_id!)).to.equal(null)
    expect(await disconnectOf(s.id)).to.include({ action: 'disconnect', reason: 'admin', endpoint_id: s.endpoint_id })
    expect((await t.app.db.knex('portal_sponsor_requests').where({ id: req }).first('status'))!.status).to.equal('expired')
    expect((await auditRows(t, g)).map((a) => a.action)).to.deep.equal(['portal_guest.revoke'])
    expectError(await t.admin('POST', `${API}/guests/${g}/revoke`), 409, 'GUEST_STATUS_CONFLICT', 'guest_id')
  })

  /** A guest waiting for its sponsor, as the sponsored method leaves it. */
  async function sponsorRequest(o: { expiresAt?: Date; name?: string } = {}) {
    const g = await insertGuest(t, { portal_id: portal.id, kind: 'sponsored', status: 'pending_approval', name: o.name ?? 'Eve', email: `${uniq('eve')}@example.org`, sponsor_email: 'host@example.com' })
    const s = await insertSession(t, portal, { guest_id: g, method: 'sponsored', state: 'pending_approval', mac: freshMac(), registered_at: null, expires_at: null })
    const [{ id }] = await t.app.db
      .knex('portal_sponsor_requests')
      .insert({ session_id: s.id, guest_id: g, sponsor_email: 'host@example.com', token_hash: randomUUID(), expires_at: o.expiresAt ?? new Date(Date.now() + 3_600_000) })
      .returning('id')
    return { id, guest: g, session: s }
  }

  it('lists pending sponsor requests; a holder of portal.sponsor approves (the device is registered) or denies, once, in time', async function () {
    this.timeout(60_000)
    const hostile = '<b onmouseover=alert(1)>Mallory</b>'
    const a = await sponsorRequest({ name: hostile })
    const b = await sponsorRequest()
    const late = await sponsorRequest({ expiresAt: new Date(Date.now() - 1000) })
    const list = await t.admin('GET', `${API}/approvals?portal_id=${portal.id}`)
    expect(list.body.items.map((x: any) => x.id)).to.include.members([a.id, b.id, late.id])
    expect(list.body.items.find((x: any) => x.id === a.id)).to.include({ guest_name: hostile, status: 'pending', mac: a.session.mac, sponsor_email: 'host@example.com' })
    const sponsor = await t.token({ permissions: ['portal.sponsor'] })
    const ok = await t.req('POST', `${API}/approvals/${a.id}/decision`, { token: sponsor, body: { decision: 'approve' } })
    expect(ok.status, ok.text).to.equal(200)
    expect(ok.body).to.include({ status: 'approved', decided_via: 'api' })
    const s = (await t.app.db.knex('portal_sessions').where({ id: a.session.id }).first())!
    expect(s).to.include({ state: 'active', endpoint_group_id: portal.guest_endpoint_group_id })
    expect(s.expires_at!.getTime() - Date.now()).to.be.within(470 * 60_000, 481 * 60_000)
    expect(await groupOf(t, s.endpoint_id!), 'registered in the portal\'s guest group').to.equal(portal.guest_endpoint_group_id)
    expect((await t.admin('GET', `${API}/guests/${a.guest}`)).body).to.include({ status: 'active', sponsor_user_id: ok.body.decided_by })
    expect((await auditRows(t, a.id)).map((x) => x.action)).to.deep.equal(['portal_sponsor_request.approve'])
    expectError(await t.req('POST', `${API}/approvals/${a.id}/decision`, { token: sponsor, body: { decision: 'deny' } }), 409, 'SPONSOR_REQUEST_DECIDED', 'request_id')
    expectError(await t.req('POST', `${API}/approvals/${late.id}/decision`, { token: sponsor, body: { decision: 'approve' } }), 410, 'SPONSOR_LINK_EXPIRED', 'request_id')
    expect((await t.app.db.knex('portal_sessions').where({ id: late.session.id }).first('state'))!.state).to.equal('pending_approval')
    const no = await t.admin('POST', `${API}/approvals/${b.id}/decision`, { body: { decision: 'deny' } })
    expect(no.body).to.include({ status: 'denied' })
    expect((await t.app.db.knex('portal_sessions').where({ id: b.session.id }).first('state'))!.state).to.equal('denied')
    expect((await t.app.db.knex('portal_guests').where({ id: b.guest }).first('status'))!.status).to.equal('denied')
    expect((await t.admin('GET', `${API}/approvals?portal_id=${portal.id}&status=denied`)).body.items.map((x: any) => x.id)).to.include(b.id)
    expectError(await t.admin('POST', `${API}/approvals/${randomUUID()}/decision`, { body: { decision: 'approve' } }), 404, 'NOT_FOUND', 'request_id')
    expectError(await t.admin('POST', `${API}/approvals/${b.id}/decision`, { body: { decision: 'maybe' } }), 422, 'VALIDATION_FAILED', 'decision')
  })

  it('gates by permission: read lists, guests ends, sponsor only decides', async () => {
    const r = await sponsorRequest()
    const s = await insertSession(t, portal, { state: 'started', registered_at: null, expires_at: null })
    const reader = await t.token({ permissions: ['portal.read'] })
    const manager = await t.token({ permissions: ['portal.read', 'portal.manage'] })
    const guests = await t.token({ permissions: ['portal.read', 'portal.guests'] })
    const sponsor = await t.token({ permissions: ['portal.sponsor'] })
    expect((await t.req('GET', `${API}/sessions`, { token: reader })).status).to.equal(200)
    expect((await t.req('GET', `${API}/approvals`, { token: reader })).status).to.equal(200)
    for (const token of [reader, manager, sponsor]) expectError(await t.req('POST', `${API}/sessions/${s.id}/end`, { token }), 403, 'PERMISSION_DENIED')
    for (const token of [reader, manager, guests]) expectError(await t.req('POST', `${API}/approvals/${r.id}/decision`, { token, body: { decision: 'approve' } }), 403, 'PERMISSION_DENIED')
    for (const path of ['/sessions', '/guests', '/portals', '/approvals']) expectError(await t.req('GET', `${API}${path}`, { token: sponsor }), 403, 'PERMISSION_DENIED')
    expectError(await t.req('POST', `${API}/guests/${r.guest}/revoke`, { token: sponsor }), 403, 'PERMISSION_DENIED')
    expect((await t.app.db.knex('portal_sponsor_requests').where({ id: r.id }).first('status'))!.status).to.equal('pending')
    expect((await t.req('POST', `${API}/sessions/${s.id}/end`, { token: guests })).status).to.equal(200)
  })

  it('ends the own devices of an employee whose access ended: out of the BYOD group, disconnected', async function () {
    this.timeout(60_000)
    const byodGroup = await createGroup(t)
    const p = await createPortal(t, { methods: ['byod'], guest_endpoint_group_id: null, byod_endpoint_group_id: byodGroup.id })
    const user = await t.admin('POST', '/api/v1/users', { body: { username: uniq('employee') } })
    expect(user.status, user.text).to.equal(201)
    const other = await t.admin('POST', '/api/v1/users', { body: { username: uniq('colleague') } })
    const mine = await insertSession(t, { ...p, guest_endpoint_group_id: byodGroup.id }, { method: 'byod', user_id: user.body.id, expires_at: null })
    await seenAtNas(mine.endpoint_id!)
    const theirs = await insertSession(t, { ...p, guest_endpoint_group_id: byodGroup.id }, { method: 'byod', user_id: other.body.id, expires_at: null })
    expect((await t.admin('PUT', `/api/v1/users/${user.body.id}`, { body: { enabled: false } })).status).to.equal(200)
    expect(await t.app.db.knex('portal_sessions').where({ id: mine.id }).first('state', 'end_reason')).to.deep.equal({ state: 'ended', end_reason: 'user_access_ended' })
    expect(await groupOf(t, mine.endpoint_id!)).to.equal(null)
    expect(await disconnectOf(mine.id)).to.include({ action: 'disconnect', reason: 'user_access_ended', endpoint_id: mine.endpoint_id })
    expect((await t.app.db.knex('portal_sessions').where({ id: theirs.id }).first('state'))!.state).to.equal('active')
    expect(await groupOf(t, theirs.endpoint_id!)).to.equal(byodGroup.id)
    expect((await auditRows(t, mine.id)).map((a) => a.action)).to.deep.equal(['portal_session.end'])
  })

  it('expires sessions and guests whose time ran out, lapses late requests, purges rows past the retention', async function () {
    this.timeout(60_000)
    const c = portalContext(t)
    const p = await createPortal(t, { guest_endpoint_group_id: (await createGroup(t)).id })
    const now = new Date()
    const past = new Date(now.getTime() - 1000)
    const due = await insertSession(t, p, { expires_at: past })
    const notYet = await insertSession(t, p)
    const byod = await insertSession(t, p, { method: 'byod', expires_at: null })
    const gone = await insertGuest(t, { portal_id: p.id, kind: 'account', username: uniq('old'), valid_until: past })
    const ofGone = await insertSession(t, p, { guest_id: gone })
    const late = await sponsorRequest({ expiresAt: past })
    const old = new Date(now.getTime() - 40 * DAY)
    const oldGuest = await insertGuest(t, { portal_id: p.id, status: 'revoked', ended_at: old })
    const oldSession = await insertSession(t, p, { state: 'ended', end_reason: 'admin', ended_at: old, endpoint_id: null })
    const recentSession = await insertSession(t, p, { state: 'expired', end_reason: 'expired', ended_at: new Date(now.getTime() - 10 * DAY), endpoint_id: null })
    const abandoned = await insertSession(t, p, { state: 'started', registered_at: null, expires_at: null, endpoint_id: null })
    await t.app.db.knex('portal_sessions').where({ id: abandoned.id }).update({ updated_at: old, created_at: old })
    const longActive = await insertSession(t, p, { created_at: old, updated_at: old })

    const run = await runExpiry(c, now)
    expect(run.sessions_expired).to.be.at.least(2)
    expect(run.guests_expired).to.be.at.least(1)
    expect(run.requests_expired).to.be.at.least(1)
    expect(run.purged_guests).to.be.at.least(1)
    expect(run.purged_sessions).to.be.at.least(2)
    const state = async (id: string) => t.app.db.knex('portal_sessions').where({ id }).first('state', 'end_reason')
    expect(await state(due.id)).to.deep.equal({ state: 'expired', end_reason: 'expired' })
    expect(await groupOf(t, due.endpoint_id!), 'the expired device left the guest group').to.equal(null)
    expect(await state(ofGone.id)).to.deep.equal({ state: 'expired', end_reason: 'expired' })
    expect(await groupOf(t, ofGone.endpoint_id!)).to.equal(null)
    expect((await t.app.db.knex('portal_guests').where({ id: gone }).first('status'))!.status).to.equal('expired')
    for (const s of [notYet, byod, longActive]) {
      expect((await state(s.id))!.state, 'not due').to.equal('active')
      expect(await groupOf(t, s.endpoint_id!)).to.equal(p.guest_endpoint_group_id)
    }
    expect((await t.app.db.knex('portal_sponsor_requests').where({ id: late.id }).first('status'))!.status).to.equal('expired')
    expect(await t.app.db.knex('portal_guests').where({ id: oldGuest }).first()).to.equal(undefined)
    expect(await state(oldSession.id)).to.equal(undefined)
    expect(await state(abandoned.id)).to.equal(undefined)
    expect((await state(recentSession.id))!.state, 'inside the retention').to.equal('expired')
    const audit = await auditRows(t, due.id)
    expect(audit.map((a) => a.action)).to.deep.equal(['portal_session.expire'])
    expect(audit[0].actor_id).to.equal(null)
    expect((await auditRows(t, gone)).map((a) => a.action)).to.deep.equal(['portal_guest.expire'])
    const again = await runExpiry(c, now)
    expect(again).to.deep.equal({ guests_expired: 0, sessions_expired: 0, requests_expired: 0, purged_guests: 0, purged_sessions: 0 })
  })
})
