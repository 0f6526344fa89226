/**
 * The CA chain and CRLs in the deployed FreeRADIUS tree (renderer
 * pki.freeradius, beside the radius plugin): nothing until pki.freeradius_ca_id
 * is set; then every release carries certs/portcullis/ca.pem and crl.pem,
 * which openssl uses as FreeRADIUS will (verify -crl_check_all), and a
 * revocation reaches the tree at the next deploy. The release passes
 * FreeRADIUS's own check where the daemon is installed.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { createCa, eapTemplateId, hasOpenssl, issue, Scratch } from './helpers.js'

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

  it('places the chain and the CRLs of the CA and its root; a revocation reaches the tree at the next deploy', async () => {
    const root = await createCa(t)
    const ca = await createCa(t, { parent_id: root.id })
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
})
