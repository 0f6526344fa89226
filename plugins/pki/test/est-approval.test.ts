/**
 * The EST approval queue: with pki.est_approval_required on, an enrollment
 * answers 202 with Retry-After; the approver is mailed a one-time link whose
 * GET renders the request (HTML, or JSON when asked) and whose POST decides
 * it once; the client's next poll with the same CSR gets the certificate
 * (and the same one again), a rejected request 403. The API lists and
 * decides the queue too.
 */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { startSmtp, type TestSmtp } from '../../../test/kit/smtp.js'
import { mailValue } from '../services/est-queue.js'
import { createCa, createTemplate, csrWithSubject, expectError, hasOpenssl, Scratch, uniq } from './helpers.js'

const PASSWORD = 'Enroll-Device-Pass-42'
const APPROVER = 'pki-approver@corp.example'

describe('pki: EST approval queue', function () {
  this.timeout(120_000)
  let t: TestApp
  let s: Scratch
  let smtp: TestSmtp
  let auth: string
  before(async function () {
    if (!hasOpenssl()) skipBecause(this, 'openssl is not installed (Debian package openssl)')
    smtp = await startSmtp()
    t = await startTestApp({ plugins: ['pki'] })
    s = new Scratch()
    const root = await createCa(t)
    const ca = await createCa(t, { parent_id: root.id })
    const template = await createTemplate(t, { name_patterns: ['*.devices.example.net'] })
    const group = await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('est') } })
    const member = uniq('device')
    await t.admin('POST', '/api/v1/users', { body: { username: member, password: PASSWORD, group_ids: [group.body.id] } })
    auth = `Basic ${Buffer.from(`${member}:${PASSWORD}`).toString('base64')}`
    const settings = {
      'mail.smtp_host': '127.0.0.1',
      'mail.smtp_port': smtp.port,
      'mail.smtp_tls': 'none',
      'pki.est_ca_id': ca.id,
      'pki.est_template_id': template.id,
      'pki.est_group_id': group.body.id,
      'nac.est_enabled': true,
      'pki.est_approval_required': true,
      'pki.est_approver_email': APPROVER,
    }
    for (const [key, value] of Object.entries(settings)) expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
  })
  after(async () => {
    await t?.stop()
    await smtp?.stop()
    s?.remove()
  })

  const enroll = (b64: string) => fetch(`${t.url}/.well-known/est/simpleenroll`, { method: 'POST', headers: { 'content-type': 'application/pkcs10', authorization: auth }, body: b64 })
  const b64Csr = (cn: string) => s.csr({ subject: `/CN=${cn}` }).csr.replace(/-----[^-]+-----/g, '').trim()
  const issuedCount = async () => Number((await t.app.db.knex('pki_certificates').count({ n: '*' }))[0].n)

  it('holds the enrollment (202, Retry-After), mails the link; the link renders and decides once; the poll then gets the certificate', async () => {
    const before = await issuedCount()
    const csr = b64Csr('sw20.devices.example.net')
    for (let i = 0; i < 2; i++) {
      const held = await enroll(csr)
      expect(held.status).to.equal(202)
      expect(held.headers.get('retry-after')).to.equal('60')
    }
    expect(await issuedCount()).to.equal(before)
    const mail = await smtp.take(APPROVER)
    expect(mail.subject).to.include('CN=sw20.devices.example.net')
    const path = /(\/api\/v1\/public\/est-approval\/[A-Za-z0-9_-]{43})/.exec(mail.text)![1]
    // One request for the two polls.
    expect((await t.admin('GET', '/api/v1/pki/est-requests?status=pending&search=sw20')).body.total_by_filter).to.equal(1)

    const html = await fetch(t.url + path)
    expect(html.headers.get('content-type')).to.match(/^text\/html/)
    expect(await html.text()).to.include('CN=sw20.devices.example.net')
    const json = await t.req('GET', path, { headers: { accept: 'application/json' } })
    expect(json.body).to.include({ subject: 'CN=sw20.devices.example.net', status: 'pending' })

    const decided = await t.req('POST', path, { body: { decision: 'approve' } })
    expect(decided.status, decided.text).to.equal(200)
    expect(decided.body).to.include({ status: 'approved', decided_via: 'link' })
    expectError(await t.req('POST', path, { body: { decision: 'reject' } }), 410, 'PKI_APPROVAL_SPENT', 'token')
    expectError(await t.req('GET', path), 410, 'PKI_APPROVAL_SPENT', 'token')

    const got = await enroll(csr)
    expect(got.status).to.equal(200)
    const first = await got.text()
    s.put('approved.p7', Buffer.from(first.replace(/\s+/g, ''), 'base64'))
    expect(s.ok(['pkcs7', '-inform', 'DER', '-in', 'approved.p7', '-print_certs'])).to.include('sw20.devices.example.net')
    // Polling again gives the same certificate, not a second one.
    expect(await (await enroll(csr)).text()).to.equal(first)
    expect(await issuedCount()).to.equal(before + 1)
    const audit = await t.app.db.knex('audit_log').whereIn('action', ['est_request.create', 'est_request.approve']).where({ resource_id: json.body.id }).orderBy('at').select('action')
    expect(audit.map((a) => a.action)).to.deep.equal(['est_request.create', 'est_request.approve'])
  })

  it('a subject that would write lines into the approver\'s mail is refused (400), nothing held or mailed; what reaches a mail is one line (issue 26, 17)', async () => {
    const requests = async () => Number((await t.app.db.knex('pki_est_requests').count({ n: '*' }))[0].n)
    const before = { requests: await requests(), mails: smtp.messages.length }
    for (const forged of ['Corp\n\nRequested by: admin\nSee https://evil.example/approve', 'Corp\rRequested by: admin', 'Corp\u2028Requested by: admin', 'Corp \u202Enimda']) {
      const pem = csrWithSubject([['O', forged], ['CN', 'sw21.devices.example.net']])
      const r = await enroll(pem.replace(/-----[^-]+-----/g, '').trim())
      expect(r.status, JSON.stringify(forged)).to.equal(400)
      expect(((await r.json()) as { code: string }).code).to.equal('PKI_SUBJECT_FORBIDDEN')
    }
    const long = await enroll(csrWithSubject([['O', 'x'.repeat(5000)], ['CN', 'sw21.devices.example.net']]).replace(/-----[^-]+-----/g, '').trim())
    expect(long.status).to.equal(400)
    await new Promise((r) => setTimeout(r, 300))
    expect({ requests: await requests(), mails: smtp.messages.length }).to.deep.equal(before)
    // The mail writes any such character as an escape on the one line, bounded.
    expect(mailValue('O=Corp\n\nRequested by: admin\u2028https://evil.example \u202Ex')).to.equal('O=Corp\\u{A}\\u{A}Requested by: admin\\u{2028}https://evil.example \\u{202E}x')
    expect(mailValue('y'.repeat(5000))).to.have.length(301)
  })

  it('a request rejected through the API answers 403 to the poll, and a decided one cannot be decided again', async () => {
    const csr = b64Csr('sw21.devices.example.net')
    expect((await enroll(csr)).status).to.equal(202)
    await smtp.take(APPROVER)
    const list = await t.admin('GET', '/api/v1/pki/est-requests?status=pending&search=sw21')
    const id = list.body.items[0].id as string
    const viewer = await t.token({ permissions: ['pki.view'] })
    expect((await t.req('POST', `/api/v1/pki/est-requests/${id}/decision`, { token: viewer, body: { decision: 'approve' } })).status).to.equal(403)
    const r = await t.admin('POST', `/api/v1/pki/est-requests/${id}/decision`, { body: { decision: 'reject' } })
    expect(r.body).to.include({ status: 'rejected', decided_via: 'api' })
    expectError(await t.admin('POST', `/api/v1/pki/est-requests/${id}/decision`, { body: { decision: 'approve' } }), 409, 'PKI_EST_REQUEST_DECIDED')
    const refused = await enroll(csr)
    expect(refused.status).to.equal(403)
    expect(((await refused.json()) as { code: string }).code).to.equal('PKI_EST_REJECTED')
    expectError(await t.req('GET', `/api/v1/public/est-approval/${'B'.repeat(43)}`), 404, 'PKI_APPROVAL_NOT_FOUND', 'token')
  })

  it('a deleted account\'s requests still open are rejected: the pending one and the approved, uncollected one can never be issued', async () => {
    const group = (await t.admin('GET', '/api/v1/settings/pki.est_group_id')).body.value as string
    const who = uniq('leaver')
    const made = await t.admin('POST', '/api/v1/users', { body: { username: who, password: PASSWORD, group_ids: [group] } })
    expect(made.status, made.text).to.equal(201)
    const basic = `Basic ${Buffer.from(`${who}:${PASSWORD}`).toString('base64')}`
    const hold = async (cn: string) => {
      const r = await fetch(`${t.url}/.well-known/est/simpleenroll`, { method: 'POST', headers: { 'content-type': 'application/pkcs10', authorization: basic }, body: b64Csr(cn) })
      expect(r.status, cn).to.equal(202)
      await smtp.take(APPROVER)
      return (await t.admin('GET', `/api/v1/pki/est-requests?status=pending&search=${cn}`)).body.items[0].id as string
    }
    const pending = await hold('sw30.devices.example.net')
    const approved = await hold('sw31.devices.example.net')
    expect((await t.admin('POST', `/api/v1/pki/est-requests/${approved}/decision`, { body: { decision: 'approve' } })).body.status).to.equal('approved')
    const before = await issuedCount()
    expect((await t.admin('DELETE', `/api/v1/users/${made.body.id}`)).status).to.equal(204)
    for (const [id, cn] of [[pending, 'sw30'], [approved, 'sw31']]) {
      const listed = (await t.admin('GET', `/api/v1/pki/est-requests?search=${cn}.devices`)).body.items as { id: string; status: string }[]
      expect(listed.map((r) => [r.id, r.status]), cn).to.deep.equal([[id, 'rejected']])
      expectError(await t.admin('POST', `/api/v1/pki/est-requests/${id}/decision`, { body: { decision: 'approve' } }), 409, 'PKI_EST_REQUEST_DECIDED')
    }
    expect(await issuedCount()).to.equal(before)
    const audit = await t.app.db.knex('audit_log').where({ action: 'est_request.reject' }).whereIn('resource_id', [pending, approved]).count({ n: '*' })
    expect(Number(audit[0].n)).to.equal(2)
  })
})
