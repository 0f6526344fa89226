/**
 * The 802.1X and MAB end-to-end lab: the platform with inventory, radius, the AAA policy, pki and a
 * stand-in NAC policy source (fixtures/nac-source); users, a switch, a CA, the EAP server certificate
 * and a client certificate made through the API (the server's key written to the file the server
 * option names); every freeradius renderer's files in one release, `freeradius -C`, the daemon on
 * loopback; eapol_test (PEAP-MSCHAPv2, EAP-TLS) and radclient (MAB, PAP) as the switch.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import type { RenderedFile } from '../../../sdk/index.js'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { Scratch } from '../../pki/test/helpers.js'
import { checkConfig, freeUdpPort, radclient, rcString, startFreeradius, writeRelease, type RadclientResult, type RunningFreeradius } from './e2e-support.js'

export const SECRET = 'nac-switch-secret'
const FIXTURE = './plugins/radius/test/fixtures/nac-source'

export async function created(t: TestApp, p: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.admin('POST', p, { body })
  expect(r.status, `POST ${p} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).to.equal(201)
  return r.body
}

export async function setSetting(t: TestApp, key: string, value: unknown): Promise<void> {
  const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
  expect(r.status, `setting ${key}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 204])
}

/** What eapol_test says: accepted or not, the VLAN (Tunnel-Private-Group-Id) of the Access-Accept, its whole output. */
export interface EapResult {
  ok: boolean
  vlan: string | null
  raw: string
}

export class NacLab {
  daemon: RunningFreeradius | undefined
  port = 0
  acctPort = 0
  readonly s = new Scratch()
  private constructor(
    public t: TestApp,
    readonly dir: string,
  ) {}

  get release() {
    return path.join(this.dir, 'release')
  }
  get logDir() {
    return path.join(this.dir, 'logs')
  }
  get certFile() {
    return path.join(this.dir, 'eap', 'server.pem')
  }
  get keyFile() {
    return path.join(this.dir, 'eap', 'server.key')
  }

