/**
 * The CA chain and CRLs in the deployed FreeRADIUS tree (renderer
 * pki.freeradius, beside the radius plugin): nothing until pki.freeradius_ca_id
 * is set; then every release carries certs/portcullis/ca.pem and crl.pem,
 * which openssl uses as FreeRADIUS will (verify -crl_check_all), and a
 * revocation reaches the tree at the next deploy. The release passes
 * FreeRADIUS's own check where the daemon is installed.
 */
import { spawnSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { createCa, eapTemplateId, expectError, hasOpenssl, issue, Scratch } from './helpers.js'

describe('pki: the CA chain and CRLs in the FreeRADIUS tree', function () {
  this.timeout(120_000)
  let t: TestApp
  let s: Scratch
  before(async function () {
    if (!hasOpenssl()) skipBecause(this, 'openssl is not installed (Debian package openssl)')
    t = await startTestApp({ plugins: ['inventory', 'radius', 'pki'] })
    s = new Scratch()
    // Without FreeRADIUS its release cannot be checked: an unchecked release needs deploy.allow_unchecked.
    if (spawnSync('sh', ['-c', 'command -v freeradius']).status !== 0) await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })
  })
  after(async () => {
    await t?.stop()
    s?.remove()
  })

  const current = (file: string) => path.join(t.dataDir, 'releases', 'freeradius', 'current', 'certs', 'portcullis', file)
  const deploy = async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })
    expect(r.status, r.text).to.equal(201)
  }

  it('places nothing while pki.freeradius_ca_id is unset', async () => {
    await deploy()
    expect(existsSync(current('ca.pem'))).to.equal(false)
  })

  // Set by the next test: the CA of pki.freeradius_ca_id and its root.
  let root: any
  let ca: any

  it('places the chain and the CRLs of the CA and its root; a revocation reaches the tree at the next deploy', async () => {
    root = await createCa(t)
    ca = await createCa(t, { parent_id: root.id })
    expect((await t.admin('PUT', '/api/v1/settings/pki.freeradius_ca_id', { body: { value: ca.id } })).status).to.equal(200)
    const client = await issue(t, ca.id, await eapTemplateId(t), s.csr({ subject: '/CN=laptop1.example.net' }).csr)
    s.put('client.pem', client.certificate)
    await deploy()
    expect(readFileSync(current('ca.pem'), 'utf8')).to.equal(ca.certificate + root.certificate)
    expect(readFileSync(current('crl.pem'), 'utf8').match(/BEGIN X509 CRL/g)).to.have.length(2)
    const verify = () => s.openssl(['verify', '-crl_check_all', '-CAfile', current('ca.pem'), '-CRLfile', current('crl.pem'), 'client.pem'])
    expect(verify().status, verify().out).to.equal(0)

    expect((await t.admin('POST', `/api/v1/pki/certificates/${client.id}/revoke`, { body: { reason: 'keyCompromise' } })).status).to.equal(200)
    // The deployed tree still has the CRL of its deploy.
    expect(verify().status).to.equal(0)
    await deploy()
    const after = verify()
    expect(after.status).not.to.equal(0)
    expect(after.out).to.include('certificate revoked')
  })

  it('pki.freeradius_extra_ca_ids: an id that is no CA is refused at its place in the list, nothing changed', async () => {
    const unknown = '00000000-0000-4000-8000-00000000abcd'
    expectError(await t.admin('PUT', '/api/v1/settings/pki.freeradius_extra_ca_ids', { body: { value: [root.id, unknown] } }), 422, 'PKI_CA_NOT_FOUND', 'value[1]')
    expectError(await t.admin('PUT', '/api/v1/settings/pki.freeradius_ca_id', { body: { value: unknown } }), 422, 'PKI_CA_NOT_FOUND', 'value')
    expect((await t.admin('GET', '/api/v1/settings/pki.freeradius_extra_ca_ids')).body.value).to.deep.equal([])
    expect((await t.admin('GET', '/api/v1/settings/pki.freeradius_ca_id')).body.value).to.equal(ca.id)
  })

  it('trusts each CA of pki.freeradius_extra_ca_ids too: every chain once, the CRLs of each, eap-issuer accepts each; taking one off the list is trust removed for a rollback', async () => {
    const root2 = await createCa(t)
    const next = await createCa(t, { parent_id: root2.id })
    const put = async (ids: string[]) => expect((await t.admin('PUT', '/api/v1/settings/pki.freeradius_extra_ca_ids', { body: { value: ids } })).status).to.equal(200)
    // The CA of pki.freeradius_ca_id named again is no second entry.
    await put([next.id, ca.id])
    const a = await issue(t, ca.id, await eapTemplateId(t), s.csr({ subject: '/CN=laptop2.example.net' }).csr)
    const b = await issue(t, next.id, await eapTemplateId(t), s.csr({ subject: '/CN=laptop3.example.net' }).csr)
    s.put('a.pem', a.certificate)
    s.put('b.pem', b.certificate)
    await deploy()
    expect(readFileSync(current('ca.pem'), 'utf8')).to.equal(ca.certificate + root.certificate + next.certificate + root2.certificate)
    expect(readFileSync(current('crl.pem'), 'utf8').match(/BEGIN X509 CRL/g)).to.have.length(4)
    const verify = (f: string) => s.openssl(['verify', '-crl_check_all', '-CAfile', current('ca.pem'), '-CRLfile', current('crl.pem'), f])
    for (const f of ['a.pem', 'b.pem']) expect(verify(f).status, verify(f).out).to.equal(0)
    const issuer = readFileSync(current('eap-issuer'), 'utf8')
    const serial = (pem: string) => new X509Certificate(pem).serialNumber.toLowerCase()
    for (const c of [ca, next]) expect(issuer).to.match(new RegExp(`&TLS-Cert-Serial != "0*${serial(c.certificate)}"`))
    expect(issuer).not.to.match(new RegExp(`"0*${serial(root.certificate)}"`))

    // The root above the CA of pki.freeradius_ca_id named too: its certificate was in ca.pem already, only eap-issuer changes.
    await put([next.id, root.id])
    await deploy()
    const both = (await t.admin('GET', '/api/v1/deploys?daemon=freeradius&status=active')).body.items[0]
    expect(readFileSync(current('eap-issuer'), 'utf8')).to.match(new RegExp(`"0*${serial(root.certificate)}"`))

    await put([])
    await deploy()
    expect(readFileSync(current('ca.pem'), 'utf8')).to.equal(ca.certificate + root.certificate)
    const rb = await t.admin('POST', `/api/v1/deploys/${both.id}/rollback`)
    expect(rb.status, JSON.stringify(rb.body)).to.equal(409)
    expect(rb.body.code).to.equal('DEPLOY_ROLLBACK_REVOKES_ACCESS')
    const cn = (c: any) => new X509Certificate(c.certificate).subject.match(/CN=([^\n]+)/)![1]
    for (const c of [next, root]) expect(rb.body.detail).to.include(cn(c)).and.to.include('no longer trusted')
    expect(rb.body.detail).not.to.include(cn(ca))
  })
})
