/**
 * EST (RFC 7030) from outside, as a device does it: `openssl req` makes the
 * CSR, `curl` enrolls with HTTP Basic, `openssl pkcs7 -print_certs` and
 * `openssl verify` check the answer. Off (404) until configured; refusals
 * with the RFC's statuses (401 with WWW-Authenticate, 403, 400), nothing
 * issued on any of them.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { type TestApp } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { PEOPLE_DN, READER, slapdBinary, SLAPD_SKIP, startSlapd } from '../../../test/kit/slapd.js'
import { auditRows, createTemplate, expectError, Scratch, uniq, startPkiBed, stopPkiBed, type PkiBed } from './helpers.js'

const PASSWORD = 'Enroll-Device-Pass-42'

describe('pki: EST enrollment (RFC 7030)', function () {
  this.timeout(120_000)
  let t: TestApp
  let s: Scratch
  let root: any
  let ca: any
  let template: any
  let member: string
  let outsider: string
  let bed: PkiBed
  before(async function () {
    if (!existsSync('/usr/bin/curl')) skipBecause(this, 'curl is not installed (Debian package curl)')
    bed = await startPkiBed(this)
    ;({ t, s, root, ca } = bed)
    template = await createTemplate(t, { name_patterns: ['*.devices.example.net'], extended_key_usage: ['clientAuth'] })
    const group = await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('est-devices') } })
    member = uniq('device')
    outsider = uniq('other')
    expect((await t.admin('POST', '/api/v1/users', { body: { username: member, password: PASSWORD, group_ids: [group.body.id] } })).status).to.equal(201)
    expect((await t.admin('POST', '/api/v1/users', { body: { username: outsider, password: PASSWORD } })).status).to.equal(201)
    await t.admin('PUT', '/api/v1/settings/pki.est_ca_id', { body: { value: ca.id } })
    await t.admin('PUT', '/api/v1/settings/pki.est_template_id', { body: { value: template.id } })
    await t.admin('PUT', '/api/v1/settings/pki.est_group_id', { body: { value: group.body.id } })
  })
  after(() => stopPkiBed(bed))


  const est = (p: string) => `${t.url}/.well-known/est/${p}`
  /** curl as a device runs it (not blocking this process: the server answers from it). */
  const curl = (args: string[]): Promise<{ code: number | null; out: string }> =>
    new Promise((resolve) => {
      const p = spawn('curl', ['-s', '-o', 'out.b64', '-w', '%{http_code}', ...args], { cwd: s.dir })
      let out = ''
      p.stdout.on('data', (c: Buffer) => (out += c.toString()))
      p.on('close', (code) => resolve({ code, out }))
    })
  const b64Csr = (subject: string, key: 'ec256' | 'rsa1024' = 'ec256') => {
    const { csr } = s.csr({ subject, key })
    return s.put(`${uniq('csr')}.b64`, csr.replace(/-----[^-]+-----/g, '').trim() + '\n')
  }
  const issuedCount = async () => Number((await t.app.db.knex('pki_certificates').count({ n: '*' }))[0].n)

  it('answers 404 on every route while EST is off', async () => {
    expectError(await t.req('GET', '/.well-known/est/cacerts'), 404, 'NOT_FOUND')
    expectError(await t.req('GET', '/.well-known/est/csrattrs'), 404, 'NOT_FOUND')
    const r = await fetch(est('simpleenroll'), { method: 'POST', headers: { 'content-type': 'application/pkcs10', authorization: `Basic ${Buffer.from(`${member}:${PASSWORD}`).toString('base64')}` }, body: 'AAAA' })
    expect(r.status).to.equal(404)
  })

  describe('on', () => {
    before(async () => {
      expect((await t.admin('PUT', '/api/v1/settings/nac.est_enabled', { body: { value: true } })).status).to.equal(200)
    })

    it('cacerts: base64 PKCS#7 certs-only with the CA and its root (openssl pkcs7 -print_certs)', async () => {
      const res = await fetch(est('cacerts'))
      expect(res.status).to.equal(200)
      expect(res.headers.get('content-type')).to.equal('application/pkcs7-mime')
      expect(res.headers.get('content-transfer-encoding')).to.equal('base64')
      s.put('cacerts.p7', Buffer.from((await res.text()).replace(/\s+/g, ''), 'base64'))
      const printed = s.ok(['pkcs7', '-inform', 'DER', '-in', 'cacerts.p7', '-print_certs'])
      expect(printed.match(/BEGIN CERTIFICATE/g)).to.have.length(2)
      expect((await fetch(est('csrattrs'))).status).to.equal(204)
    })

    it('simpleenroll with curl and HTTP Basic: the certificate verifies under the chain, audited', async () => {
      const before = await issuedCount()
      const csr = b64Csr('/CN=sw1.devices.example.net')
      const r = await curl(['-u', `${member}:${PASSWORD}`, '-H', 'Content-Type: application/pkcs10', '-H', 'Content-Transfer-Encoding: base64', '--data-binary', `@${csr}`, est('simpleenroll')])
      expect(r.out, readFileSync(path.join(s.dir, 'out.b64'), 'utf8')).to.equal('200')
      s.put('enrolled.p7', Buffer.from(readFileSync(path.join(s.dir, 'out.b64'), 'utf8').replace(/\s+/g, ''), 'base64'))
      s.ok(['pkcs7', '-inform', 'DER', '-in', 'enrolled.p7', '-print_certs', '-out', 'enrolled.pem'])
      expect(s.ok(['verify', '-CAfile', 'root.pem', '-untrusted', 'ca.pem', '-purpose', 'sslclient', 'enrolled.pem'])).to.include('enrolled.pem: OK')
      expect(await issuedCount()).to.equal(before + 1)
      const serial = s.ok(['x509', '-in', 'enrolled.pem', '-noout', '-serial']).trim().replace('serial=', '')
      const row = await t.app.db.knex('pki_certificates').where({ serial }).first('id', 'template_id', 'ca_id')
      expect(row).to.include({ template_id: template.id, ca_id: ca.id })
      const audit = await auditRows(t, row!.id)
      expect(audit[0].action).to.equal('pki_certificate.issue')
      expect(audit[0].after).to.include({ via: 'est', enrolled_by: member })
    })

    it('refuses, issuing nothing: no or wrong credentials (401, WWW-Authenticate), an account outside the EST group (403), a CSR the template forbids or that is not base64 (400)', async () => {
      const before = await issuedCount()
      const csr = readFileSync(path.join(s.dir, b64Csr('/CN=sw2.devices.example.net')))
      const post = (auth: string | null, body: Buffer | string = csr, type = 'application/pkcs10') =>
        fetch(est('simpleenroll'), { method: 'POST', headers: { 'content-type': type, ...(auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {}) }, body: typeof body === 'string' ? body : new Uint8Array(body) })
      for (const auth of [null, `${member}:wrong-password`, `nobody-${uniq('x')}:${PASSWORD}`]) {
        const r = await post(auth)
        expect(r.status, String(auth)).to.equal(401)
        expect(r.headers.get('www-authenticate')).to.match(/^Basic realm="EST"/)
        expect(((await r.json()) as { code: string }).code).to.equal('PKI_EST_CREDENTIALS_REQUIRED')
      }
      const outside = await post(`${outsider}:${PASSWORD}`)
      expect(outside.status).to.equal(403)
      const forbidden = await post(`${member}:${PASSWORD}`, readFileSync(path.join(s.dir, b64Csr('/CN=sw3.elsewhere.example.org'))))
      expect(forbidden.status).to.equal(400)
      expect(((await forbidden.json()) as { code: string }).code).to.equal('PKI_SUBJECT_FORBIDDEN')
      const weak = await post(`${member}:${PASSWORD}`, readFileSync(path.join(s.dir, b64Csr('/CN=sw4.devices.example.net', 'rsa1024'))))
      expect(((await weak.json()) as { code: string }).code).to.equal('PKI_KEY_TOO_WEAK')
      const garbage = await post(`${member}:${PASSWORD}`, '%%% not base64 %%%')
      expect(garbage.status).to.equal(400)
      expect(((await garbage.json()) as { code: string }).code).to.equal('PKI_CSR_INVALID')
      expect((await post(`${member}:${PASSWORD}`, csr, 'application/json')).status).to.equal(415)
      expect(await issuedCount()).to.equal(before)
      const failures = await t.app.db.knex('audit_log').where({ action: 'est.enroll' }).select('after', 'outcome', 'reason')
      expect(failures.map((f) => f.reason)).to.include.members(['bad_credentials', 'not_in_est_group'])
    })

    /** A Basic enrollment of `subject` as `who`: the status and, on a refusal, the code. */
    const enrollAs = async (who: string, subject: string) => {
      const r = await fetch(est('simpleenroll'), {
        method: 'POST',
        headers: { 'content-type': 'application/pkcs10', authorization: `Basic ${Buffer.from(`${who}:${PASSWORD}`).toString('base64')}` },
        body: new Uint8Array(readFileSync(path.join(s.dir, b64Csr(subject)))),
      })
      return { status: r.status, code: r.status === 200 ? null : ((await r.json()) as { code: string }).code }
    }

    it('names only what the enroller may claim: its own user name or a device that is no user, never another user or the administrator (issue 26, 12)', async () => {
      // A template that lets user names through, as one for EAP-TLS users does: the name check is EST's own.
      const open = await createTemplate(t, { name_patterns: ['*'], extended_key_usage: ['clientAuth'] })
      await t.admin('PUT', '/api/v1/settings/pki.est_template_id', { body: { value: open.id } })
      try {
        const before = await issuedCount()
        for (const cn of [outsider, 'admin', 'ADMIN', outsider.toUpperCase()]) {
          expect(await enrollAs(member, `/CN=${cn}`), cn).to.deep.equal({ status: 403, code: 'PKI_EST_SUBJECT_NOT_CLAIMABLE' })
        }
        expect(await issuedCount()).to.equal(before)
        expect(await enrollAs(member, `/CN=${member}`)).to.deep.equal({ status: 200, code: null })
        expect(await enrollAs(member, '/CN=printer7.devices.example.net')).to.deep.equal({ status: 200, code: null })
        expect(await issuedCount()).to.equal(before + 2)
      } finally {
        await t.admin('PUT', '/api/v1/settings/pki.est_template_id', { body: { value: template.id } })
      }
    })

    it('refuses a directory account even with its right directory password (401), as docs/pki.md says (issue 26, 16)', async function () {
      if (!slapdBinary()) skipBecause(this, SLAPD_SKIP)
      const uid = uniq('dirdev')
      const ldap = await startSlapd([{ uid, password: PASSWORD }])
      try {
        for (const [key, value] of Object.entries({ 'directory.url': ldap.url, 'directory.bind_dn': READER.dn, 'directory.bind_password': READER.password, 'directory.user_base_dn': PEOPLE_DN })) {
          expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
        }
        const group = (await t.admin('GET', '/api/v1/settings/pki.est_group_id')).body.value
        expect((await t.admin('POST', '/api/v1/users', { body: { username: uid, source: 'directory', group_ids: [group] } })).status).to.equal(201)
        // The directory knows the password: the API sign-in takes it.
        expect((await t.req('POST', '/api/v1/auth/login', { body: { username: uid, password: PASSWORD } })).status).to.equal(200)
        const before = await issuedCount()
        expect(await enrollAs(uid, '/CN=sw9.devices.example.net')).to.deep.equal({ status: 401, code: 'PKI_EST_CREDENTIALS_REQUIRED' })
        expect(await issuedCount()).to.equal(before)
      } finally {
        await t.admin('PUT', '/api/v1/settings/directory.url', { body: { value: null } })
        await ldap.destroy()
      }
    })
  })
})