  /**
   * `eap: false`: the EAP server options unset (MAB only). `plugins`: the edition (default: the
   * stand-in NAC policy source instead of the nac plugin, so these tests do not depend on it).
   */
  static async open(o: { eap?: boolean; plugins?: string[] } = {}): Promise<NacLab> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-nac-e2e-'))
    mkdirSync(path.join(dir, 'eap'))
    const eap = o.eap === false ? {} : { 'radius.eap_certificate_file': path.join(dir, 'eap', 'server.pem'), 'radius.eap_private_key_file': path.join(dir, 'eap', 'server.key') }
    const t = await startTestApp({
      plugins: o.plugins ?? ['inventory', 'tacacs', 'radius', 'aaa-policy', 'pki', FIXTURE],
      options: { 'radius.log_directory': path.join(dir, 'logs'), 'radius.run_directory': path.join(dir, 'run'), ...eap },
    })
    const lab = new NacLab(t, dir)
    lab.port = await freeUdpPort()
    await setSetting(t, 'radius.listen_address', '127.0.0.1')
    await setSetting(t, 'radius.auth_port', lab.port)
    lab.acctPort = await freeUdpPort()
    await setSetting(t, 'radius.acct_port', lab.acctPort)
    return lab
  }

  /** Every freeradius renderer (radius's tree, pki's CA and CRL) from one snapshot, as a deploy does. */
  async render(): Promise<RenderedFile[]> {
    const entries = this.t.app.registry.renderers.filter((r) => r.renderer.daemon === 'freeradius')
    // One after the other: one connection serves the snapshot.
    return this.t.app.db.transaction(
      async (trx) => {
        const files: RenderedFile[] = []
        for (const e of entries) files.push(...(await e.renderer.render(trx)))
        return files
      },
      { isolation: 'repeatable read' },
    )
  }

  /** `edit`: changes the rendered files before they are written (a test adding what no API writes). */
  async deploy(edit: (files: RenderedFile[]) => RenderedFile[] = (f) => f): Promise<void> {
    await this.daemon?.stop()
    rmSync(this.release, { recursive: true, force: true })
    mkdirSync(this.release)
    writeRelease(this.release, edit(await this.render()))
    const check = checkConfig(this.release)
    expect(check.ok, `freeradius -C:\n${check.output}`).to.equal(true)
    this.daemon = await startFreeradius(this.release)
  }

  /** A key and CSR made here, the certificate issued through the API; the key file's name in the scratch folder. */
  async issue(caId: string, templateId: string, subject: string, san?: string): Promise<{ cert: any; key: string }> {
    const { csr, key } = this.s.csr({ subject, san })
    const r = await this.t.admin('POST', '/api/v1/pki/certificates', { body: { ca_id: caId, template_id: templateId, csr } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    return { cert: r.body, key: path.join(this.s.dir, key) }
  }

  /** eapol_test as the switch: `network` is the wpa_supplicant network block's lines. */
  async eapol(network: string[], mac = '02-00-00-00-00-01'): Promise<EapResult> {
    const conf = path.join(this.s.dir, `eapol-${Date.now()}-${Math.random().toString(36).slice(2)}.conf`)
    writeFileSync(conf, `network={\n\tkey_mgmt=IEEE8021X\n\teapol_flags=0\n${network.map((l) => `\t${l}\n`).join('')}}\n`)
    const args = ['-c', conf, '-a', '127.0.0.1', '-p', String(this.port), '-s', SECRET, '-t', '10', '-N', `31:s:${mac}`, '-N', '61:d:15']
    const child = spawn('eapol_test', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let raw = ''
    child.stdout.on('data', (d) => (raw += d))
    child.stderr.on('data', (d) => (raw += d))
    const code = await new Promise<number | null>((r) => child.once('close', r))
    // The Access-Accept's Tunnel-Private-Group-Id, as eapol_test dumps the attribute (type 81).
    const accept = raw.slice(raw.lastIndexOf('(Access-Accept)'))
    const m = /Attribute 81 \(Tunnel-Private-Group-Id\) length=\d+\n\s+Value: ([0-9a-f]+)/.exec(accept)
    return { ok: code === 0 && raw.includes('\nSUCCESS'), vlan: m && raw.includes('(Access-Accept)') ? Buffer.from(m[1], 'hex').toString().replace(/^\0/, '') : null, raw }
  }

  peap(identity: string, password: string, caCert: string): Promise<EapResult> {
    return this.eapol(['eap=PEAP', `identity="${identity}"`, 'anonymous_identity="anonymous"', `password="${password}"`, 'phase2="auth=MSCHAPV2"', `ca_cert="${caCert}"`, 'phase1="peapver=0 tls_disable_tlsv1_3=0"'])
  }

  tls(identity: string, cert: string, key: string, caCert: string): Promise<EapResult> {
    return this.eapol(['eap=TLS', `identity="${identity}"`, `client_cert="${cert}"`, `private_key="${key}"`, `ca_cert="${caCert}"`, 'phase1="tls_disable_tlsv1_3=0"'])
  }

  /**
   * MAB as a Cisco switch sends it: the MAC as User-Name and password, Service-Type Call-Check
   * (`callCheck: false`: as switches that send a plain PAP request with the MAC, in `user`'s notation).
   */
  /** `portType`: NAS-Port-Type (default Ethernet); `extra`: more pairs (NAS-IP-Address, Called-Station-Id). */
  mab(mac: string, o: { callCheck?: boolean; user?: string; portType?: string; extra?: string[] } = {}): Promise<RadclientResult> {
    const user = o.user ?? mac.replace(/[-:.]/g, '').toLowerCase()
    return radclient(this.port, 'auth', SECRET, [
      `User-Name = ${rcString(user)}`,
      `User-Password = ${rcString(user)}`,
      `Calling-Station-Id = ${rcString(mac)}`,
      ...(o.callCheck === false ? [] : ['Service-Type = Call-Check']),
      `NAS-Port-Type = ${o.portType ?? 'Ethernet'}`,
      'NAS-Port-Id = "Gi1/0/7"',
      ...(o.extra ?? []),
      'Message-Authenticator = 0x00',
    ])
  }

  /** Accounting as the switch sends it for an 802.1X or MAB session. */
  acct(pairs: string[]): Promise<RadclientResult> {
    return radclient(this.acctPort, 'acct', SECRET, pairs)
  }

  pap(user: string, password: string): Promise<RadclientResult> {
    return radclient(this.port, 'auth', SECRET, [`User-Name = ${rcString(user)}`, `User-Password = ${rcString(password)}`, 'Message-Authenticator = 0x00'])
  }

  /** Deploys through the API (`POST /api/v1/deploys`, which runs `freeradius -C`), and (re)starts the daemon on the active release. */
  async deployThroughApi(): Promise<void> {
    await this.daemon?.stop()
    const r = await this.t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius', comment: 'nac e2e' } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    this.daemon = await startFreeradius(path.join(this.t.dataDir, 'releases', 'freeradius', 'current'))
  }

  async close(): Promise<void> {
    await this.daemon?.stop()
    await this.t.stop()
    this.s.remove()
    if (!process.env.KEEP_FREERADIUS_DIR) rmSync(this.dir, { recursive: true, force: true })
  }
}
