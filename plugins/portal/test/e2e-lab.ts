/**
 * The captive portal's end-to-end lab (the e2e test and bench/portal.ts): the platform with the NAC,
 * the portal, MFA and the PKI, supervising the real FreeRADIUS itself (daemons.supervise), so that the
 * deploy a registration asks for restarts it on the new tree as in production. A switch (127.0.0.1)
 * whose CoA port is a loopback listener (test/kit/coa-nas.ts), a real SMTP listener for the platform's
 * mail, and the NAC policy of a guest network: an unknown MAC gets the registration profile (Cisco
 * url-redirect to the portal, `portal_redirect` so the URL is signed), a registered guest's endpoint
 * group gets VLAN 50, an employee's device VLAN 60, and EAP-TLS with a certificate of the lab's CA
 * (the one BYOD onboarding issues from) VLAN 60 too. radclient plays the switch (MAB, accounting),
 * eapol_test the 802.1X supplicant.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { LoopbackNas } from '../../../test/kit/coa-nas.js'
import { startTestApp, type TestApp, type TestEngine } from '../../../test/kit/app.js'
import { startSmtp, type TestSmtp } from '../../../test/kit/smtp.js'
import { createCa, eapTemplateId, Scratch } from '../../pki/test/helpers.js'
import { freeUdpPort, radclient, rcString, type RadclientResult } from '../../radius/test/e2e-support.js'
import { created, ok, setSetting } from '../../../test/e2e/support.js'
export { created }

export const SECRET = 'portal-switch-secret'
export const BRAND = '#1a7f5a'
export const GUEST_VLAN = '50'
export const BYOD_VLAN = '60'
export const SPONSOR_DOMAIN = 'example.test'
export const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'pki', 'nac', 'portal']

/** A MAC no test used before, in the switch's notation (aa-bb-…). */
export const freshMac = () => ['02', ...randomBytes(5).toString('hex').match(/../g)!].join('-').toUpperCase()


export interface PortalLab {
  t: TestApp
  nas: LoopbackNas
  smtp: TestSmtp
  authPort: number
  acctPort: number
  switchId: string
  guestGroupId: string
  byodGroupId: string
  portal: any
  /** Scratch folder for openssl (the CA's certificate is `ca.pem` in it). */
  s: Scratch
  /** MAB as a Cisco switch sends it (Service-Type Call-Check), retried while the daemon restarts (no answer). */
  mab(mac: string): Promise<RadclientResult>
  /** Accounting Start for the MAC's session, as the switch sends after the accept. */
  acctStart(mac: string): Promise<void>
  /** eapol_test EAP-TLS as the device's supplicant: accepted or not, the VLAN, its output. */
  eapTls(identity: string, certFile: string, keyFile: string): Promise<{ ok: boolean; vlan: string | null; raw: string }>
  close(): Promise<void>
}

/** The url-redirect of an Access-Accept, or null. */
export const redirectOf = (r: RadclientResult): string | null =>
  r.attributes.filter((a) => a.name === 'Cisco-AVPair' && a.value.startsWith('url-redirect=')).map((a) => a.value.slice('url-redirect='.length))[0] ?? null
export const vlanOf = (r: RadclientResult): string[] => r.attributes.filter((a) => a.name === 'Tunnel-Private-Group-Id').map((a) => a.value)

