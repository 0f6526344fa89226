/**
 * PKI: what issuing, a CRL and an OCSP answer cost (issue 15).
 *
 * The default edition in this process (bench/lib/bench-app.ts: a throwaway
 * PostgreSQL, production defaults), an ECDSA P-256 issuing CA under an
 * ECDSA P-256 root, and an RSA 3072 issuing CA, each with a template that
 * allows any name.
 *
 * 1. Issuing from a CSR (an ECDSA P-256 request made by openssl), per CA key:
 *    a. the plugin's issue path alone, in this process: read the CSR and
 *       check its signature, hold it to the template, build and sign the
 *       certificate (services/issue.ts);
 *    b. the bounds, Node's crypto alone: signing the same TBSCertificate with
 *       the same key (`crypto.sign`), and the three public-key operations an
 *       issue cannot skip: open the request's key (`createPublicKey`, where
 *       OpenSSL 3 spends ~100 µs on a P-256 point), verify the request's
 *       signature, sign the certificate;
 *    c. the API: POST /api/v1/pki/certificates one after the other (HTTP,
 *       validation, the insert and the audit row in one transaction).
 *    Each as certificates per second, a and c as ratios to the bounds.
 * 2. A CRL of 100,000 revoked certificates (rows inserted for the P-256 CA):
 *    the whole regeneration as a revocation runs it (read the rows, build,
 *    sign, store; one transaction), and the build alone; checked once with
 *    `openssl crl -verify`. Target: under 2 s.
 * 3. OCSP: the responder alone in this process (parse, find the CA, one
 *    indexed lookup, build, sign) per second, and POST /api/v1/public/ocsp
 *    with autocannon (in this process too: the load generator shares the two
 *    cores with the server) at 1 and 4 connections.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/pki.ts
 * (BENCH_ISSUES, default 300; BENCH_REVOKED, default 100000; BENCH_OCSP_SECONDS, default 5).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { createPublicKey, sign, verify } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import autocannon from 'autocannon'
import type { Knex } from 'knex'
import { Signers } from '../plugins/pki/services/ca.js'
import { buildCrl, regenerateCrl, type RevokedEntry } from '../plugins/pki/services/crl.js'
import { enforceTemplate, issue, readCsr, type Template } from '../plugins/pki/services/issue.js'
import { OcspResponder } from '../plugins/pki/services/ocsp.js'
import { children, content, pemBlocks, readRoot, whole } from '../plugins/pki/services/der.js'
import { signatureAlgorithm } from '../plugins/pki/services/x509.js'
import { startBenchApp } from './lib/bench-app.js'
import { envInt, envSeconds, loadAvg, machine, median, runAsMain, tempDir } from './lib.js'

const f0 = (x: number) => Math.round(x).toLocaleString('en-US')
const f2 = (x: number) => x.toFixed(2)

/** Runs `fn` `n` times, three rounds; the median round's rate per second. */
function rate(n: number, fn: (i: number) => void): number {
  const rounds: number[] = []
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now()
    for (let i = 0; i < n; i++) fn(i)
    rounds.push((n * 1000) / (performance.now() - t0))
  }
  return median(rounds)
}

export interface PkiBenchResult {
  issue: { ca: string; alone: number; bound: number; floor: number; api: number }[]
  crl: { revoked: number; regenerateMs: number; buildMs: number; bytes: number }
  ocsp: { alone: number; api1: number; api4: number }
}

