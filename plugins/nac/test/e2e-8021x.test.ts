/**
 * NAC end to end, configured through the API only (issue 16): users, a switch, endpoint groups and
 * endpoints, authorization profiles, NAC rules and the PKI, deployed with `POST /api/v1/deploys`
 * (which runs `freeradius -C`), the real FreeRADIUS started on the active release. eapol_test
 * (PEAP-MSCHAPv2, EAP-TLS with a certificate the PKI issued) and radclient (MAB) play the switch;
 * the policy test answers what the daemon did; a revoked certificate is refused after the CRL is
 * redeployed; the log rows arrive through the ingester; a CoA reaches a loopback NAS when an
 * endpoint moves group; a rollback never puts back an endpoint taken out of its group.
 */
import { readlinkSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { skipBecause } from '../../../test/kit/skip.js'
import { createCa, createTemplate, eapTemplateId } from '../../pki/test/helpers.js'
import { has, startFreeradius } from '../../radius/test/e2e-support.js'
import { created, NacLab, SECRET, setSetting } from '../../radius/test/e2e-nac-lab.js'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { runsOn } from '../../../test/kit/app.js'
import { nacImpactRound } from './impact-differential.js'

const PASSWORD = 'Nac-E2e-Secret-123'
const PRINTER = '00:11:22:33:44:55'
const PORTAL_URL = 'https://nac.example.com/portal/lobby'
const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'pki', 'nac']

