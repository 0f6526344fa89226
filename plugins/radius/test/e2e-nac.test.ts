/**
 * 802.1X and MAB through the real FreeRADIUS 3.2 (renderers/nac-*.ts), configured through the API and
 * a stand-in NacPolicySource with a hand-built compiled policy: PEAP-MSCHAPv2 and EAP-TLS
 * (eapol_test) accept into the expected VLAN; MAB (radclient) lands a known MAC in its group's
 * VLAN and an unknown one in the default; a wrong password, a revoked certificate (after the CRL is
 * redeployed) and a certificate of a foreign CA are rejected; device administration (PAP, the AAA
 * policy) still works in the same tree; the log lines say the method, the MAC, the rule and the VLAN.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { parseFreeradiusLine, type FreeradiusAuthEvent } from '../../../sdk/logs/freeradius-parse.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { createCa, createTemplate, eapTemplateId } from '../../pki/test/helpers.js'
import { has } from './e2e-support.js'
import { created, NacLab, SECRET } from './e2e-nac-lab.js'
import { setTestNac } from './fixtures/nac-source/index.js'
import { DENY, samplePolicy, vlan } from './nac-fixture.js'
import type { CompiledNacPolicy } from '../../../sdk/nac-policy.js'
import { runsOn } from '../../../test/kit/app.js'

const PRINTERS = 'aaaaaaaa-0000-4000-8000-000000000001'
const CAMERAS = 'aaaaaaaa-0000-4000-8000-000000000002'
const PASSWORD = 'Peap-Secret-123-xyz'

// What FreeRADIUS does with the deployed tree is the same whatever the engine: once per `npm test`, in its embedded run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('radius: 802.1X and MAB against FreeRADIUS (eapol_test, radclient)', function () {
  this.timeout(180_000)
  let lab: NacLab
  let caPem: string
  let client: { cert: any; key: string }
  let clientPem: string
  const certs: Record<string, { file: string; key: string }> = {}

  before(async function () {
    if (!has('freeradius') || !has('radclient') || !has('eapol_test') || !has('openssl')) skipBecause(this, 'FreeRADIUS 3.2, radclient, eapol_test and openssl are needed (Debian: freeradius, freeradius-utils, eapoltest, openssl)')
    lab = await NacLab.open()
    const t = lab.t
    const staff = await created(t, '/api/v1/user-groups', { name: 'staff' })
    const admins = await created(t, '/api/v1/user-groups', { name: 'admins' })
    await created(t, '/api/v1/users', { username: 'alice', password: PASSWORD, network_login: true, group_ids: [staff.id, admins.id] })
    await created(t, '/api/v1/users', { username: 'eve', password: PASSWORD, network_login: true })
    const access = await created(t, '/api/v1/device-groups', { name: 'access' })
    const sw = await created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: access.id, radius_secret: SECRET })
    const admin = await created(t, '/api/v1/radius/profiles', { name: 'admin', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] })
    await created(t, '/api/v1/aaa/policy/rules', { name: 'admins-sw1', who: { group_id: admins.id }, where: { device_id: sw.id }, radius_profile_id: admin.id })

    // The platform CA, trusted for EAP-TLS; the EAP server certificate from it, its key where the server option says.
    const ca = await createCa(t, { subject: { CN: 'NAC Issuing CA', O: 'Portcullis Test' } })
    caPem = path.join(lab.s.dir, 'ca.pem')
    lab.s.put('ca.pem', ca.certificate)
    expect((await t.admin('PUT', '/api/v1/settings/pki.freeradius_ca_id', { body: { value: ca.id } })).status).to.equal(200)
    const server = await lab.issue(ca.id, await eapTemplateId(t), '/CN=radius.example.net', 'DNS:radius.example.net')
    lab.s.put('server.pem', server.cert.certificate)
    lab.s.ok(['x509', '-in', 'server.pem', '-out', lab.certFile])
    lab.s.ok(['pkey', '-in', server.key, '-out', lab.keyFile])
    const userTemplate = await createTemplate(t, { name_patterns: ['*'], subject_attributes: ['CN'], san_types: ['email'] })
    client = await lab.issue(ca.id, userTemplate.id, '/CN=alice', 'email:alice@example.net')
    clientPem = lab.s.put('alice.pem', client.cert.certificate)
    // The account states 802.1X must refuse (issue 26 finding 1), each with a certificate of the platform CA too.
    const user = async (username: string, body: Record<string, unknown>, change?: Record<string, unknown>) => {
      const u = await created(t, '/api/v1/users', { username, ...body })
      if (change) expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: change })).status).to.equal(200)
    }
    await user('dora', { password: PASSWORD, network_login: true }, { enabled: false })
    await user('nell', { password: PASSWORD, network_login: true }, { network_login: false })
    await user('old', { password: PASSWORD, network_login: true, expires_at: new Date(Date.now() - 3600_000).toISOString() })
    await user('fut', { password: PASSWORD, network_login: true, expires_at: new Date(Date.now() + 86400_000).toISOString() })
    await user('nopw', { network_login: true })
    for (const cn of ['dora', 'nell', 'old', 'FUT', 'nopw', 'printer-7.example']) {
      const c = await lab.issue(ca.id, userTemplate.id, `/CN=${cn}`)
      certs[cn] = { file: path.join(lab.s.dir, lab.s.put(`${cn}.pem`, c.cert.certificate)), key: c.key }
    }

    const policy = samplePolicy('NAC Issuing CA')
    setTestNac(
      {
        rules: [
          { ...policy.rules[0], conditions: [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', groups: [{ id: PRINTERS, name: 'printers' }] }] },
          { ...policy.rules[1], conditions: [{ type: 'method', methods: ['peap'] }, { type: 'user_group', groups: [{ id: staff.id, name: 'staff' }] }, { type: 'device_group', groups: [{ id: access.id, name: 'access' }] }] },
          { ...policy.rules[2], authorization: { ...policy.rules[2].authorization, reply: [...policy.rules[2].authorization.reply, { attribute: 'Session-Timeout', value: '3600' }] } },
          { id: 'r4', name: 'cameras', position: 4, conditions: [{ type: 'endpoint_group', groups: [{ id: CAMERAS, name: 'cameras' }] }], authorization: DENY },
          { id: 'r5', name: 'peap-others', position: 5, conditions: [{ type: 'method', methods: ['peap'] }], authorization: vlan('50', 'peap-others') },
        ],
        default: policy.default,
      },
      [
        { mac: '00:11:22:33:44:55', endpoint_group_ids: [PRINTERS], device_type: 'printer' },
        { mac: '00:11:22:33:44:66', endpoint_group_ids: [CAMERAS], device_type: null },
      ],
    )
    await lab.deploy()
  })
  after(async () => lab?.close())

  const lines = (): FreeradiusAuthEvent[] =>
    existsSync(lab.logDir)
      ? readdirSync(lab.logDir)
          .filter((f) => f.startsWith('radius-auth-'))
          .flatMap((f) => readFileSync(path.join(lab.logDir, f), 'utf8').split('\n').filter(Boolean))
          .map((l) => parseFreeradiusLine(l))
          .flatMap((r) => (r.kind === 'auth' ? [r.event] : []))
      : []
  const last = () => lines().at(-1)!

  it('PEAP-MSCHAPv2: a network user in the staff group on a switch of the access group lands in VLAN 10', async () => {
    const r = await lab.peap('alice', PASSWORD, caPem)
    expect(r.ok, r.raw.slice(-3000)).to.equal(true)
    expect(r.vlan).to.equal('10')
    expect(last()).to.include({ result: 'accept', nacMethod: 'peap', nacUser: 'alice', ruleName: 'staff-peap', ruleLabel: 'staff-vlan', vlan: '10', callingStationId: '02-00-00-00-00-01', nasPortType: 'Ethernet' })
  })

  it('PEAP: a user in no rule\'s group takes the next rule; a wrong password and an unknown user are rejected', async () => {
    const other = await lab.peap('eve', PASSWORD, caPem)
    expect(other.ok).to.equal(true)
    expect(other.vlan).to.equal('50')
    const wrong = await lab.peap('alice', 'not-the-password', caPem)
    expect(wrong.ok).to.equal(false)
    expect(last()).to.include({ result: 'reject', nacMethod: 'peap', rejectReason: 'wrong_password' })
    const unknown = await lab.peap('mallory', PASSWORD, caPem)
    expect(unknown.ok).to.equal(false)
    expect(last()).to.include({ result: 'reject', rejectReason: 'unknown_user' })
  })

  it('EAP-TLS: a certificate of the platform CA lands in VLAN 20 with its ACL', async () => {
    const r = await lab.tls('alice', path.join(lab.s.dir, clientPem), client.key, caPem)
    expect(r.ok, r.raw.slice(-3000)).to.equal(true)
    expect(r.vlan).to.equal('20')
    expect(last()).to.include({ result: 'accept', nacMethod: 'eap-tls', nacUser: 'alice', ruleName: 'certs', vlan: '20', filterId: 'corp-acl' })
  })

  /** The Session-Timeouts of eapol_test's Access-Accept (attribute 27, an integer eapol_test dumps in decimal). */
  const sessionTimeout = (raw: string) => [...raw.slice(raw.lastIndexOf('(Access-Accept)')).matchAll(/Attribute 27 \(Session-Timeout\) length=\d+\n\s+Value: ([0-9]+)/g)].map((m) => Number(m[1]))

  it('PEAP: a disabled, network-login-off, expired, password-less or unknown user is refused before the policy, each with its reason', async () => {
    for (const [username, reason] of [['dora', 'disabled'], ['nell', 'network_login_off'], ['old', 'expired'], ['nopw', 'no_network_password'], ['mallory', 'unknown_user']]) {
      const r = await lab.peap(username, PASSWORD, caPem)
      expect(r.ok, username).to.equal(false)
      expect(last(), username).to.include({ result: 'reject', nacMethod: 'peap', nacUser: username, rejectReason: reason, ruleName: null })
    }
  })

  it('PEAP: a user with an expiry is accepted with Session-Timeout the seconds left', async () => {
    const r = await lab.peap('fut', PASSWORD, caPem)
    expect(r.ok, r.raw.slice(-3000)).to.equal(true)
    expect(r.vlan).to.equal('50')
    const [timeout, ...more] = sessionTimeout(r.raw)
    expect(more).to.deep.equal([])
    expect(timeout).to.be.within(86400 - 120, 86400)
    expect(last()).to.include({ result: 'accept', nacMethod: 'peap', nacUser: 'fut', ruleName: 'peap-others' })
  })

  it('EAP-TLS: the certificate of a disabled, network-login-off or expired user is refused before the policy, each with its reason', async () => {
    for (const [cn, reason] of [['dora', 'disabled'], ['nell', 'network_login_off'], ['old', 'expired']]) {
      const r = await lab.tls(cn, certs[cn].file, certs[cn].key, caPem)
      expect(r.ok, `${cn}: ${r.raw.slice(-1500)}`).to.equal(false)
      expect(last(), cn).to.include({ result: 'reject', nacMethod: 'eap-tls', nacUser: cn, rejectReason: reason, ruleName: null })
    }
  })

  it('EAP-TLS: a user\'s certificate (its CN in any case) carries the expiry, never above the profile\'s Session-Timeout; a password-less user\'s and a device certificate take the policy', async () => {
    const fut = await lab.tls('FUT', certs.FUT.file, certs.FUT.key, caPem)
    expect(fut.ok, fut.raw.slice(-3000)).to.equal(true)
    expect(fut.vlan).to.equal('20')
    expect(sessionTimeout(fut.raw)).to.deep.equal([3600])
    const nopw = await lab.tls('nopw', certs.nopw.file, certs.nopw.key, caPem)
    expect(nopw.ok, nopw.raw.slice(-3000)).to.equal(true)
    expect(last()).to.include({ result: 'accept', nacMethod: 'eap-tls', nacUser: 'nopw', ruleName: 'certs' })
    const device = await lab.tls('printer-7', certs['printer-7.example'].file, certs['printer-7.example'].key, caPem)
    expect(device.ok, device.raw.slice(-3000)).to.equal(true)
    expect(device.vlan).to.equal('20')
    expect(last()).to.include({ result: 'accept', nacMethod: 'eap-tls', nacUser: 'printer-7.example', ruleName: 'certs' })
  })

  it('EAP-TLS: a certificate of a foreign CA is rejected', async () => {
    const s = lab.s
    s.ok(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'foreign-ca.key', '-out', 'foreign-ca.pem', '-subj', '/CN=NAC Issuing CA', '-days', '30'])
    s.ok(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'foreign.key', '-out', 'foreign.csr', '-subj', '/CN=alice'])
    s.ok(['x509', '-req', '-in', 'foreign.csr', '-CA', 'foreign-ca.pem', '-CAkey', 'foreign-ca.key', '-CAcreateserial', '-out', 'foreign.pem', '-days', '30'])
    const r = await lab.tls('alice', path.join(s.dir, 'foreign.pem'), path.join(s.dir, 'foreign.key'), caPem)
    expect(r.ok).to.equal(false)
    expect(last()).to.include({ result: 'reject', nacMethod: 'eap-tls', rejectReason: 'eap_failed' })
  })

  it('MAB: a known MAC in any notation lands in its group\'s VLAN, an unknown MAC in the default, a denied group is rejected', async () => {
    for (const mac of ['00-11-22-33-44-55', '0011.2233.4455', '00:11:22:33:44:55']) {
      const r = await lab.mab(mac)
      expect(r.code, r.raw).to.equal('Access-Accept')
      expect(r.attributes.filter((a) => a.name === 'Tunnel-Private-Group-Id').map((a) => a.value)).to.deep.equal(['30'])
    }
    expect(last()).to.include({ result: 'accept', nacMethod: 'mab', ruleName: 'printers', vlan: '30', nasPortId: 'Gi1/0/7', nasPortType: 'Ethernet' })
    const unknown = await lab.mab('AA-BB-CC-DD-EE-F0')
    expect(unknown.code).to.equal('Access-Accept')
    expect(unknown.attributes.filter((a) => a.name === 'Tunnel-Private-Group-Id').map((a) => a.value)).to.deep.equal(['99'])
    expect(last()).to.include({ ruleName: 'default', vlan: '99' })
    // Without Call-Check: the User-Name is the same MAC in another notation.
    const plain = await lab.mab('00-11-22-33-44-55', { callCheck: false, user: '0011.2233.4455' })
    expect(plain.attributes.filter((a) => a.name === 'Tunnel-Private-Group-Id').map((a) => a.value)).to.deep.equal(['30'])
    // A User-Name that is not the Calling-Station-Id's MAC is no MAB: device administration, which knows no such user.
    const other = await lab.mab('00-11-22-33-44-55', { callCheck: false, user: '001122334499' })
    expect(other.code).to.equal('Access-Reject')
    expect(last()).to.include({ nacMethod: null, rejectReason: 'unknown_user' })
    const camera = await lab.mab('00-11-22-33-44-66')
    expect(camera.code).to.equal('Access-Reject')
    expect(last()).to.include({ result: 'reject', nacMethod: 'mab', ruleName: 'cameras', rejectReason: 'nac_denied' })
  })

  it('device administration still works in the same tree: PAP through the AAA policy', async () => {
    const r = await lab.pap('alice', PASSWORD)
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(r.attributes.find((a) => a.name === 'Service-Type')?.value).to.equal('Administrative-User')
    expect(last()).to.include({ result: 'accept', ruleName: 'admins-sw1', nacMethod: null })
    expect((await lab.pap('alice', 'wrong')).code).to.equal('Access-Reject')
  })

  it('EAP-TLS: a revoked certificate is rejected once the CRL is redeployed', async () => {
    expect((await lab.t.admin('POST', `/api/v1/pki/certificates/${client.cert.id}/revoke`, { body: { reason: 'keyCompromise' } })).status).to.equal(200)
    await lab.deploy()
    const r = await lab.tls('alice', path.join(lab.s.dir, clientPem), client.key, caPem)
    expect(r.ok).to.equal(false)
    expect(last()).to.include({ result: 'reject', nacMethod: 'eap-tls', rejectReason: 'eap_failed' })
    expect(last().reason).to.include('revoked')
  })

  // Set by the next test: the named CA's client certificate (EAP-TLS through a CA whose CN holds every special character),
  // and the sibling CA with certificates of it and of the root, each with the chain the client sends.
  let namedClient: { file: string; key: string } | undefined
  let siblingCa: { id: string } | undefined
  const others: Record<'root' | 'sibling', { file: string; key: string }> = {} as never

  it('EAP-TLS trusts exactly the CA of pki.freeradius_ca_id: not one the root above it or a sibling CA signed, even with the sibling\'s CRL present', async () => {
    const t = lab.t
    // A root, the issuing CA the setting names (its CN holds every printable special character, "+" and "/" which
    // OpenSSL escapes in a one-line DN among them) and a sibling issuing CA under the same root.
    const weird = 'R+D/Lab "q" \\ $% \'{}~!#&()*,-.:;<=>?@[]^_`| CA'
    const root = await createCa(t, { subject: { CN: 'NAC Trust Root', O: 'Portcullis Test' } })
    const named = await createCa(t, { parent_id: root.id, subject: { CN: weird, O: 'Portcullis Test' } })
    const sibling = await createCa(t, { parent_id: root.id, subject: { CN: 'NAC Sibling CA', O: 'Portcullis Test' } })
    expect((await t.admin('PUT', '/api/v1/settings/pki.freeradius_ca_id', { body: { value: named.id } })).status).to.equal(200)
    const tpl = await createTemplate(t, { name_patterns: ['*'], subject_attributes: ['CN'], san_types: ['email', 'dns'] })
    const good = await lab.issue(named.id, tpl.id, '/CN=alice', 'email:first@example.net,email:second@example.net,DNS:a.example.net,DNS:b.example.net')
    const fromRoot = await lab.issue(root.id, tpl.id, '/CN=alice', 'email:second@example.net')
    const fromSibling = await lab.issue(sibling.id, tpl.id, '/CN=alice', 'email:second@example.net')
    const cert = (name: string, c: { cert: any }, chain: string) => path.join(lab.s.dir, lab.s.put(`${name}.pem`, c.cert.certificate + chain))

    const issuer = { type: 'certificate', field: 'issuer_cn', values: ['some other ca', weird.toUpperCase()] } as const
    const san = { type: 'certificate', field: 'san_email', values: ['SECOND@example.NET'] } as const
    const policy: CompiledNacPolicy = {
      rules: [
        { id: 't1', name: 'issuer-and-san', position: 1, conditions: [issuer, san], authorization: vlan('61', 'both') },
        { id: 't2', name: 'issuer-only', position: 2, conditions: [issuer], authorization: vlan('62', 'issuer') },
        { id: 't3', name: 'san-only', position: 3, conditions: [san], authorization: vlan('63', 'san') },
      ],
      default: { id: 't0', name: 'default', authorization: vlan('99', 'guest') },
    }
    setTestNac(policy, [])
    // The sibling's CRL in the trust file too: it must be refused for its issuer, not for a missing CRL.
    const siblingCrl = (await t.app.db.knex('pki_cas').where({ id: sibling.id }).first('crl_der'))?.crl_der as Buffer
    expect(siblingCrl, 'the sibling CA has a CRL').to.be.instanceOf(Buffer)
    const pem = `-----BEGIN X509 CRL-----\n${siblingCrl.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END X509 CRL-----\n`
    await lab.deploy((files) => files.map((f) => (f.path === 'certs/portcullis/ca-crl.pem' ? { ...f, content: f.content + pem } : f)))

    namedClient = { file: cert('named', good, named.certificate), key: good.key }
    expect((await lab.tls('alice', namedClient.file, namedClient.key, caPem)).ok, JSON.stringify(last())).to.equal(true)

    siblingCa = sibling
    others.root = { file: cert('the-root', fromRoot, ''), key: fromRoot.key }
    others.sibling = { file: cert('a-sibling-issuing-CA', fromSibling, sibling.certificate), key: fromSibling.key }
    for (const [what, c] of [['the root', others.root], ['a sibling issuing CA', others.sibling]] as const) {
      const r = await lab.tls('alice', c.file, c.key, caPem)
      expect(r.ok, `a certificate from ${what}`).to.equal(false)
      expect(last(), what).to.include({ result: 'reject', nacMethod: 'eap-tls', rejectReason: 'eap_failed' })
      expect(last().reason, what).to.include('not issued by a CA FreeRADIUS trusts')
    }
  })

  it('EAP-TLS: issuer_cn matches an issuer CN holding every printable special character ("+" and "/" too), ASCII-caseless; a SAN condition matches the second SAN of its type', async () => {
    expect(namedClient, 'the certificate the previous test issued').to.not.equal(undefined)
    const r = await lab.tls('alice', namedClient!.file, namedClient!.key, caPem)
    expect(r.ok, JSON.stringify(last())).to.equal(true)
    expect(r.vlan).to.equal('61')
    expect(last()).to.include({ result: 'accept', nacMethod: 'eap-tls', ruleName: 'issuer-and-san' })
  })

  it('EAP-TLS trusts a CA of pki.freeradius_extra_ca_ids too, exactly: the sibling CA added (its CRL carried by the release), not the root above it; taken off again, refused', async () => {
    expect(siblingCa, 'the sibling CA the trust test made').to.not.equal(undefined)
    const extra = async (ids: string[]) => expect((await lab.t.admin('PUT', '/api/v1/settings/pki.freeradius_extra_ca_ids', { body: { value: ids } })).status).to.equal(200)
    await extra([siblingCa!.id])
    await lab.deploy()
    const accepted = await lab.tls('alice', others.sibling.file, others.sibling.key, caPem)
    expect(accepted.ok, JSON.stringify(last())).to.equal(true)
    expect(last()).to.include({ result: 'accept', nacMethod: 'eap-tls', ruleName: 'san-only' })
    expect(accepted.vlan).to.equal('63')
    // The CA of pki.freeradius_ca_id is still trusted beside it; the root above both is not.
    expect((await lab.tls('alice', namedClient!.file, namedClient!.key, caPem)).ok, JSON.stringify(last())).to.equal(true)
    expect((await lab.tls('alice', others.root.file, others.root.key, caPem)).ok, 'a certificate the root signed').to.equal(false)
    expect(last().reason).to.include('not issued by a CA FreeRADIUS trusts')

    await extra([])
    await lab.deploy()
    expect((await lab.tls('alice', others.sibling.file, others.sibling.key, caPem)).ok, 'the sibling taken off the list').to.equal(false)
    expect(last()).to.include({ result: 'reject', nacMethod: 'eap-tls', rejectReason: 'eap_failed' })
  })
})
