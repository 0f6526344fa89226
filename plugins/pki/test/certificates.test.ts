/**
 * Issuing from a CSR made by the real openssl, held to its template: what
 * the certificate says (checked by openssl), what is refused (each a 422 in
 * the envelope, nothing issued), the list's search and filters, revocation,
 * the audit trail and the permissions.
 */
import { expect } from 'chai'
import { type TestApp } from '../../../test/kit/app.js'
import { children, readRoot, seq, whole } from '../services/der.js'
import { auditRows, createTemplate, csrWithSubject, expectError, issue, Scratch, uniq, startPkiBed, stopPkiBed, type PkiBed } from './helpers.js'

describe('pki: certificates', function () {
  this.timeout(120_000)
  let t: TestApp
  let s: Scratch
  let root: any
  let ca: any
  let eap: string
  let bed: PkiBed
  before(async function () {
    bed = await startPkiBed(this, { settings: { 'identity.public_url': 'https://nac.example.net' }, issuing: { key_algorithm: 'RSA-3072' } })
    ;({ t, s, root, ca, eap } = bed)
    s.put('untrusted.pem', ca.certificate)
  })

  after(() => stopPkiBed(bed))


  const issuedCount = async () => Number((await t.app.db.knex('pki_certificates').count({ n: '*' }))[0].n)

  it('issues the FreeRADIUS EAP server certificate from a CSR; openssl verifies it under the chain', async () => {
    const { csr } = s.csr({ subject: '/CN=radius1.example.net/O=Example', san: 'DNS:radius1.example.net,IP:10.1.2.3' })
    const c = await issue(t, ca.id, eap, csr)
    expect(c).to.include({ ca_id: ca.id, template_id: eap, status: 'valid', subject: 'O=Example,CN=radius1.example.net', san: 'DNS:radius1.example.net, IP:10.1.2.3', key_algorithm: 'ECDSA-P256', revoked_at: null })
    s.put('eap.pem', c.certificate)
    expect(s.ok(['verify', '-CAfile', 'root.pem', '-untrusted', 'untrusted.pem', '-purpose', 'sslserver', 'eap.pem'])).to.include('eap.pem: OK')
    const text = s.ok(['x509', '-in', 'eap.pem', '-noout', '-text'])
    expect(text).to.match(/X509v3 Basic Constraints: critical\s+CA:FALSE/)
    expect(text).to.match(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/)
    expect(text).to.match(/X509v3 Extended Key Usage:\s+TLS Web Server Authentication\n/)
    expect(text).to.match(/DNS:radius1\.example\.net, IP Address:10\.1\.2\.3/)
    expect(text).to.include(`URI:https://nac.example.net/api/v1/public/crl/${ca.id}.crl`)
    expect(text).to.include('OCSP - URI:https://nac.example.net/api/v1/public/ocsp')
    expect(s.ok(['x509', '-in', 'eap.pem', '-noout', '-serial']).trim()).to.equal(`serial=${c.serial}`)
    // 825 days, as the template says.
    expect(Math.round((Date.parse(c.not_after) - Date.parse(c.not_before)) / 86_400_000)).to.equal(825)
    const audit = await auditRows(t, c.id)
    expect(audit.map((a) => a.action)).to.deep.equal(['pki_certificate.issue'])
    expect(audit[0].after).to.include({ serial: c.serial, subject: c.subject })
  })

  it('takes only subject, key and SAN from the CSR: a requested CA:TRUE or key usage is not copied', async () => {
    const name = uniq('sneaky')
    s.ok(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-subj', '/CN=a.example.net', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign', '-out', `${name}.csr`])
    const c = await issue(t, ca.id, eap, s.file(`${name}.csr`))
    s.put('sneaky.pem', c.certificate)
    const text = s.ok(['x509', '-in', 'sneaky.pem', '-noout', '-text'])
    expect(text).to.match(/CA:FALSE/)
    expect(text).not.to.match(/Certificate Sign/)
  })

  describe('refusals: a clear 422 at `csr`, nothing issued', () => {
    let strict: any
    before(async () => {
      strict = await createTemplate(t, { min_rsa_bits: 3072, min_ec_bits: 384, name_patterns: ['*.corp.example.net', 'vpn.example.net'] })
    })

    const refused = async (csr: string, code: string, template = strict.id, field = 'csr') => {
      const before = await issuedCount()
      expectError(await t.admin('POST', '/api/v1/pki/certificates', { body: { ca_id: ca.id, template_id: template, csr } }), 422, code, field)
      expect(await issuedCount()).to.equal(before)
    }

    it('a weak key: RSA 2048 and ECDSA P-256 under a template asking RSA 3072 / P-384; RSA 1024 under any', async () => {
      await refused(s.csr({ subject: '/CN=a.corp.example.net', key: 'rsa2048' }).csr, 'PKI_KEY_TOO_WEAK')
      await refused(s.csr({ subject: '/CN=a.corp.example.net', key: 'ec256' }).csr, 'PKI_KEY_TOO_WEAK')
      await refused(s.csr({ subject: '/CN=radius.example.net', key: 'rsa1024' }).csr, 'PKI_KEY_TOO_WEAK', eap)
      // The same names with a strong enough key are issued.
      await issue(t, ca.id, strict.id, s.csr({ subject: '/CN=a.corp.example.net', key: 'ec384' }).csr)
    })

    it('a subject the template forbids: a common name outside its patterns, an attribute it does not list', async () => {
      await refused(s.csr({ subject: '/CN=evil.example.com', key: 'ec384' }).csr, 'PKI_SUBJECT_FORBIDDEN')
      await refused(s.csr({ subject: '/CN=corp.example.net', key: 'ec384' }).csr, 'PKI_SUBJECT_FORBIDDEN')
      await refused(s.csr({ subject: '/CN=vpn.example.net/OU=Ops', key: 'ec384' }).csr, 'PKI_SUBJECT_FORBIDDEN')
      await refused(s.csr({ subject: '/O=Example', key: 'ec384' }).csr, 'PKI_SUBJECT_FORBIDDEN')
    })

    it('a subject value with a control, line-break or direction character, or past RFC 5280\'s length (issue 26, 17)', async () => {
      const open = await createTemplate(t, { name_patterns: ['*'], subject_attributes: ['CN', 'O', 'OU', 'L', 'ST'] })
      // What a device would use to forge lines in the approver's mail, and what disguises a name.
      for (const bad of ['\n', '\r', '\u0007', '\u0000', '\u007F', '\u0085', '\u2028', '\u2029', '\u202E', '\u2066', '\u200F', '\u061C']) {
        for (const [k, v] of [['O', `Corp${bad}Requested by: admin`], ['CN', `host${bad}`], ['OU', `${bad}Ops`]] as const) {
          await refused(csrWithSubject([['CN', 'host.example.net'], ...(k === 'CN' ? [] : [[k, v] as [typeof k, string]]), ...(k === 'CN' ? [['CN', v] as ['CN', string]] : [])]), 'PKI_SUBJECT_FORBIDDEN', open.id)
        }
      }
      await refused(csrWithSubject([['CN', 'host.example.net'], ['O', 'x'.repeat(5000)]]), 'PKI_SUBJECT_FORBIDDEN', open.id)
      await refused(csrWithSubject([['CN', 'a'.repeat(65)]]), 'PKI_SUBJECT_FORBIDDEN', open.id)
      await refused(csrWithSubject([['CN', 'host.example.net'], ['L', 'z'.repeat(129)]]), 'PKI_SUBJECT_FORBIDDEN', open.id)
      await refused(csrWithSubject([['CN', 'host.example.net'], ['O', '   ']]), 'PKI_SUBJECT_FORBIDDEN', open.id)
      // At the bounds, in any script, it is issued.
      const ok = await issue(t, ca.id, open.id, csrWithSubject([['CN', 'a'.repeat(64)], ['O', 'Zürich Ωmega Москва'], ['L', 'z'.repeat(128)]]))
      expect(ok.subject).to.equal(`L=${'z'.repeat(128)},O=Zürich Ωmega Москва,CN=${'a'.repeat(64)}`)
      // A key generated on the server: the subject fields refuse the same, at the field.
      for (const bad of ['\n', '\u202E', '\u2066']) {
        const r = await t.admin('POST', '/api/v1/pki/certificates/generate', { body: { ca_id: ca.id, template_id: open.id, key_algorithm: 'ECDSA-P256', subject: { CN: 'gen.example.net', O: `Corp${bad}x` } } })
        expectError(r, 422, 'VALIDATION_FAILED', 'subject.O')
      }
    })

    it('a SAN the template forbids: a type it does not list, a DNS name outside its patterns', async () => {
      await refused(s.csr({ subject: '/CN=vpn.example.net', san: 'IP:10.0.0.1', key: 'ec384' }).csr, 'PKI_SAN_FORBIDDEN')
      await refused(s.csr({ subject: '/CN=vpn.example.net', san: 'DNS:vpn.example.net,DNS:www.example.org', key: 'ec384' }).csr, 'PKI_SAN_FORBIDDEN')
      await refused(s.csr({ subject: '/CN=vpn.example.net', san: 'email:a@example.net', key: 'ec384' }).csr, 'PKI_SAN_FORBIDDEN')
    })

    it('an oversized, malformed or falsely signed CSR', async () => {
      const good = s.csr({ subject: '/CN=vpn.example.net', key: 'ec384' }).csr
      const before = await issuedCount()
      expectError(await t.admin('POST', '/api/v1/pki/certificates', { body: { ca_id: ca.id, template_id: strict.id, csr: good + ' '.repeat(17_000) } }), 422, 'VALIDATION_FAILED', 'csr')
      expect(await issuedCount()).to.equal(before)
      await refused('hello', 'PKI_CSR_INVALID')
      await refused('-----BEGIN CERTIFICATE REQUEST-----\nMIIBAAAA\n-----END CERTIFICATE REQUEST-----\n', 'PKI_CSR_INVALID')
      await refused(good + good, 'PKI_CSR_INVALID')
      // One bit of the signature flipped: the request is not signed by its key.
      const der = Buffer.from(good.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64')
      der[der.length - 5] ^= 0x01
      await refused(`-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`, 'PKI_CSR_SIGNATURE_INVALID')
    })

    it('a request whose fields are missing or of the wrong kind (read as DER, never guessed)', async () => {
      const good = s.csr({ subject: '/CN=vpn.example.net', key: 'ec384' }).csr
      const der = Buffer.from(good.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64')
      const [info, , sig] = children(readRoot(der))
      const pemOf = (d: Buffer) => `-----BEGIN CERTIFICATE REQUEST-----\n${d.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`
      // The signature algorithm an empty SEQUENCE; the signature left out; an indefinite length.
      await refused(pemOf(seq(whole(info), seq(), whole(sig))), 'PKI_CSR_INVALID')
      await refused(pemOf(seq(whole(info), seq())), 'PKI_CSR_INVALID')
      await refused(pemOf(Buffer.concat([Buffer.from([0x30, 0x80]), der.subarray(4), Buffer.from([0, 0])])), 'PKI_CSR_INVALID')
    })

    it('an unknown CA or template', async () => {
      const { csr } = s.csr({ subject: '/CN=vpn.example.net', key: 'ec384' })
      const none = '00000000-0000-4000-8000-000000000000'
      expectError(await t.admin('POST', '/api/v1/pki/certificates', { body: { ca_id: none, template_id: strict.id, csr } }), 422, 'PKI_CA_NOT_FOUND', 'ca_id')
      expectError(await t.admin('POST', '/api/v1/pki/certificates', { body: { ca_id: ca.id, template_id: none, csr } }), 422, 'PKI_TEMPLATE_NOT_FOUND', 'template_id')
    })
  })

  it('a common name may be any user name (`_`, `@`), in a template\'s patterns too; a DNS name stays a DNS name (issue 26, 6)', async () => {
    const users = await createTemplate(t, { name_patterns: ['alice_smith', '*@corp.example', 'svc.backup_01'], subject_attributes: ['CN'], san_types: ['dns'] })
    for (const cn of ['alice_smith', 'bob@corp.example', 'j.doe-2@corp.example', 'svc.backup_01']) {
      const c = await issue(t, ca.id, users.id, csrWithSubject([['CN', cn]]))
      expect(c.subject).to.equal(`CN=${cn}`)
    }
    const before = await issuedCount()
    for (const cn of ['eve@other.example', '@corp.example', 'alice_smith2', 'a b@corp.example']) {
      expectError(await t.admin('POST', '/api/v1/pki/certificates', { body: { ca_id: ca.id, template_id: users.id, csr: csrWithSubject([['CN', cn]]) } }), 422, 'PKI_SUBJECT_FORBIDDEN', 'csr')
    }
    // `*` takes every user name; a DNS subject alternative name must still be a DNS name.
    const any = await createTemplate(t, { name_patterns: ['*'], subject_attributes: ['CN'], san_types: ['dns'] })
    expect((await issue(t, ca.id, any.id, csrWithSubject([['CN', 'x_y@z.example']]))).subject).to.equal('CN=x_y@z.example')
    expectError(await t.admin('POST', '/api/v1/pki/certificates', { body: { ca_id: ca.id, template_id: any.id, csr: s.csr({ subject: '/CN=ok.example.net', san: 'DNS:a@b.example.net' }).csr } }), 422, 'PKI_SAN_FORBIDDEN', 'csr')
    expect(await issuedCount()).to.equal(before + 1)
  })

  it('seeds the EAP-TLS client template: clientAuth for a user name, which openssl verifies as a TLS client under the chain', async () => {
    const list = (await t.admin('GET', '/api/v1/pki/templates')).body as { id: string; name: string; extended_key_usage: string[]; name_patterns: string[]; san_types: string[] }[]
    const client = list.find((x) => x.name === 'eap-tls-client')!
    expect(client, list.map((x) => x.name).join(', ')).to.not.equal(undefined)
    expect(client).to.deep.include({ extended_key_usage: ['clientAuth'], name_patterns: ['*'], san_types: ['email', 'dns'] })
    const c = await issue(t, ca.id, client.id, s.csr({ subject: '/CN=alice_smith/O=Example', san: 'email:alice_smith@corp.example' }).csr)
    s.put('client.pem', c.certificate)
    expect(s.ok(['verify', '-CAfile', 'root.pem', '-untrusted', 'untrusted.pem', '-purpose', 'sslclient', 'client.pem'])).to.include('client.pem: OK')
    expect(s.openssl(['verify', '-CAfile', 'root.pem', '-untrusted', 'untrusted.pem', '-purpose', 'sslserver', 'client.pem']).status).to.not.equal(0)
  })

  it('refuses a template with a bad name pattern, and deletes one only while nothing was issued under it', async () => {
    const body = { name: uniq('tpl'), key_usage: ['digitalSignature'], extended_key_usage: [], validity_days: 1, subject_attributes: ['CN'], san_types: [], min_rsa_bits: 2048, min_ec_bits: 256 }
    expectError(await t.admin('POST', '/api/v1/pki/templates', { body: { ...body, name_patterns: ['ok.example.net', 'a.*.net'] } }), 422, 'PKI_NAME_PATTERN_INVALID', 'name_patterns[1]')
    for (const bad of ['a b', '*x.example.net', 'a\nb', 'a*', '**', 'ü.example.net', 'bad..name', '.a', 'a.']) {
      expectError(await t.admin('POST', '/api/v1/pki/templates', { body: { ...body, name_patterns: [bad] } }), 422, 'PKI_NAME_PATTERN_INVALID', 'name_patterns[0]')
    }
    const used = await createTemplate(t, { name_patterns: ['*'], min_ec_bits: 256 })
    await issue(t, ca.id, used.id, s.csr({ subject: '/CN=host' }).csr)
    expectError(await t.admin('DELETE', `/api/v1/pki/templates/${used.id}`), 409, 'PKI_TEMPLATE_IN_USE')
    const unused = await createTemplate(t)
    expect((await t.admin('DELETE', `/api/v1/pki/templates/${unused.id}`)).status).to.equal(204)
    expect((await auditRows(t, unused.id)).map((a) => a.action)).to.deep.equal(['pki_template.create', 'pki_template.delete'])
  })

  it('lists with search by subject, serial and SAN, and filters by CA, template and status', async () => {
    const tag = uniq('list').toLowerCase()
    const tpl = await createTemplate(t, { name_patterns: ['*.example.net'], san_types: ['dns'] })
    const a = await issue(t, ca.id, tpl.id, s.csr({ subject: `/CN=${tag}-a.example.net` }).csr)
    const b = await issue(t, ca.id, tpl.id, s.csr({ subject: `/CN=other.example.net`, san: `DNS:${tag}-b.example.net` }).csr)
    const other = await issue(t, root.id, tpl.id, s.csr({ subject: `/CN=${tag}-c.example.net` }).csr)
    const ids = async (q: string) => {
      const r = await t.admin('GET', `/api/v1/pki/certificates?${q}`)
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return (r.body.items as { id: string }[]).map((x) => x.id).sort()
    }
    expect(await ids(`search=${tag}`)).to.deep.equal([a.id, b.id, other.id].sort())
    // The fingerprint is the one openssl prints.
    s.put('listed.pem', a.certificate)
    expect(s.ok(['x509', '-in', 'listed.pem', '-noout', '-fingerprint', '-sha256']).trim().split('=')[1]).to.equal(a.fingerprint_sha256)
    expect(await ids(`search=${tag}&ca_id=${ca.id}`)).to.deep.equal([a.id, b.id].sort())
    expect(await ids(`search=${a.serial.slice(4, 20).toLowerCase()}`)).to.deep.equal([a.id])
    expect(await ids(`template_id=${tpl.id}&status=valid`)).to.deep.equal([a.id, b.id, other.id].sort())
    const r = await t.admin('POST', `/api/v1/pki/certificates/${b.id}/revoke`, { body: { reason: 'keyCompromise' } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    expect(r.body).to.include({ status: 'revoked', revocation_reason: 'keyCompromise' })
    expect(await ids(`template_id=${tpl.id}&status=revoked`)).to.deep.equal([b.id])
    expect(await ids(`template_id=${tpl.id}&status=valid`)).to.deep.equal([a.id, other.id].sort())
    // Expired: its end moved into the past.
    await t.app.db.knex('pki_certificates').where({ id: a.id }).update({ not_after: new Date(Date.now() - 1000) })
    expect(await ids(`template_id=${tpl.id}&status=expired`)).to.deep.equal([a.id])
    expect((await t.admin('GET', `/api/v1/pki/certificates/${a.id}`)).body.status).to.equal('expired')
    // Expiring soon: ending before a time; with status=valid, the revoked and expired ones left out.
    const inDays = (d: number) => encodeURIComponent(new Date(Date.now() + d * 86_400_000).toISOString())
    expect(await ids(`template_id=${tpl.id}&expires_before=${inDays(1)}`)).to.deep.equal([a.id])
    expect(await ids(`template_id=${tpl.id}&expires_before=${inDays(400)}`)).to.deep.equal([a.id, b.id, other.id].sort())
    expect(await ids(`template_id=${tpl.id}&status=valid&expires_before=${inDays(400)}`)).to.deep.equal([other.id])
    expectError(await t.admin('GET', '/api/v1/pki/certificates?expires_before=soon'), 422, 'VALIDATION_FAILED', 'expires_before')
    const page = await t.admin('GET', `/api/v1/pki/certificates?template_id=${tpl.id}&per_page=2`)
    expect(page.body).to.include({ total_by_filter: 3, per_page: 2, pages: 2 })
    expectError(await t.admin('GET', '/api/v1/pki/certificates?status=lost'), 422, 'VALIDATION_FAILED', 'status')
  })

  it('revokes once, with an RFC 5280 reason, audited; a second revoke is 409', async () => {
    const c = await issue(t, ca.id, eap, s.csr({ subject: '/CN=gone.example.net' }).csr)
    expectError(await t.admin('POST', `/api/v1/pki/certificates/${c.id}/revoke`, { body: { reason: 'certificateHold' } }), 422, 'VALIDATION_FAILED', 'reason')
    expect((await t.admin('POST', `/api/v1/pki/certificates/${c.id}/revoke`, { body: { reason: 'superseded' } })).status).to.equal(200)
    expectError(await t.admin('POST', `/api/v1/pki/certificates/${c.id}/revoke`, { body: { reason: 'superseded' } }), 409, 'PKI_CERTIFICATE_REVOKED')
    const audit = await auditRows(t, c.id)
    expect(audit.map((a) => a.action)).to.deep.equal(['pki_certificate.issue', 'pki_certificate.revoke'])
    expect(audit[1].before.status).to.equal('valid')
    expect(audit[1].after).to.include({ status: 'revoked', revocation_reason: 'superseded' })
  })

  it('permissions: view reads only, issue issues but cannot revoke, revoke revokes but cannot issue', async () => {
    const { csr } = s.csr({ subject: '/CN=perm.example.net' })
    const body = { ca_id: ca.id, template_id: eap, csr }
    const viewer = await t.token({ permissions: ['pki.view'] })
    const issuer = await t.token({ permissions: ['pki.issue'] })
    const revoker = await t.token({ permissions: ['pki.revoke'] })
    expect((await t.req('GET', '/api/v1/pki/certificates', { token: viewer })).status).to.equal(200)
    expect((await t.req('POST', '/api/v1/pki/certificates', { token: viewer, body })).status).to.equal(403)
    expect((await t.req('POST', '/api/v1/pki/certificates', { token: revoker, body })).status).to.equal(403)
    const r = await t.req('POST', '/api/v1/pki/certificates', { token: issuer, body })
    expect(r.status).to.equal(201)
    expect((await t.req('POST', `/api/v1/pki/certificates/${r.body.id}/revoke`, { token: issuer, body: { reason: 'unspecified' } })).status).to.equal(403)
    expect((await t.req('POST', '/api/v1/pki/cas', { token: issuer, body: { name: uniq('x'), subject: { CN: 'x' }, key_algorithm: 'ECDSA-P256', validity_days: 1 } })).status).to.equal(403)
    expect((await t.req('POST', `/api/v1/pki/certificates/${r.body.id}/revoke`, { token: revoker, body: { reason: 'unspecified' } })).status).to.equal(200)
  })
})