describe('nac: 802.1X and MAB end to end, configured through the API (FreeRADIUS, eapol_test, radclient, CoA)', function () {
  this.timeout(240_000)
  let lab: NacLab
  let caPem: string
  let client: { cert: any; key: string }
  let clientPem: string
  let sw: any
  let phones: any
  let printers: any
  let printerId: string
  let userTemplateId: string
  let caId: string

  before(async function () {
    if (!has('freeradius') || !has('radclient') || !has('eapol_test') || !has('openssl')) skipBecause(this, 'FreeRADIUS 3.2, radclient, eapol_test and openssl are needed (Debian: freeradius, freeradius-utils, eapoltest, openssl)')
    lab = await NacLab.open({ plugins: PLUGINS })
    const t = lab.t
    await setSetting(t, 'aaa-logs.poll_ms', 20)
    const staff = await created(t, '/api/v1/user-groups', { name: 'staff' })
    await created(t, '/api/v1/users', { username: 'alice', password: PASSWORD, network_login: true, group_ids: [staff.id] })
    await created(t, '/api/v1/users', { username: 'eve', password: PASSWORD, network_login: true })
    const access = await created(t, '/api/v1/device-groups', { name: 'access' })
    sw = await created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: access.id, radius_secret: SECRET })
    printers = await created(t, '/api/v1/nac/endpoint-groups', { name: 'printers' })
    phones = await created(t, '/api/v1/nac/endpoint-groups', { name: 'phones' })
    printerId = (await created(t, '/api/v1/nac/endpoints', { mac: '0011.2233.4455', endpoint_group_id: printers.id, description: 'printer, 2nd floor' })).id

    const profile = (name: string, body: Record<string, unknown>) => created(t, '/api/v1/nac/authorization-profiles', { name, ...body })
    const printerVlan = await profile('printers-vlan', { vlan: 30 })
    const phoneVlan = await profile('phones-vlan', { vlan: 40 })
    const staffVlan = await profile('staff-vlan', { vlan: 10 })
    const certVlan = await profile('cert-vlan', { vlan: 20, acl: 'corp-acl' })
    const guest = await profile('guest', { vlan: 'guest' })
    const portal = await profile('portal', { cisco_url_redirect: PORTAL_URL, cisco_url_redirect_acl: 'PORTAL-REDIRECT', portal_redirect: true })
    const rule = (name: string, conditions: unknown[], authorization_profile_id: string) => created(t, '/api/v1/nac/policy/rules', { name, conditions, authorization_profile_id })
    await rule('printers', [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', group_ids: [printers.id] }], printerVlan.id)
    await rule('phones', [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', group_ids: [phones.id] }], phoneVlan.id)
    await rule('staff-peap', [{ type: 'method', methods: ['peap'] }, { type: 'user_group', group_ids: [staff.id] }, { type: 'device_group', group_ids: [access.id] }], staffVlan.id)
    await rule('certificates', [{ type: 'method', methods: ['eap-tls'] }, { type: 'certificate', field: 'issuer_cn', values: ['NAC E2E Issuing CA'] }], certVlan.id)
    // Unknown devices on the guest SSID go to the captive portal.
    await rule('guest-portal', [{ type: 'method', methods: ['mab'] }, { type: 'nas_port_type', values: ['Wireless-802.11'] }], portal.id)
    const rules = (await t.admin('GET', '/api/v1/nac/policy/rules')).body
    const def = (rules.items ?? rules).find((r: any) => r.is_default)
    expect((await t.admin('PUT', `/api/v1/nac/policy/rules/${def.id}`, { body: { authorization_profile_id: guest.id } })).status).to.equal(200)

    const ca = await createCa(t, { subject: { CN: 'NAC E2E Issuing CA', O: 'Portcullis Test' } })
    caPem = path.join(lab.s.dir, lab.s.put('ca.pem', ca.certificate))
    await setSetting(t, 'pki.freeradius_ca_id', ca.id)
    const server = await lab.issue(ca.id, await eapTemplateId(t), '/CN=radius.example.net', 'DNS:radius.example.net')
    lab.s.put('server.pem', server.cert.certificate)
    lab.s.ok(['x509', '-in', 'server.pem', '-out', lab.certFile])
    lab.s.ok(['pkey', '-in', server.key, '-out', lab.keyFile])
    const userTemplate = await createTemplate(t, { name_patterns: ['*'], subject_attributes: ['CN'], san_types: ['email'] })
    userTemplateId = userTemplate.id
    caId = ca.id
    client = await lab.issue(ca.id, userTemplate.id, '/CN=alice', 'email:alice@example.net')
    clientPem = path.join(lab.s.dir, lab.s.put('alice.pem', client.cert.certificate))
    await lab.deployThroughApi()
  })
  after(async () => lab?.close())

  /** What the policy test says for a request, by rule name and VLAN. */
  async function policyTest(body: Record<string, unknown>): Promise<{ rule: string; decision: string; vlan: string | null }> {
    const r = await lab.t.admin('POST', '/api/v1/nac/policy/test', { body: { nas: sw.id, nas_port_type: 'Ethernet', ...body } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return { rule: r.body.rule.name, decision: r.body.decision, vlan: r.body.reply.find((a: any) => a.attribute === 'Tunnel-Private-Group-Id')?.value ?? null }
  }

  it('PEAP-MSCHAPv2: staff on an access switch lands in VLAN 10, as the policy test says; a wrong password is refused', async () => {
    const r = await lab.peap('alice', PASSWORD, caPem)
    expect(r.ok, r.raw.slice(-2000)).to.equal(true)
    expect(r.vlan).to.equal('10')
    expect(await policyTest({ method: 'peap', username: 'alice', mac: '02-00-00-00-00-01' })).to.deep.equal({ rule: 'staff-peap', decision: 'accept', vlan: '10' })
    const other = await lab.peap('eve', PASSWORD, caPem)
    expect(other.ok).to.equal(true)
    expect(other.vlan).to.equal('guest')
    expect(await policyTest({ method: 'peap', username: 'eve', mac: '02-00-00-00-00-01' })).to.deep.equal({ rule: 'default', decision: 'accept', vlan: 'guest' })
    expect((await lab.peap('alice', 'not-the-password', caPem)).ok).to.equal(false)
  })

  it('EAP-TLS: a certificate the PKI issued lands in VLAN 20; a foreign CA\'s is refused', async () => {
    const r = await lab.tls('alice', clientPem, client.key, caPem)
    expect(r.ok, r.raw.slice(-2000)).to.equal(true)
    expect(r.vlan).to.equal('20')
    expect(await policyTest({ method: 'eap-tls', username: 'alice', mac: '02-00-00-00-00-01', certificate: { issuer_cn: 'NAC E2E Issuing CA' } })).to.deep.equal({ rule: 'certificates', decision: 'accept', vlan: '20' })
    const s = lab.s
    s.ok(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'foreign-ca.key', '-out', 'foreign-ca.pem', '-subj', '/CN=NAC E2E Issuing CA', '-days', '30'])
    s.ok(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'foreign.key', '-out', 'foreign.csr', '-subj', '/CN=alice'])
    s.ok(['x509', '-req', '-in', 'foreign.csr', '-CA', 'foreign-ca.pem', '-CAkey', 'foreign-ca.key', '-CAcreateserial', '-out', 'foreign.pem', '-days', '30'])
    expect((await lab.tls('alice', path.join(s.dir, 'foreign.pem'), path.join(s.dir, 'foreign.key'), caPem)).ok).to.equal(false)
  })

  it('MAB: the known printer lands in its group\'s VLAN, an unknown MAC in the default (guest)', async () => {
    const known = await lab.mab('00-11-22-33-44-55')
    expect(known.code, known.raw).to.equal('Access-Accept')
    expect(known.attributes.filter((a) => a.name === 'Tunnel-Private-Group-Id').map((a) => a.value)).to.deep.equal(['30'])
    expect(await policyTest({ method: 'mab', mac: PRINTER })).to.deep.equal({ rule: 'printers', decision: 'accept', vlan: '30' })
    const unknown = await lab.mab('AA-BB-CC-DD-EE-F0')
    expect(unknown.code).to.equal('Access-Accept')
    expect(unknown.attributes.filter((a) => a.name === 'Tunnel-Private-Group-Id').map((a) => a.value)).to.deep.equal(['guest'])
  })

  it('MAB into a portal_redirect profile: the url-redirect carries mac, nas, ssid and a sig the NAC service accepts; a changed value or no sig is not vouched for', async () => {
    const { nacServiceRef } = await import('../api.js')
    const nac = lab.t.app.resolveDeps('nac', { nac: nacServiceRef }).nac
    const wifi = (mac: string, extra: string[]) => lab.mab(mac, { portType: 'Wireless-802.11', extra })
    const r = await wifi('AA-BB-CC-DD-EE-F1', ['NAS-IP-Address = 127.0.0.1', 'Called-Station-Id = "aa-bb-cc-dd-ee-ff:Guest WiFi"'])
    expect(r.code, r.raw).to.equal('Access-Accept')
    const avpairs = r.attributes.filter((a) => a.name === 'Cisco-AVPair').map((a) => a.value)
    expect(avpairs).to.include('url-redirect-acl=PORTAL-REDIRECT')
    const redirect = avpairs.find((v) => v.startsWith('url-redirect='))!
    expect(redirect, r.raw).to.match(/^url-redirect=https:\/\/nac\.example\.com\/portal\/lobby\?mac=aa:bb:cc:dd:ee:f1&nas=127\.0\.0\.1&ssid=aa-bb-cc-dd-ee-ff%3AGuest%20WiFi&sig=[0-9a-f]{40}$/)
    const url = new URL(redirect.slice('url-redirect='.length))
    const q = Object.fromEntries(url.searchParams)
    expect(q).to.include({ mac: 'aa:bb:cc:dd:ee:f1', nas: '127.0.0.1', ssid: 'aa-bb-cc-dd-ee-ff:Guest WiFi' })
    expect(await nac.verifyPortalRedirect(q)).to.deep.equal({ mac: 'aa:bb:cc:dd:ee:f1', nas_ip: '127.0.0.1', ssid: 'Guest WiFi', signed: true })
    expect(await nac.verifyPortalRedirect({ ...q, mac: 'aa:bb:cc:dd:ee:f2' }), 'another MAC').to.equal(null)
    expect(await nac.verifyPortalRedirect({ ...q, nas: '127.0.0.2' }), 'another NAS').to.equal(null)
    expect(await nac.verifyPortalRedirect({ ...q, ssid: 'aa-bb-cc-dd-ee-ff:Staff' }), 'another SSID').to.equal(null)
    const { sig: _sig, ...unsigned } = q
    expect(await nac.verifyPortalRedirect(unsigned)).to.deep.equal({ mac: 'aa:bb:cc:dd:ee:f1', nas_ip: '127.0.0.1', ssid: 'Guest WiFi', signed: false })
    // No NAS-IP-Address nor SSID (a wired-style request): empty parameters, still signed.
    const bare = await wifi('AA-BB-CC-DD-EE-F3', [])
    const bareUrl = new URL(bare.attributes.find((a) => a.name === 'Cisco-AVPair' && a.value.startsWith('url-redirect='))!.value.slice('url-redirect='.length))
    expect(await nac.verifyPortalRedirect(Object.fromEntries(bareUrl.searchParams))).to.deep.equal({ mac: 'aa:bb:cc:dd:ee:f3', nas_ip: null, ssid: null, signed: true })
    // The policy test says the same profile, the url-redirect marked as carrying the session.
    const tested = await lab.t.admin('POST', '/api/v1/nac/policy/test', { body: { nas: sw.id, nas_port_type: 'Wireless-802.11', method: 'mab', mac: 'aa:bb:cc:dd:ee:f1' } })
    expect(tested.body.rule.name, JSON.stringify(tested.body)).to.equal('guest-portal')
    expect(tested.body.reply).to.deep.include({ attribute: 'Cisco-AVPair', value: `url-redirect=${PORTAL_URL}`, portal_session: true })
  })

  it('the log rows arrive through the ingester: method, MAC, the NAC rule and the VLAN given', async () => {
    const end = Date.now() + 15_000
    let rows: any[] = []
    while (Date.now() < end) {
      const r = await lab.t.admin('GET', '/api/v1/aaa/logs/radius/authentication?per_page=100&sort_by=timestamp&sort_order=desc')
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      rows = r.body.items
      if (rows.some((x) => x.rule_name === 'printers')) break
      await new Promise((res) => setTimeout(res, 100))
    }
    const mab = rows.find((x) => x.rule_name === 'printers')
    expect(mab, JSON.stringify(rows.slice(0, 3))).to.not.equal(undefined)
    expect(mab).to.include({ status: 'accept', auth_type: 'MAB', calling_station_id: '00-11-22-33-44-55' })
    expect(mab.reply_attributes).to.deep.include({ name: 'Tunnel-Private-Group-Id', value: '30' })
    // The user who authenticated (PEAP's inner identity), not the outer `anonymous`.
    expect(rows.find((x) => x.rule_name === 'staff-peap')).to.include({ status: 'accept', username: 'alice', auth_type: 'PEAP' })
    expect(rows.find((x) => x.rule_name === 'certificates')).to.include({ status: 'accept', username: 'alice', auth_type: 'EAP-TLS' })
  })

  it('sessions arrive from accounting through the ingester, with the VLAN the accept gave; the endpoint was seen', async () => {
    const session = ['Calling-Station-Id = "00-11-22-33-44-55"', 'User-Name = "001122334455"', 'Acct-Session-Id = "e2e-0001"', 'NAS-Port-Id = "Gi1/0/7"', 'NAS-Port-Type = Ethernet', 'Acct-Interim-Interval = 600']
    expect((await lab.acct(['Acct-Status-Type = Start', ...session])).code).to.equal('Accounting-Response')
    const find = async (state: string) => {
      const end = Date.now() + 15_000
      for (;;) {
        const r = await lab.t.admin('GET', `/api/v1/nac/sessions?mac=${encodeURIComponent(PRINTER)}`)
        expect(r.status, JSON.stringify(r.body)).to.equal(200)
        const s = r.body.items.find((x: any) => x.state === state)
        if (s) return s
        if (Date.now() > end) throw new Error(`no ${state} session: ${JSON.stringify(r.body.items)}`)
        await new Promise((res) => setTimeout(res, 100))
      }
    }
    const live = await find('live')
    expect(live).to.include({ vlan: '30' })
    expect((await lab.acct(['Acct-Status-Type = Stop', ...session, 'Acct-Session-Time = 60', 'Acct-Input-Octets = 1000', 'Acct-Output-Octets = 2000'])).code).to.equal('Accounting-Response')
    const ended = await find('ended')
    expect(ended).to.include({ vlan: '30' })
    const endpoint = (await lab.t.admin('GET', `/api/v1/nac/endpoints/${printerId}`)).body
    expect(endpoint).to.include({ last_nas_ip: '127.0.0.1', last_auth_result: 'accept' })
  })

  it('a CoA reaches the switch when the printer moves to the phones group, once the deploy carrying the move is active; it then lands in VLAN 40', async () => {
    const nas = await LoopbackNas.start('127.0.0.1', SECRET)
    try {
      expect((await lab.t.admin('PUT', `/api/v1/nac/coa-nas/${sw.id}`, { body: { port: nas.port } })).status).to.be.oneOf([200, 201])
      // The switch saw the printer (the ingester recorded its last NAS from the MAB above).
      const end = Date.now() + 15_000
      while ((await lab.t.admin('GET', `/api/v1/nac/endpoints/${printerId}`)).body.last_nas_ip === null && Date.now() < end) await new Promise((r) => setTimeout(r, 100))
      expect((await lab.t.admin('PUT', `/api/v1/nac/endpoints/${printerId}`, { body: { endpoint_group_id: phones.id } })).status).to.equal(200)
      // FreeRADIUS still answers from the tree without the move: the CoA waits for the deploy.
      await new Promise((r) => setTimeout(r, 1000))
      expect(nas.received).to.have.length(0)
      await lab.deployThroughApi()
      const [coa] = await nas.waitFor(1, 10_000)
      expect(coa.signed).to.equal(true)
      expect(String(coa.attributes['Calling-Station-Id'])).to.equal('00-11-22-33-44-55')
      const moved = await lab.mab('00-11-22-33-44-55')
      expect(moved.attributes.filter((a) => a.name === 'Tunnel-Private-Group-Id').map((a) => a.value)).to.deep.equal(['40'])
      expect(await policyTest({ method: 'mab', mac: PRINTER })).to.deep.equal({ rule: 'phones', decision: 'accept', vlan: '40' })
    } finally {
      nas.close()
    }
  })

  it("EAP-TLS: a deleted user's certificate is revoked, never a device certificate: refused after the next deploy", async () => {
    const t = lab.t
    const frank = await created(t, '/api/v1/users', { username: 'frank', password: PASSWORD, network_login: true })
    const cert = await lab.issue(caId, userTemplateId, '/CN=frank', 'email:frank@example.net')
    const pem = path.join(lab.s.dir, lab.s.put('frank.pem', cert.cert.certificate))
    await lab.deployThroughApi()
    const admitted = await lab.tls('frank', pem, cert.key, caPem)
    expect(admitted.ok, admitted.raw.slice(-2000)).to.equal(true)
    expect((await t.admin('DELETE', `/api/v1/users/${frank.id}`)).status).to.equal(204)
    expect((await t.admin('GET', `/api/v1/pki/certificates/${cert.cert.id}`)).body).to.include({ status: 'revoked', revocation_reason: 'cessationOfOperation' })
    await lab.deployThroughApi()
    // Without the revocation the certificate names no user: the "certificates" rule (issuer only) would admit it as a device's.
    expect((await lab.tls('frank', pem, cert.key, caPem)).ok).to.equal(false)
  })

  it('EAP-TLS: the certificate is refused once revoked and the CRL redeployed; a rollback to the release before the revocation is refused naming it, and the daemon still refuses', async () => {
    const before = (await lab.t.admin('GET', '/api/v1/deploys?daemon=freeradius&status=active')).body.items[0]
    const revoked = await lab.t.admin('POST', `/api/v1/pki/certificates/${client.cert.id}/revoke`, { body: { reason: 'keyCompromise' } })
    expect(revoked.status).to.equal(200)
    await lab.deployThroughApi()
    expect((await lab.tls('alice', clientPem, client.key, caPem)).ok).to.equal(false)
    // The earlier release's trust file holds the CRL without it: FreeRADIUS would take the certificate again (issue 26, 15).
    const rb = await lab.t.admin('POST', `/api/v1/deploys/${before.id}/rollback`)
    expect(rb.status, JSON.stringify(rb.body)).to.equal(409)
    expect(rb.body.code).to.equal('DEPLOY_ROLLBACK_REVOKES_ACCESS')
    // The CRL's revocation date has whole seconds.
    const at = new Date(Math.floor(Date.parse(revoked.body.revoked_at) / 1000) * 1000).toISOString()
    expect(rb.body.detail).to.include(`revoked since: certificate ${client.cert.serial} revoked at ${at}. Nothing was changed`)
    expect((await lab.t.admin('GET', `/api/v1/deploys/${before.id}`)).body.status).to.equal('superseded')
    expect((await lab.tls('alice', clientPem, client.key, caPem)).ok).to.equal(false)
  })

  it('MAB: a rollback to a release that placed an endpoint in a group it has left since is refused naming the MAC; an endpoint added or moved since does not refuse', async () => {
    const t = lab.t
    const vlan = async (mac: string) => (await lab.mab(mac)).attributes.filter((a) => a.name === 'Tunnel-Private-Group-Id').map((a) => a.value)
    const active = async () => (await t.admin('GET', '/api/v1/deploys?daemon=freeradius&status=active')).body.items[0]
    const current = () => path.basename(readlinkSync(path.join(t.dataDir, 'releases', 'freeradius', 'current')))
    // A guest's camera the portal (or an administrator) put in the printers group.
    const camera = await created(t, '/api/v1/nac/endpoints', { mac: '02-AA-00-00-00-01', endpoint_group_id: printers.id, description: 'guest camera' })
    await lab.deployThroughApi()
    const first = await active()
    expect(await vlan('02-AA-00-00-00-01')).to.deep.equal(['30'])

    // Its access ends: out of the group, deployed; MAB now gives it the default.
    const out = await t.admin('PUT', `/api/v1/nac/endpoints/${camera.id}`, { body: { endpoint_group_id: null } })
    expect(out.status, JSON.stringify(out.body)).to.equal(200)
    await lab.deployThroughApi()
    const second = await active()
    expect(await vlan('02-AA-00-00-00-01')).to.deep.equal(['guest'])

    const rb = await t.admin('POST', `/api/v1/deploys/${first.id}/rollback`)
    expect(rb.status, JSON.stringify(rb.body)).to.equal(409)
    expect(rb.body.code).to.equal('DEPLOY_ROLLBACK_REVOKES_ACCESS')
    expect(rb.body.detail).to.include(`revoked since: endpoint 02:aa:00:00:00:01 taken out of every endpoint group or deleted. Nothing was changed`)
    const ru = await t.admin('POST', `/api/v1/deploys/${first.id}/rollback`, { headers: { 'accept-language': 'ru' } })
    expect(ru.status).to.equal(409)
    expect(ru.body.detail).to.include('оконечное устройство 02:aa:00:00:00:01 исключено из всех групп оконечных устройств или удалено')
    // Nothing changed: the same release active and `current`, the camera still on the default.
    expect((await active()).id).to.equal(second.id)
    expect(current()).to.equal(second.release)
    expect((await t.admin('GET', `/api/v1/deploys/${first.id}`)).body.status).to.equal('superseded')
    expect(await vlan('02-AA-00-00-00-01')).to.deep.equal(['guest'])

    // A device added since (absent from the second release) and one moved between groups (printers → phones earlier, back now) are not revocations.
    await created(t, '/api/v1/nac/endpoints', { mac: '02-AA-00-00-00-02', endpoint_group_id: printers.id })
    expect((await t.admin('PUT', `/api/v1/nac/endpoints/${printerId}`, { body: { endpoint_group_id: printers.id } })).status).to.equal(200)
    await lab.deployThroughApi()
    expect(await vlan('00-11-22-33-44-55')).to.deep.equal(['30'])
    const back = await t.admin('POST', `/api/v1/deploys/${second.id}/rollback`)
    expect(back.status, JSON.stringify(back.body)).to.equal(200)
    expect(current()).to.equal(second.release)
    // The daemon on the release rolled back to: the printer in phones again, the new device unknown there.
    await lab.daemon?.stop()
    lab.daemon = await startFreeradius(path.join(t.dataDir, 'releases', 'freeradius', 'current'))
    expect(await vlan('00-11-22-33-44-55')).to.deep.equal(['40'])
    expect(await vlan('02-AA-00-00-00-02')).to.deep.equal(['guest'])
  })

  // Issue 33's proof for NAC (impact-differential.ts), on this lab's daemon; the PostgreSQL run only.
  it('change impact: after a random edit of the NAC policy, the report predicts exactly the answers the deployed FreeRADIUS changes', async function () {
    if (!runsOn('postgres')) return this.skip()
    this.timeout(240_000)
    const seed = Number(process.env.NAC_IMPACT_SEED ?? Date.now() % 1_000_000)
    console.log(`      seed ${seed} (NAC_IMPACT_SEED)`)
    await created(lab.t, '/api/v1/users', { username: 'impact-peap', password: PASSWORD, network_login: true })
    await nacImpactRound(this, lab, { seed, users: ['alice', 'eve', 'impact-peap'], password: PASSWORD, caPem })
  })
})
