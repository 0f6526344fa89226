/**
 * Keys generated on the server and one-time downloads: the key sealed and
 * never answered, one link takes it, the token stored as a hash, the preview
 * spends nothing, the delivery spends the link, a second POST and an expired
 * link are refused. The bundles are opened by the real openssl.
 */
import { createHash } from 'node:crypto'
import { expect } from 'chai'
import { type TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError, issue, Scratch, startPkiBed, stopPkiBed, type PkiBed } from './helpers.js'

describe('pki: generated keys and one-time downloads', function () {
  this.timeout(120_000)
  let t: TestApp
  let s: Scratch
  let root: any
  let ca: any
  let eap: string
  let bed: PkiBed
  before(async function () {
    bed = await startPkiBed(this)
    ;({ t, s, root, ca, eap } = bed)
  })

  after(() => stopPkiBed(bed))


  const generate = async (body: Record<string, unknown> = {}) => {
    const r = await t.admin('POST', '/api/v1/pki/certificates/generate', { body: { ca_id: ca.id, template_id: eap, key_algorithm: 'ECDSA-P256', subject: { CN: 'ap1.example.net' }, san: [{ type: 'dns', value: 'ap1.example.net' }], ...body } })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }
  const link = (certId: string, body: Record<string, unknown>) => t.admin('POST', `/api/v1/pki/certificates/${certId}/download-links`, { body })
  const deliver = async (token: string) => {
    const res = await fetch(`${t.url}/api/v1/public/cert-download/${token}`, { method: 'POST' })
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) }
  }

  it('generates the key on the server, holds the names to the template, and answers no key', async () => {
    const c = await generate()
    expect(c).to.include({ subject: 'CN=ap1.example.net', san: 'DNS:ap1.example.net', key_algorithm: 'ECDSA-P256', status: 'valid' })
    expect(JSON.stringify(c)).not.to.include('PRIVATE KEY')
    const row = await t.app.db.knex('pki_certificate_keys').where({ certificate_id: c.id }).first('sealed_key')
    expect(row!.sealed_key).not.to.include('PRIVATE KEY')
    expect((await auditRows(t, c.id))[0].after).to.include({ key_generated: true })
    const r = await t.admin('POST', '/api/v1/pki/certificates/generate', { body: { ca_id: ca.id, template_id: eap, key_algorithm: 'ECDSA-P256', subject: { CN: 'ap1.example.net' }, san: [{ type: 'email', value: 'a@example.net' }] } })
    expectError(r, 422, 'PKI_SAN_FORBIDDEN')
  })

  it('delivers a PKCS#12 once: openssl opens it with the passphrase, the key matches the certificate, the chain verifies', async () => {
    const c = await generate({ key_algorithm: 'RSA-2048', subject: { CN: 'ap2.example.net', O: 'Example' }, san: [] })
    const made = await link(c.id, { format: 'pkcs12', passphrase: 'Correct-Pass-9' })
    expect(made.status, made.text).to.equal(201)
    expect(made.body).to.include({ certificate_id: c.id, format: 'pkcs12', includes_key: true, path: `/api/v1/public/cert-download/${made.body.token}`, url: null })
    // Only the token's hash is stored, and the key left the key table with the bundle.
    const stored = await t.app.db.knex('pki_downloads').where({ id: made.body.id }).first()
    expect(stored!.token_hash).to.equal(createHash('sha256').update(made.body.token).digest('hex'))
    expect(JSON.stringify(stored)).not.to.include(made.body.token)
    expect(await t.app.db.knex('pki_certificate_keys').where({ certificate_id: c.id }).first()).to.equal(undefined)

    // The preview spends nothing, however often.
    for (let i = 0; i < 2; i++) {
      const p = await t.req('GET', made.body.path)
      expect(p.status).to.equal(200)
      expect(p.body).to.include({ subject: 'CN=ap2.example.net,O=Example', serial: c.serial, format: 'pkcs12', includes_key: true })
      expect(p.body.issuer).to.include('CN=')
    }
    const got = await deliver(made.body.token)
    expect(got.status).to.equal(200)
    expect(got.headers.get('content-type')).to.equal('application/x-pkcs12')
    expect(got.headers.get('content-disposition')).to.equal(`attachment; filename="${c.serial}.p12"`)
    s.put('b.p12', got.body)
    s.ok(['pkcs12', '-in', 'b.p12', '-passin', 'pass:Correct-Pass-9', '-nodes', '-out', 'b.pem'])
    expect(s.openssl(['pkcs12', '-in', 'b.p12', '-passin', 'pass:wrong-pass', '-nodes']).status).not.to.equal(0)
    s.ok(['pkcs12', '-in', 'b.p12', '-passin', 'pass:Correct-Pass-9', '-nokeys', '-clcerts', '-out', 'leaf.pem'])
    s.ok(['pkcs12', '-in', 'b.p12', '-passin', 'pass:Correct-Pass-9', '-nocerts', '-nodes', '-out', 'leaf.key'])
    expect(s.ok(['pkey', '-in', 'leaf.key', '-pubout'])).to.equal(s.ok(['x509', '-in', 'leaf.pem', '-noout', '-pubkey']))
    expect(s.ok(['verify', '-CAfile', 'root.pem', '-untrusted', 'ca.pem', 'leaf.pem'])).to.include('OK')

    // Spent: a second POST and the preview are refused; nothing is left to deliver.
    expectError(await t.req('POST', made.body.path), 410, 'PKI_DOWNLOAD_SPENT', 'token')
    expectError(await t.req('GET', made.body.path), 410, 'PKI_DOWNLOAD_SPENT', 'token')
    expect((await t.app.db.knex('pki_downloads').where({ id: made.body.id }).first('sealed_bundle'))!.sealed_bundle).to.equal(null)
    // The key went with that link: a new one carries the certificate and chain only.
    const again = await link(c.id, { format: 'pem' })
    expect(again.body).to.include({ includes_key: false })
    const pem = (await deliver(again.body.token)).body.toString()
    expect(pem).not.to.include('PRIVATE KEY')
    expect(pem.match(/BEGIN CERTIFICATE/g)).to.have.length(3)
    expect((await auditRows(t, c.id)).map((a) => a.action)).to.deep.equal(['pki_certificate.issue', 'pki_download.create', 'pki_download.spend', 'pki_download.create', 'pki_download.spend'])
  })

  it('delivers PEM with the key encrypted under the passphrase', async () => {
    const c = await generate({ subject: { CN: 'ap3.example.net' }, san: [] })
    const made = await link(c.id, { format: 'pem', passphrase: 'Another-Pass-7' })
    const got = await deliver(made.body.token)
    expect(got.headers.get('content-type')).to.equal('application/x-pem-file')
    s.put('bundle.pem', got.body)
    expect(got.body.toString()).to.include('-----BEGIN ENCRYPTED PRIVATE KEY-----')
    expect(s.openssl(['pkey', '-in', 'bundle.pem', '-passin', 'pass:nope-nope', '-noout']).status).not.to.equal(0)
    s.ok(['pkey', '-in', 'bundle.pem', '-passin', 'pass:Another-Pass-7', '-pubout', '-out', 'pub.pem'])
    s.ok(['x509', '-in', 'bundle.pem', '-noout', '-pubkey', '-out', 'certpub.pem'])
    expect(s.file('pub.pem')).to.equal(s.file('certpub.pem'))
    // What docs/pki.md tells an administrator to run for radius.eap_private_key_file: the key, unencrypted.
    s.ok(['pkey', '-in', 'bundle.pem', '-passin', 'pass:Another-Pass-7', '-out', 'radius.key'])
    expect(s.file('radius.key')).to.match(/^-----BEGIN PRIVATE KEY-----/)
    expect(s.ok(['pkey', '-in', 'radius.key', '-pubout'])).to.equal(s.file('certpub.pem'))
  })

  it('refuses: no passphrase where one is needed, a revoked certificate, an unknown or expired token', async () => {
    const c = await generate({ subject: { CN: 'ap4.example.net' }, san: [] })
    expectError(await link(c.id, { format: 'pem' }), 422, 'PKI_PASSPHRASE_REQUIRED', 'passphrase')
    const fromCsr = await issue(t, ca.id, eap, s.csr({ subject: '/CN=ap5.example.net' }).csr)
    expectError(await link(fromCsr.id, { format: 'pkcs12' }), 422, 'PKI_PASSPHRASE_REQUIRED', 'passphrase')
    expect((await link(fromCsr.id, { format: 'pem' })).body).to.include({ includes_key: false })
    await t.admin('POST', `/api/v1/pki/certificates/${fromCsr.id}/revoke`, { body: { reason: 'superseded' } })
    expectError(await link(fromCsr.id, { format: 'pem' }), 409, 'PKI_CERTIFICATE_REVOKED')
    expectError(await t.req('GET', `/api/v1/public/cert-download/${'A'.repeat(43)}`), 404, 'PKI_DOWNLOAD_NOT_FOUND', 'token')
    expectError(await t.req('POST', `/api/v1/public/cert-download/${'A'.repeat(43)}`), 404, 'PKI_DOWNLOAD_NOT_FOUND', 'token')
    const made = await link(c.id, { format: 'pkcs12', passphrase: 'Expiring-Pass-1', expires_in_hours: 1 })
    await t.app.db.knex('pki_downloads').where({ id: made.body.id }).update({ expires_at: new Date(Date.now() - 1000) })
    expectError(await t.req('GET', made.body.path), 410, 'PKI_DOWNLOAD_EXPIRED', 'token')
    expectError(await t.req('POST', made.body.path), 410, 'PKI_DOWNLOAD_EXPIRED', 'token')
    // The schedule drops what an expired link held.
    const { pkiServiceRef } = await import('../api.js')
    await t.app.resolveDeps('pki', { pki: pkiServiceRef }).pki.refreshDueCrls()
    expect((await t.app.db.knex('pki_downloads').where({ id: made.body.id }).first('sealed_bundle'))!.sealed_bundle).to.equal(null)
  })

  describe('PkiService.issueUserCertificate (the captive portal\'s BYOD onboarding)', () => {
    const service = async () => {
      const { pkiServiceRef } = await import('../api.js')
      return t.app.resolveDeps('pki', { pki: pkiServiceRef }).pki
    }
    const user = async (o: Record<string, unknown> = {}) => {
      const username = `byod-${Math.random().toString(36).slice(2, 8)}`
      const r = await t.admin('POST', '/api/v1/users', { body: { username, password: 'Byod-Granite-Orbit-42', email: `${username}@example.net`, network_login: true, ...o } })
      expect(r.status, r.text).to.equal(201)
      return r.body as { id: string; username: string }
    }
    const refused = async (p: Promise<unknown>, status: number, code: string, field: string) => {
      const e = await p.then(
        () => null,
        (x: any) => x,
      )
      expect(e, 'refused').to.not.equal(null)
      expect({ status: e.status, code: e.code, field: e.field }).to.deep.equal({ status, code, field })
    }

    it('issues an EAP-TLS client certificate for the user from the FreeRADIUS CA, delivered once as a PKCS#12 the passphrase opens', async () => {
      const pki = await service()
      const u = await user()
      await refused(pki.issueUserCertificate({ userId: u.id, commonName: u.username }), 422, 'PKI_CA_NOT_FOUND', 'caId')
      expect((await t.admin('PUT', '/api/v1/settings/pki.freeradius_ca_id', { body: { value: ca.id } })).status).to.equal(200)
      const got = await pki.issueUserCertificate({ userId: u.id, commonName: u.username.toUpperCase(), validityDays: 30 })
      expect(got.downloadUrl).to.equal(`/api/v1/public/cert-download/${got.downloadToken}`)
      expect(Date.parse(got.expiresAt) - Date.now()).to.be.within(50 * 60_000, 61 * 60_000)
      const c = (await t.admin('GET', `/api/v1/pki/certificates/${got.certificateId}`)).body
      expect(c).to.include({ ca_id: ca.id, subject: `CN=${u.username}`, san: `email:${u.username}@example.net`, status: 'valid' })
      expect(Date.parse(c.not_after) - Date.now()).to.be.within(29 * 86_400_000, 30 * 86_400_000 + 60_000)
      const acts = (await auditRows(t, got.certificateId)).map((a) => a.action)
      expect(acts).to.deep.equal(['pki_certificate.issue', 'pki_download.create'])
      expect(await t.app.db.knex('pki_certificate_keys').where({ certificate_id: got.certificateId }).first(), 'the key left with the bundle').to.equal(undefined)

      const first = await deliver(got.downloadToken)
      expect(first.status).to.equal(200)
      expect(first.headers.get('content-type')).to.equal('application/x-pkcs12')
      expectError(await t.req('POST', got.downloadUrl), 410, 'PKI_DOWNLOAD_SPENT', 'token')
      s.put('u.p12', first.body)
      s.ok(['pkcs12', '-in', 'u.p12', '-passin', `pass:${got.passphrase}`, '-nokeys', '-clcerts', '-out', 'u.pem'])
      s.ok(['pkcs12', '-in', 'u.p12', '-passin', `pass:${got.passphrase}`, '-nocerts', '-nodes', '-out', 'u.key'])
      expect(s.ok(['pkey', '-in', 'u.key', '-pubout'])).to.equal(s.ok(['x509', '-in', 'u.pem', '-noout', '-pubkey']))
      const text = s.ok(['x509', '-in', 'u.pem', '-noout', '-text'])
      expect(text).to.include(`CN = ${u.username}`).and.include('TLS Web Client Authentication').and.include('rsaEncryption')
      expect(s.ok(['verify', '-CAfile', 'root.pem', '-untrusted', 'ca.pem', 'u.pem'])).to.include('OK')

      // Revoked as any certificate: the CA's CRL lists it.
      expect((await t.admin('POST', `/api/v1/pki/certificates/${got.certificateId}/revoke`, { body: { reason: 'keyCompromise' } })).status).to.equal(200)
      const crl = await fetch(`${t.url}/api/v1/public/crl/${ca.id}.pem`)
      s.put('u.crl', Buffer.from(await crl.arrayBuffer()))
      expect(s.ok(['crl', '-in', 'u.crl', '-noout', '-text']).toUpperCase()).to.include(c.serial.toUpperCase())
    })

    it('is the user\'s: deleting the user revokes it; refuses another CN, an unknown or disabled user, a bad validity, with nothing issued', async () => {
      const pki = await service()
      await t.admin('PUT', '/api/v1/settings/pki.freeradius_ca_id', { body: { value: ca.id } })
      const u = await user()
      const before = await t.app.db.knex('pki_certificates').count({ n: '*' }).first()
      await refused(pki.issueUserCertificate({ userId: u.id, commonName: 'someone-else' }), 422, 'VALIDATION_FAILED', 'commonName')
      await refused(pki.issueUserCertificate({ userId: '00000000-0000-4000-8000-000000000000', commonName: u.username }), 422, 'VALIDATION_FAILED', 'userId')
      await refused(pki.issueUserCertificate({ userId: 'nonsense', commonName: u.username }), 422, 'VALIDATION_FAILED', 'userId')
      await refused(pki.issueUserCertificate({ userId: u.id, commonName: u.username, validityDays: 0 }), 422, 'VALIDATION_FAILED', 'validityDays')
      await refused(pki.issueUserCertificate({ userId: u.id, commonName: u.username, caId: '00000000-0000-4000-8000-000000000000' }), 422, 'PKI_CA_NOT_FOUND', 'caId')
      const off = await user({ enabled: false })
      await refused(pki.issueUserCertificate({ userId: off.id, commonName: off.username }), 422, 'VALIDATION_FAILED', 'userId')
      expect(await t.app.db.knex('pki_certificates').count({ n: '*' }).first()).to.deep.equal(before)

      // Longer than the template: cut to it (365 days).
      const got = await pki.issueUserCertificate({ userId: u.id, commonName: u.username, validityDays: 5000 })
      const c = (await t.admin('GET', `/api/v1/pki/certificates/${got.certificateId}`)).body
      expect(Date.parse(c.not_after) - Date.now()).to.be.at.most(365 * 86_400_000 + 60_000)
      expect((await t.admin('DELETE', `/api/v1/users/${u.id}`)).status).to.equal(204)
      expect((await t.admin('GET', `/api/v1/pki/certificates/${got.certificateId}`)).body).to.include({ status: 'revoked' })
    })
  })

  it('permissions: generating and making links need pki.issue', async () => {
    const viewer = await t.token({ permissions: ['pki.view'] })
    const c = await generate({ subject: { CN: 'ap6.example.net' }, san: [] })
    expect((await t.req('POST', `/api/v1/pki/certificates/${c.id}/download-links`, { token: viewer, body: { format: 'pem', passphrase: 'Viewer-Pass-1' } })).status).to.equal(403)
    expect((await t.req('POST', '/api/v1/pki/certificates/generate', { token: viewer, body: { ca_id: ca.id, template_id: eap, key_algorithm: 'ECDSA-P256', subject: { CN: 'x.example.net' } } })).status).to.equal(403)
  })
})