export async function openPortalLab(o: { engine?: TestEngine; portal?: Record<string, unknown> } = {}): Promise<PortalLab> {
  // The EAP server's certificate files are server options (read at boot): their paths are chosen first.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-portal-e2e-'))
  mkdirSync(path.join(dir, 'eap'))
  const certFile = path.join(dir, 'eap', 'server.pem')
  const keyFile = path.join(dir, 'eap', 'server.key')
  const t = await startTestApp({ engine: o.engine, plugins: PLUGINS, options: { 'daemons.supervise': ['freeradius'], 'radius.eap_certificate_file': certFile, 'radius.eap_private_key_file': keyFile } })
  const smtp = await startSmtp()
  const nas = await LoopbackNas.start('127.0.0.1', SECRET)
  const s = new Scratch()
  const cleanup = async () => {
    nas.close()
    await smtp.stop()
    await t.stop()
    s.remove()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const authPort = await freeUdpPort()
    const acctPort = await freeUdpPort()
    await setSetting(t, 'radius.listen_address', '127.0.0.1')
    await setSetting(t, 'radius.auth_port', authPort)
    await setSetting(t, 'radius.acct_port', acctPort)
    await setSetting(t, 'aaa-logs.poll_ms', 50)
    for (const [key, value] of Object.entries({ 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none', 'identity.public_url': t.url })) await setSetting(t, key, value)

    const access = await created(t, '/api/v1/device-groups', { name: 'access' })
    const sw = await created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: access.id, radius_secret: SECRET })
    await ok(t, 'PUT', `/api/v1/nac/coa-nas/${sw.id}`, { port: nas.port }, [200, 201])

    const guests = await created(t, '/api/v1/nac/endpoint-groups', { name: 'portal-guests' })
    const byod = await created(t, '/api/v1/nac/endpoint-groups', { name: 'portal-byod' })
    const profile = (name: string, body: Record<string, unknown>) => created(t, '/api/v1/nac/authorization-profiles', { name, ...body })
    const guestVlan = await profile('guest-vlan', { vlan: Number(GUEST_VLAN) })
    const byodVlan = await profile('byod-vlan', { vlan: Number(BYOD_VLAN) })
    const registration = await profile('registration', { portal_redirect: true, cisco_url_redirect: `${t.url}/portal/lobby`, cisco_url_redirect_acl: 'PORTAL-REDIRECT' })
    const rule = (name: string, groupId: string, profileId: string) =>
      created(t, '/api/v1/nac/policy/rules', { name, conditions: [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', group_ids: [groupId] }], authorization_profile_id: profileId })
    await rule('portal-guests', guests.id, guestVlan.id)
    await rule('portal-byod', byod.id, byodVlan.id)
    await created(t, '/api/v1/nac/policy/rules', { name: 'byod-certificates', conditions: [{ type: 'method', methods: ['eap-tls'] }, { type: 'certificate', field: 'issuer_cn', values: ['Portal E2E CA'] }], authorization_profile_id: byodVlan.id })

    // The CA FreeRADIUS trusts (and BYOD onboarding issues from), and the EAP server's certificate.
    const ca = await createCa(t, { subject: { CN: 'Portal E2E CA', O: 'Portcullis Test' } })
    s.put('ca.pem', ca.certificate)
    await setSetting(t, 'pki.freeradius_ca_id', ca.id)
    const req = s.csr({ subject: '/CN=radius.example.net', san: 'DNS:radius.example.net' })
    const server = await created(t, '/api/v1/pki/certificates', { ca_id: ca.id, template_id: await eapTemplateId(t), csr: req.csr })
    writeFileSync(certFile, server.certificate)
    s.ok(['pkey', '-in', req.key, '-out', keyFile])
    const rules = (await t.admin('GET', '/api/v1/nac/policy/rules')).body
    const def = (rules.items ?? rules).find((r: any) => r.is_default)
    await ok(t, 'PUT', `/api/v1/nac/policy/rules/${def.id}`, { authorization_profile_id: registration.id }, 200)

    const portal = await created(t, '/api/v1/captive-portal/portals', {
      name: 'Lobby',
      slug: 'lobby',
      methods: ['hotspot', 'self_registration', 'sponsored', 'byod'],
      guest_endpoint_group_id: guests.id,
      byod_endpoint_group_id: byod.id,
      guest_minutes: 60,
      byod_onboarding: 'certificate',
      sponsor_domains: [SPONSOR_DOMAIN],
      branding: {
        primary_colour: BRAND,
        texts: {
          en: { title: 'Lobby Wi-Fi', welcome: 'Welcome to the lobby network.', terms: 'Be nice to the network.' },
          ru: { title: 'Wi-Fi в холле', welcome: 'Добро пожаловать в сеть холла.', terms: 'Берегите сеть.' },
        },
      },
      ...o.portal,
    })
    const deployed = await ok(t, 'POST', '/api/v1/deploys', { daemon: 'freeradius', comment: 'portal e2e' }, 201)
    for (const d of deployed.deploys ?? [deployed]) expect(d.status, JSON.stringify(d)).to.equal('active')

    const send = (kind: 'auth' | 'acct', pairs: string[]) => radclient(kind === 'auth' ? authPort : acctPort, kind, SECRET, pairs)
    const lab: PortalLab = {
      t,
      nas,
      smtp,
      authPort,
      acctPort,
      switchId: sw.id,
      guestGroupId: guests.id,
      byodGroupId: byod.id,
      portal,
      s,
      async mab(mac) {
        const user = mac.replace(/[-:.]/g, '').toLowerCase()
        const pairs = [
          `User-Name = ${rcString(user)}`,
          `User-Password = ${rcString(user)}`,
          `Calling-Station-Id = ${rcString(mac)}`,
          'Called-Station-Id = "00-00-5E-00-53-01:Lobby"',
          'NAS-IP-Address = 127.0.0.1',
          'Service-Type = Call-Check',
          'NAS-Port-Type = Ethernet',
          'NAS-Port-Id = "Gi1/0/7"',
          'Message-Authenticator = 0x00',
        ]
        // The supervisor restarts FreeRADIUS on each new release: a request in that moment goes unanswered.
        let r = await send('auth', pairs)
        for (let i = 0; i < 20 && r.code === null; i++) {
          await new Promise((res) => setTimeout(res, 250))
          r = await send('auth', pairs)
        }
        expect(r.code, r.raw.slice(-1500)).to.equal('Access-Accept')
        return r
      },
      async acctStart(mac) {
        const r = await send('acct', [
          'Acct-Status-Type = Start',
          `Calling-Station-Id = ${rcString(mac)}`,
          `User-Name = ${rcString(mac.replace(/[-:.]/g, '').toLowerCase())}`,
          `Acct-Session-Id = ${rcString(`portal-${mac}`)}`,
          'NAS-IP-Address = 127.0.0.1',
          'NAS-Port-Id = "Gi1/0/7"',
          'NAS-Port-Type = Ethernet',
        ])
        expect(r.code, r.raw.slice(-1500)).to.equal('Accounting-Response')
      },
      async eapTls(identity, cert, key) {
        const conf = path.join(s.dir, `eapol-${randomBytes(4).toString('hex')}.conf`)
        const network = ['eap=TLS', `identity="${identity}"`, `client_cert="${cert}"`, `private_key="${key}"`, `ca_cert="${path.join(s.dir, 'ca.pem')}"`, 'phase1="tls_disable_tlsv1_3=0"']
        writeFileSync(conf, `network={\n\tkey_mgmt=IEEE8021X\n\teapol_flags=0\n${network.map((l) => `\t${l}\n`).join('')}}\n`)
        const child = spawn('eapol_test', ['-c', conf, '-a', '127.0.0.1', '-p', String(authPort), '-s', SECRET, '-t', '10', '-N', '31:s:02-00-00-00-00-01', '-N', '61:d:15'], { stdio: ['ignore', 'pipe', 'pipe'] })
        let raw = ''
        child.stdout.on('data', (d) => (raw += d))
        child.stderr.on('data', (d) => (raw += d))
        const code = await new Promise<number | null>((r) => child.once('close', r))
        // The Access-Accept's Tunnel-Private-Group-Id, as eapol_test dumps the attribute (type 81).
        const m = /Attribute 81 \(Tunnel-Private-Group-Id\) length=\d+\n\s+Value: ([0-9a-f]+)/.exec(raw.slice(raw.lastIndexOf('(Access-Accept)')))
        return { ok: code === 0 && raw.includes('\nSUCCESS'), vlan: m && raw.includes('(Access-Accept)') ? Buffer.from(m[1], 'hex').toString().replace(/^\0/, '') : null, raw }
      },
      close: cleanup,
    }
    return lab
  } catch (e) {
    await cleanup()
    throw e
  }
}

/** Until the NAC has seen the MAC at the switch (the ingester read the MAB): the CoA needs the NAS. */
export async function seenAtSwitch(t: TestApp, mac: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  for (;;) {
    const e = (await t.admin('GET', `/api/v1/nac/endpoints?mac=${encodeURIComponent(mac)}`)).body.items?.[0]
    if (e?.last_nas_ip) return
    if (Date.now() > end) throw new Error(`the NAC has not seen ${mac} at the switch within ${ms} ms: ${JSON.stringify(e)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
