/**
 * EST with mutual TLS through the bundled front end (examples/nginx/est-mtls.conf
 * run by the real nginx on loopback): a device enrolled with Basic re-enrolls
 * with its certificate; a revoked certificate, another subject, a forged
 * X-SSL-Client-* or X-Est-Proxy-Key header (through nginx or straight to the
 * API) are refused, and nothing is issued on any of them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { freePort } from '../../../test/kit/postgres.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { createCa, createTemplate, hasOpenssl, Scratch, uniq } from './helpers.js'

const NGINX = '/usr/sbin/nginx'
const PASSWORD = 'Enroll-Device-Pass-42'
const PROXY_KEY = 'p'.repeat(20) + 'roxy-key-for-the-est-front-end'

async function listening(port: number, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1', () => (sock.end(), resolve(true)))
      sock.on('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > until) throw new Error(`nothing listens on ${port}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('pki: EST with mutual TLS through the bundled nginx front end', function () {
  this.timeout(120_000)
  let t: TestApp
  let s: Scratch
  let nginx: ChildProcess | null = null
  let front: string
  let ca: any
  let device: { serial: string; key: string; pem: string }
  before(async function () {
    if (!hasOpenssl()) skipBecause(this, 'openssl is not installed (Debian package openssl)')
    if (!existsSync(NGINX)) skipBecause(this, 'nginx is not installed (Debian package nginx)')
    if (!existsSync('/usr/bin/curl')) skipBecause(this, 'curl is not installed (Debian package curl)')
    t = await startTestApp({ plugins: ['pki'] })
    s = new Scratch()
    const root = await createCa(t)
    ca = await createCa(t, { parent_id: root.id })
    s.put('client-ca.pem', ca.certificate + root.certificate)
    const template = await createTemplate(t, { name_patterns: ['*.devices.example.net'], extended_key_usage: ['clientAuth'] })
    const group = await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('est') } })
    const member = uniq('device')
    await t.admin('POST', '/api/v1/users', { body: { username: member, password: PASSWORD, group_ids: [group.body.id] } })
    for (const [key, value] of Object.entries({ 'pki.est_ca_id': ca.id, 'pki.est_template_id': template.id, 'pki.est_group_id': group.body.id, 'nac.est_enabled': true, 'nac.est_mtls_proxy_secret': PROXY_KEY })) {
      expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
    }

    // The device's first certificate, by Basic.
    const { csr, key } = s.csr({ subject: '/CN=sw9.devices.example.net', name: 'device' })
    const b64 = csr.replace(/-----[^-]+-----/g, '').trim()
    const res = await fetch(`${t.url}/.well-known/est/simpleenroll`, { method: 'POST', headers: { 'content-type': 'application/pkcs10', authorization: `Basic ${Buffer.from(`${member}:${PASSWORD}`).toString('base64')}` }, body: b64 })
    expect(res.status).to.equal(200)
    s.put('device.p7', Buffer.from((await res.text()).replace(/\s+/g, ''), 'base64'))
    s.ok(['pkcs7', '-inform', 'DER', '-in', 'device.p7', '-print_certs', '-out', 'device.pem'])
    device = { serial: s.ok(['x509', '-in', 'device.pem', '-noout', '-serial']).trim().replace('serial=', ''), key, pem: 'device.pem' }

    // The shipped server block, its @…@ filled in, under a minimal main configuration.
    const port = await freePort()
    front = `https://127.0.0.1:${port}`
    s.ok(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'front.key', '-subj', '/CN=127.0.0.1', '-days', '2', '-out', 'front.pem'])
    const server = readFileSync('examples/nginx/est-mtls.conf', 'utf8')
      .replaceAll('@LISTEN@', `127.0.0.1:${port}`)
      .replaceAll('@SERVER_CERT@', path.join(s.dir, 'front.pem'))
      .replaceAll('@SERVER_KEY@', path.join(s.dir, 'front.key'))
      .replaceAll('@CLIENT_CA@', path.join(s.dir, 'client-ca.pem'))
      .replaceAll('@PROXY_KEY@', PROXY_KEY)
      .replaceAll('@UPSTREAM@', t.url)
    expect(server).not.to.match(/@[A-Z_]+@/)
    s.put('est.conf', server)
    mkdirSync(path.join(s.dir, 'tmp'))
    writeFileSync(
      path.join(s.dir, 'nginx.conf'),
      `daemon off;\nmaster_process off;\npid ${s.dir}/nginx.pid;\nerror_log ${s.dir}/error.log warn;\nevents {}\nhttp {\n  access_log off;\n` +
        ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${s.dir}/tmp/${k};\n`).join('') +
        `  include ${s.dir}/est.conf;\n}\n`,
    )
    nginx = spawn(NGINX, ['-e', `${s.dir}/error.log`, '-p', s.dir, '-c', `${s.dir}/nginx.conf`], { stdio: 'ignore' })
    await listening(port)
  })
  after(async () => {
    if (nginx?.pid) nginx.kill('SIGTERM')
    await t?.stop()
    s?.remove()
  })

  /** curl through the front end (asynchronously: the API answers from this process). */
  const curl = (args: string[]): Promise<{ status: string; body: string }> =>
    new Promise((resolve) => {
      const p = spawn('curl', ['-sk', '-o', 'reply', '-w', '%{http_code}', ...args], { cwd: s.dir })
      let out = ''
      p.stdout.on('data', (c: Buffer) => (out += c.toString()))
      p.on('close', () => resolve({ status: out, body: existsSync(path.join(s.dir, 'reply')) ? readFileSync(path.join(s.dir, 'reply'), 'utf8') : '' }))
    })
  const csrFile = (subject: string) => {
    const { csr } = s.csr({ subject })
    return s.put(`${uniq('re')}.b64`, csr.replace(/-----[^-]+-----/g, '').trim() + '\n')
  }
  const reenroll = (extra: string[], csr: string) => curl([...extra, '-H', 'Content-Type: application/pkcs10', '--data-binary', `@${csr}`, `${front}/.well-known/est/simplereenroll`])
  const issuedCount = async () => Number((await t.app.db.knex('pki_certificates').count({ n: '*' }))[0].n)

  it('re-enrolls with the client certificate: a new certificate, same subject, verified by openssl', async () => {
    const r = await reenroll(['--cert', device.pem, '--key', device.key], csrFile('/CN=sw9.devices.example.net'))
    expect(r.status, r.body).to.equal('200')
    s.put('renewed.p7', Buffer.from(r.body.replace(/\s+/g, ''), 'base64'))
    s.ok(['pkcs7', '-inform', 'DER', '-in', 'renewed.p7', '-print_certs', '-out', 'renewed.pem'])
    expect(s.ok(['verify', '-CAfile', 'client-ca.pem', 'renewed.pem'])).to.include('OK')
    expect(s.ok(['x509', '-in', 'renewed.pem', '-noout', '-subject'])).to.include('sw9.devices.example.net')
    const serial = s.ok(['x509', '-in', 'renewed.pem', '-noout', '-serial']).trim().replace('serial=', '')
    expect(serial).not.to.equal(device.serial)
    const old = await t.app.db.knex('pki_certificates').where({ serial: device.serial }).first('id')
    const audit = await t.app.db.knex('audit_log').where({ action: 'pki_certificate.issue' }).whereRaw(`after->>'serial' = ?`, [serial]).first('after')
    expect(audit!.after).to.include({ via: 'est', renews: old!.id })
  })

  it('refuses another subject (400), and forged headers through nginx or straight to the API (403); nothing issued', async () => {
    const before = await issuedCount()
    const other = await reenroll(['--cert', device.pem, '--key', device.key], csrFile('/CN=sw10.devices.example.net'))
    expect(other.status).to.equal('400')
    expect(JSON.parse(other.body).code).to.equal('PKI_EST_SUBJECT_MISMATCH')
    const forged = ['-H', 'X-SSL-Client-Verify: SUCCESS', '-H', `X-SSL-Client-Serial: ${device.serial}`, '-H', 'X-SSL-Client-S-DN: CN=sw9.devices.example.net', '-H', `X-Est-Proxy-Key: ${PROXY_KEY}`]
    // Through the front end without a client certificate: nginx's own values replace the forgery.
    const viaFront = await reenroll(forged, csrFile('/CN=sw9.devices.example.net'))
    expect(viaFront.status, viaFront.body).to.equal('403')
    expect(JSON.parse(viaFront.body).code).to.equal('PKI_EST_CERTIFICATE_REFUSED')
    // Straight to the API with the headers but a wrong proxy key, or none.
    for (const key of ['wrong-key', null]) {
      const headers: Record<string, string> = { 'content-type': 'application/pkcs10', 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-serial': device.serial, ...(key ? { 'x-est-proxy-key': key } : {}) }
      const direct = await fetch(`${t.url}/.well-known/est/simplereenroll`, { method: 'POST', headers, body: readFileSync(path.join(s.dir, csrFile('/CN=sw9.devices.example.net'))).toString() })
      expect(direct.status, String(key)).to.equal(403)
    }
    expect(await issuedCount()).to.equal(before)
  })

  it('refuses a revoked client certificate', async () => {
    const row = await t.app.db.knex('pki_certificates').where({ serial: device.serial }).first('id')
    expect((await t.admin('POST', `/api/v1/pki/certificates/${row!.id}/revoke`, { body: { reason: 'keyCompromise' } })).status).to.equal(200)
    const before = await issuedCount()
    const r = await reenroll(['--cert', device.pem, '--key', device.key], csrFile('/CN=sw9.devices.example.net'))
    expect(r.status).to.equal('403')
    expect(JSON.parse(r.body).detail).to.include('revoked')
    expect(await issuedCount()).to.equal(before)
  })
})
