/**
 * A throwaway OpenLDAP (Debian's slapd) on loopback for the directory tests: its own folder, a
 * slapd.conf with the standard schemas and one mdb database, a small tree loaded with slapadd
 * (people with salted SHA passwords, groups with `member`), started in the foreground on a free port.
 * `stop()` and `start()` again on the same port simulate an outage. Without slapd (package slapd),
 * `slapdBinary()` is null and the tests skip saying so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { freePort } from './postgres.js'

const SLAPD = '/usr/sbin/slapd'
const SLAPADD = '/usr/sbin/slapadd'
export const SLAPD_SKIP = `slapd not found at ${SLAPD} (Debian package slapd; .ci/run installs it)`
export const slapdBinary = (): string | null => (existsSync(SLAPD) && existsSync(SLAPADD) ? SLAPD : null)

export const BASE_DN = 'dc=example,dc=org'
export const PEOPLE_DN = `ou=people,${BASE_DN}`
export const GROUPS_DN = `ou=groups,${BASE_DN}`
export const READER = { dn: `cn=reader,${BASE_DN}`, password: 'reader-secret-42' }

export interface DirectoryPerson {
  uid: string
  password: string
  groups?: string[]
}

/** RFC 2307 {SSHA}: base64(SHA-1(password + salt) + salt). */
const ssha = (password: string) => {
  const salt = randomBytes(8)
  return '{SSHA}' + Buffer.concat([createHash('sha1').update(password).update(salt).digest(), salt]).toString('base64')
}

function ldif(people: DirectoryPerson[], readerPassword: string): string {
  const entries = [
    `dn: ${BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example`,
    `dn: ${PEOPLE_DN}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ${GROUPS_DN}\nobjectClass: organizationalUnit\nou: groups`,
    `dn: ${READER.dn}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: ${ssha(readerPassword)}`,
    ...people.map((p) => `dn: uid=${p.uid},${PEOPLE_DN}\nobjectClass: inetOrgPerson\nuid: ${p.uid}\ncn: ${p.uid}\nsn: ${p.uid}\nuserPassword: ${ssha(p.password)}`),
  ]
  const groups = new Map<string, string[]>()
  for (const p of people) for (const g of p.groups ?? []) groups.set(g, [...(groups.get(g) ?? []), `uid=${p.uid},${PEOPLE_DN}`])
  for (const [g, members] of groups) entries.push(`dn: cn=${g},${GROUPS_DN}\nobjectClass: groupOfNames\ncn: ${g}\n${members.map((m) => `member: ${m}`).join('\n')}`)
  return entries.join('\n\n') + '\n'
}

export interface Slapd {
  url: string
  port: number
  /** With `tls`: ldaps:// on a second port, StartTLS on `url`, and the CA that signed the server certificate (PEM). */
  ldapsUrl?: string
  caPem?: string
  stop(): Promise<void>
  start(): Promise<void>
  destroy(): Promise<void>
}

/**
 * A CA and a server certificate for 127.0.0.1 and localhost, made with the openssl command (Debian's
 * openssl): the server's TLS for ldaps:// and StartTLS.
 */
function makeServerCertificate(dir: string): { ca: string; cert: string; key: string } {
  const f = (n: string) => path.join(dir, n)
  const run = (args: string[]) => {
    const r = spawnSync('openssl', args, { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`)
  }
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=Portcullis test directory CA'])
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1'])
  writeFileSync(f('san.ext'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\nextendedKeyUsage = serverAuth\n')
  run(['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('san.ext')])
  return { ca: f('ca.pem'), cert: f('server.pem'), key: f('server.key') }
}

/** `readerPassword`: the reader's password instead of READER.password (a hostile one, for the renderers' quoting). */
export async function startSlapd(people: DirectoryPerson[], opts: { tls?: boolean; readerPassword?: string } = {}): Promise<Slapd> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-slapd-'))
  mkdirSync(path.join(dir, 'db'))
  const conf = path.join(dir, 'slapd.conf')
  const tls = opts.tls ? makeServerCertificate(dir) : null
  writeFileSync(
    conf,
    [
      ...['core', 'cosine', 'inetorgperson', 'nis'].map((s) => `include /etc/ldap/schema/${s}.schema`),
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${dir}/slapd.pid`,
      ...(tls ? [`TLSCACertificateFile ${tls.ca}`, `TLSCertificateFile ${tls.cert}`, `TLSCertificateKeyFile ${tls.key}`] : []),
      'database mdb',
      `suffix "${BASE_DN}"`,
      `rootdn "cn=admin,${BASE_DN}"`,
      `directory ${dir}/db`,
      // Passwords only ever bind; the reader and bound users read the rest; nobody reads anonymously.
      'access to attrs=userPassword by anonymous auth by * none',
      'access to * by users read by * none',
      '',
    ].join('\n'),
  )
  writeFileSync(path.join(dir, 'data.ldif'), ldif(people, opts.readerPassword ?? READER.password))
  const add = spawnSync(SLAPADD, ['-f', conf, '-l', path.join(dir, 'data.ldif')], { encoding: 'utf8' })
  if (add.status !== 0) throw new Error(`slapadd failed: ${add.stderr}`)
  const port = await freePort()
  const url = `ldap://127.0.0.1:${port}`
  const tlsPort = tls ? await freePort() : null
  const ldapsUrl = tlsPort ? `ldaps://127.0.0.1:${tlsPort}` : undefined
  let child: ChildProcess | null = null

  const start = async () => {
    // -d 0: in the foreground, quiet; listening on loopback only.
    child = spawn(SLAPD, ['-f', conf, '-h', [url, ldapsUrl].filter(Boolean).map((u) => `${u}/`).join(' '), '-d', '0'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr!.on('data', (b) => (stderr += b))
    for (let i = 0; i < 100; i++) {
      if ((await accepts(port)) && (tlsPort === null || (await accepts(tlsPort)))) return
      if (child.exitCode !== null) break
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`slapd did not start on ${url}: ${stderr}`)
  }
  const stop = async () => {
    const c = child
    child = null
    if (!c || c.exitCode !== null) return
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve())
      c.kill('SIGTERM')
    })
  }
  await start()
  return {
    url,
    port,
    ...(tls ? { ldapsUrl, caPem: readFileSync(tls.ca, 'utf8') } : {}),
    start,
    stop,
    async destroy() {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy()
      resolve(true)
    })
    s.on('error', () => resolve(false))
  })
}
