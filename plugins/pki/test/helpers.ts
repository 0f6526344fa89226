/** The pki tests' tools: the real openssl command in a scratch folder, and the API calls they repeat. */
import { spawn, spawnSync } from 'node:child_process'
import { generateKeyPairSync, sign } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { uniq } from '../../../test/kit/expect.js'
export { auditRows, expectError, uniq } from '../../../test/kit/expect.js'
import { bits, ctx, int, oid, seq, set, toPem, utf8 } from '../services/der.js'
import { NAME_ATTRIBUTES, OID, type NameAttribute } from '../services/x509.js'

/**
 * A PKCS#10 request (PEM, ECDSA P-256, correctly signed) whose subject holds exactly these values as
 * UTF8Strings, in order: what a hostile device can send and `openssl req` will not make (line breaks,
 * direction controls, values past RFC 5280's bounds).
 */
export function csrWithSubject(parts: [NameAttribute, string][]): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const name = seq(...parts.map(([k, v]) => set(seq(oid(NAME_ATTRIBUTES[k]), utf8(v)))))
  const info = seq(int(0), name, publicKey.export({ type: 'spki', format: 'der' }), ctx(0, Buffer.alloc(0)))
  return toPem(seq(info, seq(oid(OID.ecdsaSha256)), bits(sign('sha256', info, privateKey))), 'CERTIFICATE REQUEST')
}

export const hasOpenssl = () => spawnSync('openssl', ['version']).status === 0

export interface Run {
  status: number | null
  out: string
}

/** A scratch folder where openssl runs; `file` reads and `put` writes in it. */
export class Scratch {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'pki-test-'))

  openssl(args: string[], input?: string | Buffer): Run {
    const r = spawnSync('openssl', args, { cwd: this.dir, input, timeout: 60_000 })
    return { status: r.status, out: `${r.stdout?.toString() ?? ''}${r.stderr?.toString() ?? ''}` }
  }

  /** openssl that must succeed: its output. */
  ok(args: string[], input?: string | Buffer): string {
    const r = this.openssl(args, input)
    expect(r.status, `openssl ${args.join(' ')}\n${r.out}`).to.equal(0)
    return r.out
  }

  /** openssl that talks to the app in this process (`ocsp -url`): run without blocking the event loop; must succeed. */
  okAsync(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const p = spawn('openssl', args, { cwd: this.dir, timeout: 60_000 })
      let out = ''
      p.stdout.on('data', (c: Buffer) => (out += c.toString()))
      p.stderr.on('data', (c: Buffer) => (out += c.toString()))
      p.on('error', reject)
      p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`openssl ${args.join(' ')} exited ${code}\n${out}`))))
    })
  }

  put(name: string, data: string | Buffer): string {
    writeFileSync(path.join(this.dir, name), data)
    return name
  }

  file(name: string): string {
    return readFileSync(path.join(this.dir, name), 'utf8')
  }

  /** A key and a CSR for it: `key` is an openssl -newkey spec (`ec:P-256` is written as `-newkey ec -pkeyopt …`). */
  csr(o: { subject: string; san?: string; key?: 'ec256' | 'ec384' | 'rsa1024' | 'rsa2048' | 'rsa3072'; name?: string }): { csr: string; key: string } {
    const name = o.name ?? uniq('req')
    const key = o.key ?? 'ec256'
    const keyArgs = key.startsWith('ec') ? ['-newkey', 'ec', '-pkeyopt', `ec_paramgen_curve:${key === 'ec256' ? 'P-256' : 'P-384'}`] : ['-newkey', `rsa:${key.slice(3)}`]
    this.ok(['req', '-new', ...keyArgs, '-nodes', '-keyout', `${name}.key`, '-subj', o.subject, ...(o.san ? ['-addext', `subjectAltName=${o.san}`] : []), '-out', `${name}.csr`])
    return { csr: this.file(`${name}.csr`), key: `${name}.key` }
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

export async function createCa(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/pki/cas', { body: { name: uniq('ca'), subject: { CN: uniq('Test Root'), O: 'Portcullis Test' }, key_algorithm: 'ECDSA-P256', validity_days: 3650, ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function createTemplate(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/pki/templates', {
    body: {
      name: uniq('tpl'),
      key_usage: ['digitalSignature'],
      extended_key_usage: ['clientAuth'],
      validity_days: 365,
      name_patterns: ['*.example.net'],
      subject_attributes: ['CN', 'O'],
      san_types: ['dns'],
      min_rsa_bits: 2048,
      min_ec_bits: 256,
      ...body,
    },
  })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function eapTemplateId(t: TestApp): Promise<string> {
  const list = await t.admin('GET', '/api/v1/pki/templates')
  return (list.body as { id: string; name: string }[]).find((x) => x.name === 'freeradius-eap-server')!.id
}

export async function issue(t: TestApp, caId: string, templateId: string, csr: string): Promise<any> {
  const r = await t.admin('POST', '/api/v1/pki/certificates', { body: { ca_id: caId, template_id: templateId, csr } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

/** What most pki tests start from: the app with the pki plugin, a root CA and an issuing CA under it. */
export interface PkiBed {
  t: TestApp
  /** Holds root.pem, ca.pem and chain.pem (issuing then root). */
  s: Scratch
  root: any
  ca: any
  /** The seeded `freeradius-eap-server` template. */
  eap: string
}

/** Skips (saying why) without openssl. `root` and `issuing`: CA body fields (key_algorithm …). */
export async function startPkiBed(ctx: Mocha.Context, o: { settings?: Record<string, unknown>; root?: Record<string, unknown>; issuing?: Record<string, unknown> } = {}): Promise<PkiBed> {
  if (!hasOpenssl()) skipBecause(ctx, 'openssl is not installed (Debian package openssl)')
  const t = await startTestApp({ plugins: ['pki'], ...(o.settings ? { settings: o.settings } : {}) })
  const s = new Scratch()
  const root = await createCa(t, o.root)
  const ca = await createCa(t, { parent_id: root.id, ...o.issuing })
  s.put('root.pem', root.certificate)
  s.put('ca.pem', ca.certificate)
  s.put('chain.pem', ca.certificate + root.certificate)
  return { t, s, root, ca, eap: await eapTemplateId(t) }
}

export async function stopPkiBed(b: PkiBed | undefined): Promise<void> {
  await b?.t.stop()
  b?.s.remove()
}
