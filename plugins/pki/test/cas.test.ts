/**
 * Certificate authorities: made here (root and issuing, each key type) or
 * imported (key and chain checked), proven with the real openssl; the private
 * key sealed in the database and never answered.
 */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { auditRows, createCa, expectError, hasOpenssl, Scratch, uniq } from './helpers.js'

describe('pki: certificate authorities', function () {
  this.timeout(120_000)
  let t: TestApp
  let s: Scratch
  before(async function () {
    if (!hasOpenssl()) skipBecause(this, 'openssl is not installed (Debian package openssl)')
    t = await startTestApp({ plugins: ['pki'] })
    s = new Scratch()
  })
  after(async () => {
    await t?.stop()
    s?.remove()
  })

  it('makes an ECDSA P-384 root and an RSA 3072 issuing CA under it that openssl verifies as a chain', async () => {
    const root = await createCa(t, { key_algorithm: 'ECDSA-P384', subject: { CN: 'Portcullis Root', O: 'Example', C: 'NL' } })
    expect(root).to.include({ kind: 'root', key_algorithm: 'ECDSA-P384', parent_id: null, imported: false, chain: '', crl_number: 1 })
    expect(root.subject).to.equal('CN=Portcullis Root,O=Example,C=NL')
    const issuing = await createCa(t, { key_algorithm: 'RSA-3072', parent_id: root.id, validity_days: 36_500, subject: { CN: 'Portcullis Issuing' } })
    expect(issuing).to.include({ kind: 'issuing', parent_id: root.id, key_algorithm: 'RSA-3072' })
    expect(issuing.chain).to.equal(root.certificate)
    // Cut to the root's end.
    expect(issuing.not_after).to.equal(root.not_after)
    s.put('root.pem', root.certificate)
    s.put('issuing.pem', issuing.certificate)
    expect(s.ok(['verify', '-CAfile', 'root.pem', 'issuing.pem'])).to.include('issuing.pem: OK')
    const text = s.ok(['x509', '-in', 'issuing.pem', '-noout', '-text'])
    expect(text).to.match(/CA:TRUE, pathlen:0/)
    expect(text).to.match(/Certificate Sign, CRL Sign/)
    expect(text).to.include('Public-Key: (3072 bit)')
    expect(s.ok(['x509', '-in', 'issuing.pem', '-noout', '-serial']).trim()).to.equal(`serial=${issuing.serial}`)
    expect(s.ok(['x509', '-in', 'issuing.pem', '-noout', '-fingerprint', '-sha256']).trim().split('=')[1]).to.equal(issuing.fingerprint_sha256)
  })

  it('makes RSA 4096 and ECDSA P-256 roots, self-signed', async () => {
    for (const key_algorithm of ['RSA-4096', 'ECDSA-P256']) {
      const ca = await createCa(t, { key_algorithm })
      s.put('self.pem', ca.certificate)
      expect(s.ok(['verify', '-CAfile', 'self.pem', 'self.pem'])).to.include('OK')
    }
  })

  it('seals the key: no answer carries it, the database holds it only sealed, the audit entry has none', async () => {
    const ca = await createCa(t)
    for (const r of [await t.admin('GET', `/api/v1/pki/cas/${ca.id}`), await t.admin('GET', '/api/v1/pki/cas')]) {
      expect(r.text).not.to.match(/PRIVATE KEY|sealed/)
    }
    const row = await t.app.db.knex('pki_cas').where({ id: ca.id }).first('sealed_key')
    expect(row!.sealed_key).not.to.include('PRIVATE KEY')
    const audit = await auditRows(t, ca.id)
    expect(audit.map((a) => a.action)).to.deep.equal(['pki_ca.create'])
    expect(JSON.stringify(audit)).not.to.match(/PRIVATE KEY|sealed/)
  })

  it('refuses an issuing CA under an issuing CA or an unknown parent, and a name taken', async () => {
    const root = await createCa(t)
    const issuing = await createCa(t, { parent_id: root.id })
    const body = { name: uniq('ca'), subject: { CN: 'x' }, key_algorithm: 'ECDSA-P256', validity_days: 10 }
    expectError(await t.admin('POST', '/api/v1/pki/cas', { body: { ...body, parent_id: issuing.id } }), 422, 'PKI_PARENT_NOT_ROOT', 'parent_id')
    expectError(await t.admin('POST', '/api/v1/pki/cas', { body: { ...body, parent_id: '00000000-0000-4000-8000-000000000000' } }), 422, 'PKI_CA_NOT_FOUND', 'parent_id')
    expectError(await t.admin('POST', '/api/v1/pki/cas', { body: { ...body, name: root.name.toUpperCase() } }), 409, 'PKI_CA_NAME_TAKEN', 'name')
    expectError(await t.admin('POST', '/api/v1/pki/cas', { body: { ...body, key_algorithm: 'RSA-1024' } }), 422, 'VALIDATION_FAILED', 'key_algorithm')
  })

  describe('import', () => {
    let chain: string
    let key: string
    before(() => {
      s.ok(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ext-root.key', '-subj', '/CN=External Root', '-days', '30', '-out', 'ext-root.pem'])
      s.ok(['req', '-new', '-newkey', 'rsa:3072', '-nodes', '-keyout', 'ext-sub.key', '-subj', '/CN=External Issuing/O=Elsewhere', '-out', 'ext-sub.csr'])
      s.put('ca.ext', 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n')
      s.ok(['x509', '-req', '-in', 'ext-sub.csr', '-CA', 'ext-root.pem', '-CAkey', 'ext-root.key', '-CAcreateserial', '-days', '20', '-extfile', 'ca.ext', '-out', 'ext-sub.pem'])
      chain = s.file('ext-sub.pem') + s.file('ext-root.pem')
      key = s.file('ext-sub.key')
    })

    it('imports a key and its chain, checked, and signs with it', async () => {
      const r = await t.admin('POST', '/api/v1/pki/cas/import', { body: { name: uniq('imported'), certificate_chain: chain, private_key: key } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      expect(r.body).to.include({ kind: 'issuing', imported: true, key_algorithm: 'RSA-3072', subject: 'O=Elsewhere,CN=External Issuing' })
      expect(r.body.chain).to.equal(s.file('ext-root.pem'))
      expect((await auditRows(t, r.body.id)).map((a) => a.action)).to.deep.equal(['pki_ca.import'])
    })

    it('refuses a key of another certificate, a chain that does not verify, a non-CA, garbage; nothing stored', async () => {
      const count = async () => Number((await t.app.db.knex('pki_cas').count({ n: '*' }))[0].n)
      const before = await count()
      const imp = (certificate_chain: string, private_key: string) => t.admin('POST', '/api/v1/pki/cas/import', { body: { name: uniq('bad'), certificate_chain, private_key } })
      expectError(await imp(chain, s.file('ext-root.key')), 422, 'PKI_KEY_MISMATCH', 'private_key')
      // The issuing certificate without its root: the last one is not self-signed.
      expectError(await imp(s.file('ext-sub.pem'), key), 422, 'PKI_CHAIN_INVALID', 'certificate_chain')
      // A root that did not sign it.
      s.ok(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'other.key', '-subj', '/CN=External Root', '-days', '30', '-out', 'other.pem'])
      expectError(await imp(s.file('ext-sub.pem') + s.file('other.pem'), key), 422, 'PKI_CHAIN_INVALID', 'certificate_chain')
      // An end-entity certificate is no CA.
      s.ok(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'leaf.key', '-subj', '/CN=leaf', '-days', '30', '-addext', 'basicConstraints=CA:FALSE', '-out', 'leaf.pem'])
      expectError(await imp(s.file('leaf.pem'), s.file('leaf.key')), 422, 'PKI_CHAIN_INVALID', 'certificate_chain')
      expectError(await imp(chain, 'not a key'), 422, 'PKI_IMPORT_INVALID', 'private_key')
      expectError(await imp('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', key), 422, 'PKI_IMPORT_INVALID', 'certificate_chain')
      expect(await count()).to.equal(before)
    })
  })
})
