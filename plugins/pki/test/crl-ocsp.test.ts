/**
 * Revocation as relying parties see it, without credentials: the CRL (DER
 * and PEM, numbered, signed by the CA, cache headers and 304) proven with
 * `openssl crl -verify` and `openssl verify -crl_check`, made anew at each
 * revocation and by the schedule; the OCSP responder proven with `openssl
 * ocsp -url` against the app (good, revoked, unknown, the nonce), and its
 * GET form (RFC 6960 A.1).
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { type TestApp } from '../../../test/kit/app.js'
import { coreServices } from '../../../sdk/index.js'
import { pkiServiceRef } from '../api.js'
import { Signers } from '../services/ca.js'
import { OcspResponder } from '../services/ocsp.js'
import { auditRows, createCa, createTemplate, issue, Scratch, startPkiBed, stopPkiBed, type PkiBed } from './helpers.js'

describe('pki: CRL and OCSP', function () {
  this.timeout(120_000)
  let t: TestApp
  let s: Scratch
  let ca: any
  let root: any
  let eap: string
  let bed: PkiBed
  before(async function () {
    bed = await startPkiBed(this, { root: { key_algorithm: 'RSA-3072' }, issuing: { key_algorithm: 'ECDSA-P384' } })
    ;({ t, s, ca, root, eap } = bed)
  })

  after(() => stopPkiBed(bed))


  const crl = async (format: 'crl' | 'pem', headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}/api/v1/public/crl/${ca.id}.${format}`, { headers })
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) }
  }
  const crlNumber = (file: string) => Number(/X509v3 CRL Number:\s*\n\s*(\d+)/.exec(s.ok(['crl', '-in', file, '-inform', 'DER', '-noout', '-text']))![1])

  it('serves the CA\'s CRL without credentials, DER and PEM, signed by the CA (openssl crl -verify)', async () => {
    const der = await crl('crl')
    expect(der.status).to.equal(200)
    expect(der.headers.get('content-type')).to.equal('application/pkix-crl')
    s.put('first.crl', der.body)
    expect(s.ok(['crl', '-in', 'first.crl', '-inform', 'DER', '-CAfile', 'chain.pem', '-noout', '-verify'])).to.include('verify OK')
    const text = s.ok(['crl', '-in', 'first.crl', '-inform', 'DER', '-noout', '-text'])
    expect(text).to.include('No Revoked Certificates')
    expect(text).to.match(/Version 2/)
    expect(crlNumber('first.crl')).to.equal(1)
    const pem = await crl('pem')
    expect(pem.headers.get('content-type')).to.equal('application/x-pem-file')
    expect(pem.body.toString()).to.match(/^-----BEGIN X509 CRL-----\n/)
    s.put('first.pem', pem.body)
    s.ok(['crl', '-in', 'first.pem', '-outform', 'DER', '-out', 'first-from-pem.crl'])
    expect(readFileSync(path.join(s.dir, 'first-from-pem.crl')).equals(der.body)).to.equal(true)
    expect(s.ok(['crl', '-in', 'first-from-pem.crl', '-inform', 'DER', '-noout', '-hash'])).to.equal(s.ok(['crl', '-in', 'first.crl', '-inform', 'DER', '-noout', '-hash']))
    expect((await fetch(`${t.url}/api/v1/public/crl/00000000-0000-4000-8000-000000000000.crl`)).status).to.equal(404)
    expect((await fetch(`${t.url}/api/v1/public/crl/${ca.id}.der`)).status).to.equal(422)
  })

  it('answers Cache-Control, ETag and Last-Modified, and 304 to If-None-Match with the current tag', async () => {
    const a = await crl('crl')
    const etag = a.headers.get('etag')!
    expect(etag).to.match(/^"\d+-\d+-crl"$/)
    expect(a.headers.get('cache-control')).to.match(/^public, max-age=\d+, must-revalidate$/)
    expect(Number(/max-age=(\d+)/.exec(a.headers.get('cache-control')!)![1])).to.be.within(1, 300)
    expect(Date.parse(a.headers.get('last-modified')!)).to.be.a('number').and.not.NaN
    const b = await crl('crl', { 'If-None-Match': etag })
    expect(b.status).to.equal(304)
    expect(b.body.length).to.equal(0)
    expect(b.headers.get('etag')).to.equal(etag)
    expect((await crl('crl', { 'If-None-Match': '"other"' })).status).to.equal(200)
    // The PEM form is another representation: another tag.
    expect((await crl('pem')).headers.get('etag')).not.to.equal(etag)
  })

  it('makes a new, higher-numbered CRL at each revocation: openssl verify -crl_check passes the good and fails the revoked', async () => {
    const good = await issue(t, ca.id, eap, s.csr({ subject: '/CN=good.example.net' }).csr)
    const bad = await issue(t, ca.id, eap, s.csr({ subject: '/CN=bad.example.net' }).csr)
    s.put('good.pem', good.certificate)
    s.put('bad.pem', bad.certificate)
    const before = await crl('crl')
    s.put('before.crl', before.body)
    const n0 = crlNumber('before.crl')
    expect((await t.admin('POST', `/api/v1/pki/certificates/${bad.id}/revoke`, { body: { reason: 'keyCompromise' } })).status).to.equal(200)
    const after = await crl('crl')
    expect(after.headers.get('etag')).not.to.equal(before.headers.get('etag'))
    s.put('after.crl', after.body)
    expect(crlNumber('after.crl')).to.equal(n0 + 1)
    const text = s.ok(['crl', '-in', 'after.crl', '-inform', 'DER', '-noout', '-text'])
    expect(text).to.include(`Serial Number: ${bad.serial}`)
    expect(text).to.match(/CRL Reason Code:\s*\n\s*Key Compromise/)
    expect(text).not.to.include(good.serial)
    s.ok(['crl', '-in', 'after.crl', '-inform', 'DER', '-out', 'after-crl.pem'])
    const check = (cert: string) => s.openssl(['verify', '-crl_check', '-CAfile', 'root.pem', '-untrusted', 'ca.pem', '-CRLfile', 'after-crl.pem', cert])
    expect(check('good.pem').status).to.equal(0)
    const refused = check('bad.pem')
    expect(refused.status).not.to.equal(0)
    expect(refused.out).to.include('certificate revoked')
  })

  it("revokes a deleted user's certificates (subject CN, any case: cessationOfOperation, audited, in the CRL); another's and a longer name stay valid", async () => {
    const tpl = await createTemplate(t, { name_patterns: ['*'], san_types: [] })
    const name = `Carla-${randomUUID().slice(0, 6)}`
    const user = await t.admin('POST', '/api/v1/users', { body: { username: name, network_login: false } })
    expect(user.status, user.text).to.equal(201)
    const other = await t.admin('POST', '/api/v1/users', { body: { username: `dan-${randomUUID().slice(0, 6)}` } })
    const mine = await issue(t, ca.id, tpl.id, s.csr({ subject: `/CN=${name.toLowerCase()}/O=Staff` }).csr)
    const mineToo = await issue(t, root.id, tpl.id, s.csr({ subject: `/CN=${name.toUpperCase()}` }).csr)
    const longer = await issue(t, ca.id, tpl.id, s.csr({ subject: `/CN=${name.toLowerCase()}.example.net` }).csr)
    const theirs = await issue(t, ca.id, tpl.id, s.csr({ subject: `/CN=${other.body.username}` }).csr)
    expect((await t.admin('DELETE', `/api/v1/users/${user.body.id}`)).status).to.equal(204)
    const [deletion] = (await auditRows(t, user.body.id)).filter((r) => r.action === 'user.delete')
    for (const c of [mine, mineToo]) {
      const got = await t.admin('GET', `/api/v1/pki/certificates/${c.id}`)
      expect(got.body).to.include({ status: 'revoked', revocation_reason: 'cessationOfOperation' })
      const audit = (await auditRows(t, c.id)).filter((r) => r.action === 'pki_certificate.revoke')
      expect(audit).to.have.length(1)
      expect(audit[0].actor_id).to.equal(deletion.actor_id).and.be.a('string')
      expect(audit[0].after).to.include({ cause: 'user_deleted', username: name, status: 'revoked' })
    }
    for (const c of [longer, theirs]) expect((await t.admin('GET', `/api/v1/pki/certificates/${c.id}`)).body.status).to.equal('valid')
    s.put('deleted-user.crl', (await crl('crl')).body)
    const text = s.ok(['crl', '-in', 'deleted-user.crl', '-inform', 'DER', '-noout', '-text'])
    expect(text).to.include(`Serial Number: ${mine.serial}`)
    expect(text).to.match(new RegExp(`Serial Number: ${mine.serial}[^]*?CRL Reason Code:\\s*\\n\\s*Cessation Of Operation`))
    expect(text).not.to.include(longer.serial).and.not.include(theirs.serial)
    const rootCrl = Buffer.from(await (await fetch(`${t.url}/api/v1/public/crl/${root.id}.crl`)).arrayBuffer())
    s.put('deleted-user-root.crl', rootCrl)
    expect(s.ok(['crl', '-in', 'deleted-user-root.crl', '-inform', 'DER', '-noout', '-text'])).to.include(`Serial Number: ${mineToo.serial}`)
  })

  it('makes the CRL again on the schedule once less than half its life is left', async () => {
    const before = await crl('crl')
    s.put('sched-before.crl', before.body)
    const n0 = crlNumber('sched-before.crl')
    const { pki } = t.app.resolveDeps('pki', { pki: pkiServiceRef })
    // Nothing is due now: the CRL is fresh.
    expect(await pki.refreshDueCrls()).to.equal(0)
    // Five days on, a seven-day CRL has less than half left.
    expect(await pki.refreshDueCrls(new Date(Date.now() + 5 * 86_400_000))).to.be.at.least(1)
    const after = await crl('crl')
    s.put('sched-after.crl', after.body)
    expect(crlNumber('sched-after.crl')).to.equal(n0 + 1)
  })

  describe('OCSP', () => {
    let good: any
    let revoked: any
    before(async () => {
      good = await issue(t, ca.id, eap, s.csr({ subject: '/CN=ocsp-good.example.net' }).csr)
      revoked = await issue(t, ca.id, eap, s.csr({ subject: '/CN=ocsp-bad.example.net' }).csr)
      s.put('ocsp-good.pem', good.certificate)
      s.put('ocsp-bad.pem', revoked.certificate)
      expect((await t.admin('POST', `/api/v1/pki/certificates/${revoked.id}/revoke`, { body: { reason: 'cessationOfOperation' } })).status).to.equal(200)
    })

    const ask = (certArgs: string[], extra: string[] = []) =>
      s.okAsync(['ocsp', '-issuer', 'ca.pem', ...certArgs, '-url', `${t.url}/api/v1/public/ocsp`, '-CAfile', 'chain.pem', '-resp_text', ...extra])

    it('answers good, signed by the CA, with the request\'s nonce (openssl ocsp -url)', async () => {
      const out = await ask(['-cert', 'ocsp-good.pem'])
      expect(out).to.include('Response verify OK')
      expect(out).to.match(/ocsp-good\.pem: good/)
      // openssl sends a nonce by default and checks it came back; the text shows it.
      expect(out).to.match(/OCSP Nonce:\s*\n\s*0410/)
      expect(out).not.to.include('WARNING: no nonce')
    })

    it('answers revoked, with the time and the reason', async () => {
      const out = await ask(['-cert', 'ocsp-bad.pem'])
      expect(out).to.include('Response verify OK')
      expect(out).to.match(/ocsp-bad\.pem: revoked/)
      expect(out).to.match(/Reason: cessationOfOperation/)
    })

    it('answers unknown for a serial the CA never issued, and several certificates in one request', async () => {
      const out = await ask(['-serial', '0x0123456789ABCDEF', '-cert', 'ocsp-good.pem', '-cert', 'ocsp-bad.pem'])
      expect(out).to.include('Response verify OK')
      expect(out).to.match(/0x0123456789ABCDEF: unknown/)
      expect(out).to.match(/ocsp-good\.pem: good/)
      expect(out).to.match(/ocsp-bad\.pem: revoked/)
    })

    it('answers CertIDs hashed with SHA-256, and without a nonce when none is asked', async () => {
      const out = await ask(['-sha256', '-cert', 'ocsp-good.pem'], ['-no_nonce'])
      expect(out).to.match(/ocsp-good\.pem: good/)
      expect(out).not.to.include('OCSP Nonce')
    })

    it('takes the GET form (RFC 6960 A.1): the URL-encoded base64 of the request', async () => {
      s.ok(['ocsp', '-issuer', 'ca.pem', '-cert', 'ocsp-bad.pem', '-reqout', 'req.der'])
      const b64 = readFileSync(path.join(s.dir, 'req.der')).toString('base64')
      const res = await fetch(`${t.url}/api/v1/public/ocsp/${encodeURIComponent(b64)}`)
      expect(res.status).to.equal(200)
      expect(res.headers.get('content-type')).to.equal('application/ocsp-response')
      s.put('get.resp', Buffer.from(await res.arrayBuffer()))
      const out = s.ok(['ocsp', '-respin', 'get.resp', '-issuer', 'ca.pem', '-cert', 'ocsp-bad.pem', '-CAfile', 'chain.pem', '-no_nonce'])
      expect(out).to.include('Response verify OK')
      expect(out).to.match(/ocsp-bad\.pem: revoked/)
    })

    it('finds a CA made on another node: the issuer index is looked at again on a miss', async function () {
      this.timeout(30_000)
      // A second responder, as another node has: it indexes the CAs it knows now.
      const { secrets } = t.app.resolveDeps('pki', { secrets: coreServices.secrets })
      const other = new OcspResponder(t.app.db.knex, new Signers(t.app.db.knex, secrets))
      s.ok(['ocsp', '-issuer', 'ca.pem', '-cert', 'ocsp-good.pem', '-no_nonce', '-reqout', 'known.req'])
      expect((await other.respond(readFileSync(path.join(s.dir, 'known.req')))).subarray(0, 5).toString('hex')).not.to.equal('30030a0106')
      // A CA made through this node's API after that, and a certificate under it.
      const late = await createCa(t)
      const cert = await issue(t, late.id, eap, s.csr({ subject: '/CN=late.example.net' }).csr)
      s.put('late-ca.pem', late.certificate)
      s.put('late.pem', cert.certificate)
      s.ok(['ocsp', '-issuer', 'late-ca.pem', '-cert', 'late.pem', '-no_nonce', '-reqout', 'late.req'])
      const req = readFileSync(path.join(s.dir, 'late.req'))
      await new Promise((r) => setTimeout(r, 5_100))
      s.put('late.resp', await other.respond(req))
      s.put('late-chain.pem', late.certificate)
      expect(s.ok(['ocsp', '-respin', 'late.resp', '-issuer', 'late-ca.pem', '-cert', 'late.pem', '-CAfile', 'late-chain.pem', '-no_nonce'])).to.match(/late\.pem: good/)
    })

    it('answers malformedRequest to garbage, unauthorized to a CA not ours; 415 to another media type', async () => {
      const post = (body: Buffer, type = 'application/ocsp-request') => fetch(`${t.url}/api/v1/public/ocsp`, { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(body) })
      const malformed = await post(Buffer.from('hello'))
      expect(malformed.status).to.equal(200)
      expect(Buffer.from(await malformed.arrayBuffer()).toString('hex')).to.equal('30030a0101')
      s.ok(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'stranger.key', '-subj', '/CN=Stranger', '-days', '3', '-out', 'stranger.pem'])
      s.ok(['ocsp', '-issuer', 'stranger.pem', '-serial', '0x01', '-reqout', 'stranger.req'])
      const unauthorized = await post(readFileSync(path.join(s.dir, 'stranger.req')))
      expect(Buffer.from(await unauthorized.arrayBuffer()).toString('hex')).to.equal('30030a0106')
      const wrongType = await post(Buffer.from('x'), 'text/plain')
      expect(wrongType.status).to.equal(415)
      expect(((await wrongType.json()) as { code: string }).code).to.equal('BODY_UNSUPPORTED_TYPE')
    })
  })
})
