/**
 * /api/v1/captive-portal/guests: accounts in bulk for an event (JSON, CSV, a printable page; the
 * passwords only there, their argon2id hashes kept), list/filter/search/detail, extend, revoke,
 * new credentials by mail (a real SMTP listener), permission gates, hostile input.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError, uniq } from '../../../test/kit/expect.js'
import { startSmtp, type TestSmtp } from '../../../test/kit/smtp.js'
import { guestPasswordMatches } from '../services/guests.js'
import { createPortal, insertGuest } from './admin-helpers.js'

const API = '/api/v1/captive-portal/guests'
const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString()

describe('portal: guests API', () => {
  let t: TestApp
  let smtp: TestSmtp
  let portal: any
  before(async function () {
    this.timeout(120_000)
    smtp = await startSmtp()
    t = await startTestApp({ plugins: ['nac', 'portal'] })
    for (const [key, value] of Object.entries({ 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none' })) {
      expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
    }
    portal = await createPortal(t)
  })
  after(async () => {
    await t?.stop()
    await smtp?.stop()
  })

  const guests = () => t.app.db.knex('portal_guests').orderBy('id').select('*')
  const bulk = (body: Record<string, unknown>, headers: Record<string, string> = {}, token = t.adminToken) =>
    t.req('POST', `${API}/bulk`, { token, body: { portal_id: portal.id, event: 'Partner day', count: 2, prefix: uniq('ev').slice(0, 11), valid_until: inDays(2), ...body }, headers })

  it('creates an event\'s accounts: usernames counting on, random passwords shown once, argon2id hashes kept, each audited', async function () {
    this.timeout(60_000)
    const prefix = uniq('conf').slice(0, 13)
    const r = await bulk({ prefix, count: 3, event: 'Partner day 2026' })
    expect(r.status, r.text).to.equal(201)
    expect(r.headers.get('cache-control')).to.equal('no-store')
    expect(r.body).to.include({ portal_id: portal.id, event: 'Partner day 2026' })
    expect(r.body.accounts.map((a: any) => a.username)).to.deep.equal([`${prefix}-1`, `${prefix}-2`, `${prefix}-3`])
    const passwords = r.body.accounts.map((a: any) => a.password)
    expect(new Set(passwords).size).to.equal(3)
    for (const p of passwords) expect(p).to.match(/^[a-km-zA-HJ-NP-Z2-9]{12}$/)
    for (const a of r.body.accounts) {
      const row = await t.app.db.knex('portal_guests').where({ id: a.id }).first()
      expect(row).to.include({ kind: 'account', status: 'active', username: a.username, event: 'Partner day 2026', portal_id: portal.id })
      expect(row!.password_hash).to.match(/^\$argon2id\$/)
      expect(await guestPasswordMatches(row!.password_hash!, a.password)).to.equal(true)
      expect(await guestPasswordMatches(row!.password_hash!, passwords.find((p: string) => p !== a.password))).to.equal(false)
      const audit = await auditRows(t, a.id)
      expect(audit.map((x) => x.action)).to.deep.equal(['portal_guest.create'])
      expect(JSON.stringify(audit)).not.to.include(a.password)
      expect(JSON.stringify(audit)).not.to.include('argon2')
      const detail = await t.admin('GET', `${API}/${a.id}`)
      expect(detail.body).to.include({ username: a.username, kind: 'account', portal_name: portal.name, active_sessions: 0 })
      expect(detail.text).not.to.include(a.password)
      expect(detail.text).not.to.include('argon2')
    }
    const next = await bulk({ prefix: prefix.toUpperCase().toLowerCase(), count: 1 })
    expect(next.body.accounts[0].username, 'numbering goes on from the highest taken').to.equal(`${prefix}-4`)
  })

  it('answers the accounts as CSV or a printable page when Accept asks, every value escaped', async function () {
    this.timeout(60_000)
    const csv = await bulk({ event: `=HYPERLINK("http://evil") ${HOSTILE}, "x"` }, { accept: 'text/csv' })
    expect(csv.status, csv.text).to.equal(201)
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/)
    expect(csv.headers.get('cache-control')).to.equal('no-store')
    const lines = csv.text.trim().split('\r\n')
    expect(lines[0]).to.equal('username,password,event,valid_from,valid_until,portal')
    expect(lines).to.have.length(3)
    expect(lines[1]).to.match(/^[a-z0-9-]+-1,[A-Za-z2-9]{12},"'=HYPERLINK\(""http:\/\/evil""\) <script>/)
    expect(lines[1]).to.include(`/portal/${portal.slug}`)
    const html = await bulk({ event: `${HOSTILE} & Co` }, { accept: 'text/html' })
    expect(html.status, html.text).to.equal(201)
    expect(html.headers.get('content-type')).to.match(/^text\/html/)
    const csp = html.headers.get('content-security-policy')!
    expect(csp).to.match(/^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]{24}';/)
    expect(html.text).to.include(`<style nonce="${/'nonce-([^']+)'/.exec(csp)![1]}">`)
    expect(html.text).not.to.include('<script')
    expect(html.text).not.to.include('<img')
    expect(html.text).to.include('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;')
    expect(html.text).to.include('&#38; Co')
    const rows = await t.app.db.knex('portal_guests').where({ event: `${HOSTILE} & Co` }).select('id', 'username', 'password_hash')
    expect(rows).to.have.length(2)
    for (const row of rows) {
      expect(html.text).to.include(row.username!)
      const pw = new RegExp(`${row.username}</code></dd><dt>Password</dt><dd><code>([A-Za-z2-9]{12})</code>`).exec(html.text)![1]
      expect(await guestPasswordMatches(row.password_hash!, pw)).to.equal(true)
    }
    const ru = await bulk({}, { accept: 'text/html', 'accept-language': 'ru' })
    expect(ru.text).to.include('Пароль')
  })

  it('refuses bad bulk requests at their field, creating nothing', async () => {
    const before = JSON.stringify(await guests())
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ count: 0 }, 422, 'VALIDATION_FAILED', 'count'],
      [{ count: 201 }, 422, 'VALIDATION_FAILED', 'count'],
      [{ prefix: 'Bad Prefix' }, 422, 'VALIDATION_FAILED', 'prefix'],
      [{ prefix: '-x' }, 422, 'VALIDATION_FAILED', 'prefix'],
      [{ event: 'two\nlines' }, 422, 'VALIDATION_FAILED', 'event'],
      [{ event: ' ' }, 422, 'VALIDATION_FAILED', 'event'],
      [{ valid_until: 'tomorrow' }, 422, 'VALIDATION_FAILED', 'valid_until'],
      [{ valid_until: inDays(-1) }, 422, 'VALIDATION_FAILED', 'valid_until'],
      [{ valid_from: inDays(3), valid_until: inDays(2) }, 422, 'VALIDATION_FAILED', 'valid_until'],
      [{ valid_until: inDays(370) }, 422, 'VALIDATION_FAILED', 'valid_until'],
      [{ portal_id: randomUUID() }, 422, 'REFERENCE_NOT_FOUND', 'portal_id'],
      [{ password: 'mine' }, 422, 'UNKNOWN_FIELD', 'password'],
    ]
    for (const [body, status, code, field] of cases) expectError(await bulk(body), status, code, field)
    expect(JSON.stringify(await guests())).to.equal(before)
  })

  it('lists with filters and search, shows one, 404 and 422 for ids', async () => {
    const other = await createPortal(t)
    const email = `${uniq('ann')}@example.org`
    const g1 = await insertGuest(t, { portal_id: other.id, kind: 'self_registration', name: 'Ann Guest', email, fields: { company: 'ACME' } })
    const g2 = await insertGuest(t, { portal_id: other.id, kind: 'sponsored', status: 'pending_approval', name: 'Bob', sponsor_email: 'host@example.com' })
    const ids = async (q: string) => (await t.admin('GET', `${API}?portal_id=${other.id}&${q}`)).body.items.map((g: any) => g.id)
    expect(await ids('')).to.have.members([g1, g2])
    expect(await ids('status=pending_approval')).to.deep.equal([g2])
    expect(await ids('kind=self_registration')).to.deep.equal([g1])
    expect(await ids(`search=${encodeURIComponent(email.toUpperCase())}`)).to.deep.equal([g1])
    expect(await ids('search=host@example')).to.deep.equal([g2])
    expect(await ids('sort_by=name&sort_order=asc')).to.deep.equal([g1, g2])
    expectError(await t.admin('GET', `${API}?status=happy`), 422, 'VALIDATION_FAILED', 'status')
    const d = await t.admin('GET', `${API}/${g1}`)
    expect(d.body).to.deep.include({ id: g1, name: 'Ann Guest', email, fields: { company: 'ACME' }, status: 'active', portal_name: other.name })
    for (const [m, s] of [['GET', ''], ['POST', '/extend'], ['POST', '/revoke'], ['POST', '/send-credentials']] as const) {
      const o = s === '/extend' ? { body: { valid_until: inDays(1) } } : s ? { body: {} } : {}
      expectError(await t.admin(m, `${API}/${randomUUID()}${s}`, o), 404, 'NOT_FOUND', 'guest_id')
      expectError(await t.admin(m, `${API}/nope${s}`, o), 422, 'VALIDATION_FAILED', 'guest_id')
    }
  })

  it('extends an active or expired guest (its active sessions too), refuses a revoked one and a past date', async () => {
    const g = await insertGuest(t, { portal_id: portal.id, kind: 'account', username: uniq('x'), valid_until: new Date(Date.now() + 3_600_000) })
    const [{ id: sid }] = await t.app.db.knex('portal_sessions').insert({ portal_id: portal.id, guest_id: g, mac: '00:00:0c:aa:bb:01', token_hash: randomUUID(), state: 'active', expires_at: new Date(Date.now() + 3_600_000) }).returning('id')
    const until = inDays(5)
    const r = await t.admin('POST', `${API}/${g}/extend`, { body: { valid_until: until } })
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.include({ valid_until: until, status: 'active', active_sessions: 1 })
    expect((await t.app.db.knex('portal_sessions').where({ id: sid }).first())!.expires_at!.toISOString()).to.equal(until)
    await t.app.db.knex('portal_guests').where({ id: g }).update({ status: 'expired', ended_at: new Date() })
    const again = await t.admin('POST', `${API}/${g}/extend`, { body: { valid_until: inDays(6) } })
    expect(again.body).to.include({ status: 'active', ended_at: null })
    expectError(await t.admin('POST', `${API}/${g}/extend`, { body: { valid_until: inDays(-1) } }), 422, 'VALIDATION_FAILED', 'valid_until')
    expectError(await t.admin('POST', `${API}/${g}/extend`, { body: { valid_until: inDays(400) } }), 422, 'VALIDATION_FAILED', 'valid_until')
    await t.app.db.knex('portal_guests').where({ id: g }).update({ status: 'revoked' })
    expectError(await t.admin('POST', `${API}/${g}/extend`, { body: { valid_until: inDays(6) } }), 409, 'GUEST_STATUS_CONFLICT', 'guest_id')
    expect((await auditRows(t, g)).map((a) => a.action)).to.deep.equal(['portal_guest.extend', 'portal_guest.extend'])
  })

  it('mails an event account a new password (the old one stops working), refusing what cannot be mailed', async function () {
    this.timeout(60_000)
    const made = await bulk({ count: 1 })
    const a = made.body.accounts[0]
    const to = `${uniq('visitor')}@example.org`
    expectError(await t.admin('POST', `${API}/${a.id}/send-credentials`, { body: {} }), 422, 'GUEST_NO_EMAIL', 'email')
    expectError(await t.admin('POST', `${API}/${a.id}/send-credentials`, { body: { email: 'not-an-address' } }), 422, 'VALIDATION_FAILED', 'email')
    expectError(await t.admin('POST', `${API}/${a.id}/send-credentials`, { body: { email: 'a@example.org\r\nBcc: evil@example.com' } }), 422, 'VALIDATION_FAILED', 'email')
    const r = await t.admin('POST', `${API}/${a.id}/send-credentials`, { body: { email: to } })
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.include({ email: to })
    const mail = await smtp.take(to)
    expect(mail.text).to.include(`Username: ${a.username}`)
    const pw = /Password: ([A-Za-z2-9]{12})/.exec(mail.text)![1]
    expect(pw).not.to.equal(a.password)
    const hash = (await t.app.db.knex('portal_guests').where({ id: a.id }).first('password_hash'))!.password_hash!
    expect(await guestPasswordMatches(hash, pw)).to.equal(true)
    expect(await guestPasswordMatches(hash, a.password)).to.equal(false)
    const audit = await auditRows(t, a.id)
    expect(audit.map((x) => x.action)).to.deep.equal(['portal_guest.create', 'portal_guest.send_credentials'])
    expect(JSON.stringify(audit)).not.to.include(pw)
    // The mail server is gone: 503, and the password that works stays the one mailed.
    expect((await t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: 1 } })).status).to.equal(200)
    try {
      expectError(await t.admin('POST', `${API}/${a.id}/send-credentials`, { body: {} }), 503, 'PORTAL_MAIL_FAILED')
      expect((await t.app.db.knex('portal_guests').where({ id: a.id }).first('password_hash'))!.password_hash).to.equal(hash)
    } finally {
      await t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: smtp.port } })
    }
    const hotspot = await insertGuest(t, { portal_id: portal.id, email: to })
    expectError(await t.admin('POST', `${API}/${hotspot}/send-credentials`, { body: {} }), 409, 'GUEST_NOT_ACCOUNT', 'guest_id')
    await t.app.db.knex('portal_guests').where({ id: a.id }).update({ status: 'revoked' })
    expectError(await t.admin('POST', `${API}/${a.id}/send-credentials`, { body: {} }), 409, 'GUEST_STATUS_CONFLICT', 'guest_id')
  })

  it('gates by permission: portal.guests writes guests; read, manage and sponsor do not', async function () {
    this.timeout(60_000)
    const g = await insertGuest(t, { portal_id: portal.id, kind: 'account', username: uniq('p'), email: 'p@example.org' })
    const before = JSON.stringify(await guests())
    for (const perms of [['portal.read'], ['portal.read', 'portal.manage'], ['portal.read', 'portal.sponsor']]) {
      const token = await t.token({ permissions: perms })
      expectError(await bulk({}, {}, token), 403, 'PERMISSION_DENIED')
      expectError(await t.req('POST', `${API}/${g}/extend`, { token, body: { valid_until: inDays(3) } }), 403, 'PERMISSION_DENIED')
      expectError(await t.req('POST', `${API}/${g}/revoke`, { token }), 403, 'PERMISSION_DENIED')
      expectError(await t.req('POST', `${API}/${g}/send-credentials`, { token, body: {} }), 403, 'PERMISSION_DENIED')
      expect((await t.req('GET', `${API}/${g}`, { token })).status).to.equal(200)
    }
    expect(JSON.stringify(await guests())).to.equal(before)
    const writer = await t.token({ permissions: ['portal.guests'] })
    expect((await bulk({ count: 1 }, {}, writer)).status).to.equal(201)
    expectError(await t.req('GET', API, { token: writer }), 403, 'PERMISSION_DENIED')
  })

  it('returns hostile guest fields as stored, as JSON', async () => {
    const g = await insertGuest(t, { portal_id: portal.id, kind: 'self_registration', name: HOSTILE, email: `"${HOSTILE}"@example.org`, fields: { company: HOSTILE } })
    const r = await t.admin('GET', `${API}/${g}`)
    expect(r.headers.get('content-type')).to.match(/^application\/json/)
    expect(r.body).to.deep.include({ name: HOSTILE, email: `"${HOSTILE}"@example.org`, fields: { company: HOSTILE } })
    expect((await t.admin('GET', `${API}?search=${encodeURIComponent('<script>')}`)).body.items.map((x: any) => x.id)).to.include(g)
  })
})