export async function runPki(o: { printMachine?: boolean } = {}): Promise<PkiBenchResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average before: ${loadAvg()}`)
  const ISSUES = envInt('BENCH_ISSUES', 300)
  const REVOKED = envInt('BENCH_REVOKED', 100_000)
  const OCSP_SECONDS = envSeconds('BENCH_OCSP_SECONDS', 5)
  const b = await startBenchApp('pki')
  const dir = tempDir('portcullis-bench-pki-')
  try {
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(b.app.url + p, { method, headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
      const json = (await res.json()) as Record<string, unknown> & { id: string }
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`)
      return json
    }
    const root = await api('POST', '/api/v1/pki/cas', { name: 'bench-root', subject: { CN: 'Bench Root' }, key_algorithm: 'ECDSA-P256', validity_days: 3650 })
    const cas = [
      { label: 'ECDSA P-256', ca: await api('POST', '/api/v1/pki/cas', { name: 'bench-ec', subject: { CN: 'Bench EC' }, key_algorithm: 'ECDSA-P256', validity_days: 3650, parent_id: root.id }) },
      { label: 'RSA 3072', ca: await api('POST', '/api/v1/pki/cas', { name: 'bench-rsa', subject: { CN: 'Bench RSA' }, key_algorithm: 'RSA-3072', validity_days: 3650, parent_id: root.id }) },
    ]
    const template = (await api('POST', '/api/v1/pki/templates', {
      name: 'bench-any',
      key_usage: ['digitalSignature'],
      extended_key_usage: ['clientAuth'],
      validity_days: 365,
      name_patterns: ['*'],
      subject_attributes: ['CN', 'O'],
      san_types: ['dns'],
      min_rsa_bits: 2048,
      min_ec_bits: 256,
    })) as unknown as Template
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-subj', '/CN=host.example.net/O=Bench', '-addext', 'subjectAltName=DNS:host.example.net', '-out', 'r.csr'], { cwd: dir, stdio: 'ignore' })
    const csrPem = readFileSync(path.join(dir, 'r.csr'), 'utf8')

    const signers = new Signers(b.app.db.knex, b.secrets)
    console.log(`\n1. Issuing from a CSR (ECDSA P-256 request), certificates per second`)
    const issueRows: PkiBenchResult['issue'] = []
    for (const { label, ca } of cas) {
      const signer = (await signers.get(ca.id))!
      const alone = rate(ISSUES, () => {
        const csr = readCsr(csrPem)
        enforceTemplate(csr, template)
        issue({ csr, template, ca: signer, publicUrl: null })
      })
      // The same TBSCertificate, signed by Node's crypto and nothing else.
      const der = issue({ csr: readCsr(csrPem), template, ca: signer, publicUrl: null }).der
      const tbs = whole(children(readRoot(der))[0])
      const { hash } = signatureAlgorithm(signer.key)
      const bound = rate(ISSUES, () => sign(hash, tbs, signer.key))
      const req = children(readRoot(pemBlocks(csrPem, 'CERTIFICATE REQUEST')[0]))
      const reqSpki = whole(children(req[0])[2])
      const reqSig = content(req[2]).subarray(1)
      const floor = rate(ISSUES, () => {
        const k = createPublicKey({ key: reqSpki, format: 'der', type: 'spki' })
        if (!verify('sha256', whole(req[0]), k, reqSig)) throw new Error('CSR signature')
        sign(hash, tbs, signer.key)
      })
      const t0 = performance.now()
      for (let i = 0; i < ISSUES; i++) await api('POST', '/api/v1/pki/certificates', { ca_id: ca.id, template_id: template.id, csr: csrPem })
      const viaApi = (ISSUES * 1000) / (performance.now() - t0)
      issueRows.push({ ca: label, alone, bound, floor, api: viaApi })
      console.log(`   ${label} CA: issue path alone ${f0(alone)}/s; Node crypto.sign alone ${f0(bound)}/s (ratio ${f2(alone / bound)}); open key + verify CSR + sign ${f0(floor)}/s (ratio ${f2(alone / floor)}); API ${f0(viaApi)}/s sequential (ratio ${f2(viaApi / floor)} to the latter)`)
    }

    console.log(`\n2. CRL with ${f0(REVOKED)} revoked certificates (ECDSA P-256 CA)`)
    const ec = (await signers.get(cas[0].ca.id))!
    const knex: Knex = b.app.db.knex
    await knex.raw(
      `INSERT INTO pki_certificates (ca_id, serial, subject, san, key_algorithm, certificate, not_before, not_after, revoked_at, revocation_reason)
       SELECT ?, upper(md5(g::text) || md5((g * 7)::text)), 'CN=bench-' || g, '', 'ECDSA-P256', '', now() - interval '1 day', now() + interval '300 days',
              now() - (g || ' seconds')::interval, (ARRAY['keyCompromise', 'superseded', 'cessationOfOperation', 'unspecified'])[1 + g % 4]
       FROM generate_series(1, ?) g`,
      [ec.id, REVOKED],
    )
    const regen: number[] = []
    let crlDer: Buffer = Buffer.alloc(0)
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now()
      crlDer = (await knex.transaction((trx) => regenerateCrl(trx, ec, 168))).der
      regen.push(performance.now() - t0)
    }
    const rows = (await knex('pki_certificates').where({ ca_id: ec.id }).whereNotNull('revoked_at').select('serial', 'revoked_at', 'revocation_reason')) as RevokedEntry[]
    const builds: number[] = []
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now()
      buildCrl({ ca: ec, number: 99n, thisUpdate: new Date(), nextUpdate: new Date(Date.now() + 3_600_000), revoked: rows })
      builds.push(performance.now() - t0)
    }
    writeFileSync(path.join(dir, 'big.crl'), crlDer)
    writeFileSync(path.join(dir, 'ca.pem'), (cas[0].ca.certificate as string) + (root.certificate as string))
    const v = spawnSync('openssl', ['crl', '-in', 'big.crl', '-inform', 'DER', '-CAfile', 'ca.pem', '-noout', '-verify'], { cwd: dir })
    const verified = `${v.stdout}${v.stderr}`.trim() || `exit ${v.status}`
    const crl = { revoked: rows.length, regenerateMs: median(regen), buildMs: median(builds), bytes: crlDer.length }
    console.log(`   regeneration (read ${f0(rows.length)} rows, build, sign, store): median ${f0(crl.regenerateMs)} ms of 3; build and sign alone: median ${f0(crl.buildMs)} ms; ${f0(crl.bytes)} bytes; openssl crl -verify: ${verified}`)

    console.log(`\n3. OCSP answers per second`)
    const leafPem = (await api('POST', '/api/v1/pki/certificates', { ca_id: cas[0].ca.id, template_id: template.id, csr: csrPem })).certificate as string
    writeFileSync(path.join(dir, 'leaf.pem'), leafPem)
    writeFileSync(path.join(dir, 'issuer.pem'), cas[0].ca.certificate as string)
    execFileSync('openssl', ['ocsp', '-issuer', 'issuer.pem', '-cert', 'leaf.pem', '-reqout', 'req.der'], { cwd: dir, stdio: 'ignore' })
    const reqDer = readFileSync(path.join(dir, 'req.der'))
    const responder = new OcspResponder(knex, signers)
    const aloneRounds: number[] = []
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now()
      for (let i = 0; i < 500; i++) await responder.respond(reqDer)
      aloneRounds.push((500 * 1000) / (performance.now() - t0))
    }
    const load = async (connections: number) => {
      const res = await autocannon({ url: `${b.app.url}/api/v1/public/ocsp`, method: 'POST', connections, duration: OCSP_SECONDS, headers: { 'content-type': 'application/ocsp-request' }, body: reqDer })
      if (res.non2xx || res.errors) throw new Error(`OCSP load: ${res.non2xx} non-2xx, ${res.errors} errors`)
      return res.requests.average
    }
    const ocsp = { alone: median(aloneRounds), api1: await load(1), api4: await load(4) }
    console.log(`   responder alone (parse, find the CA, look up, sign): ${f0(ocsp.alone)}/s; POST /api/v1/public/ocsp: ${f0(ocsp.api1)}/s at 1 connection, ${f0(ocsp.api4)}/s at 4`)
    console.log(`\nload average after: ${loadAvg()}`)
    return { issue: issueRows, crl, ocsp }
  } finally {
    await b.stop()
  }
}

runAsMain(import.meta.url, () => runPki())
