/**
 * The value rules against the real daemon: a profile holding every dictionary
 * attribute and the awkward characters the rules accept is stored through the
 * API, written with formatValue into a `users` file and into unlang, checked
 * by `freeradius -C`, and sent by a running FreeRADIUS to radclient, which
 * must receive exactly the stored values. Every enum value name is parsed too.
 * Skipped where FreeRADIUS 3 (Debian: freeradius, freeradius-utils) is not
 * installed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { formatValue, type RadiusAttribute } from '../index.js'
import { DICTIONARY, dictionaryEntries, type DictionaryEntry } from '../services/dictionary.js'
import { createProfile } from './helpers.js'
import { papServerBlocks } from '../../../test/kit/freeradius-pap.js'

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0
const SECRET = 'testing123'

/** A value of each type; the last enum name, since earlier ones can be aliases (Tunnel-Medium-Type IP = IPv4). */
const sample = (e: DictionaryEntry): string =>
  e.type === 'enum' ? e.values!.at(-1)! : e.type === 'integer' ? String(e.max) : e.type === 'ipaddr' ? '198.51.100.7' : e.type === 'ipv6addr' ? '2001:db8::7' : `${e.name.toLowerCase()}=v`

const AWKWARD: RadiusAttribute[] = [
  { name: 'Cisco-AVPair', value: 'shell:roles="network-admin vdc-admin"' },
  { name: 'Reply-Message', value: 'back\\slash \\" \'single\' `tick` $HOME #hash {brace} ;semi, comma Привет' },
  { name: 'Reply-Message', value: '\\' },
  // A lone $ is no variable: only ${ and $ENV{ are (refused by the rules).
  { name: 'Reply-Message', value: 'price $5, regex ^show .*$, $ {x} $ENV HOME $$' },
  { name: 'Class', value: '0X6F7073' },
  // Octets as text: the bytes of the text, `\` and `"` included once each (issue 26, finding 8: the backslash arrived doubled).
  { name: 'Class', value: 'ou=ops\\lab "x"' },
  { name: 'Class', value: '\\' },
]

const configFor = (dir: string, port: number, unlang: string) => `
prefix = /usr
localstatedir = /var
logdir = ${dir}
raddbdir = ${dir}
radacctdir = ${dir}
name = freeradius
confdir = ${dir}
modconfdir = ${dir}
run_dir = ${dir}
db_dir = ${dir}
libdir = /usr/lib/freeradius
pidfile = ${dir}/radiusd.pid
max_request_time = 5
cleanup_delay = 1
max_requests = 64
hostname_lookups = no
log {
	destination = stdout
	colourise = no
}
security {
	allow_core_dumps = no
	max_attributes = 200
	reject_delay = 0
	status_server = no
}
thread pool {
	start_servers = 1
	max_servers = 2
	min_spare_servers = 1
	max_spare_servers = 2
	max_requests_per_server = 0
}
${papServerBlocks({ dir, port, secret: SECRET, postAuth: `		if (User-Name == "unlang") {
			update reply {
${unlang}
			}
		}` })}`

/** A users entry; `+=` so that repeated attributes are all sent. */
const usersEntry = (user: string, attrs: RadiusAttribute[]) =>
  `${user}\tCleartext-Password := "pw"\n` + attrs.map((a) => `\t${a.name} += ${formatValue(a)}`).join(',\n') + '\n\n'

/** The reply as radclient prints it, decoded back to stored values. */
function parseReply(out: string): RadiusAttribute[] {
  const lines = out.slice(out.indexOf('Received Access-Accept')).split('\n').slice(1)
  return lines
    .map((l) => /^\t([A-Za-z0-9-]+)(?::\d+)? = (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([, name, raw]) => ({ name, value: raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(["\\])/g, '$1') : raw }))
}

/** What the daemon sends for a stored value: octets as lower-case hex, everything else unchanged. */
const onTheWire = (a: RadiusAttribute): RadiusAttribute => {
  if (DICTIONARY.get(a.name)!.type !== 'octets') return a
  const hex = /^0x/i.test(a.value) ? a.value.slice(2).toLowerCase() : Buffer.from(a.value, 'utf8').toString('hex')
  return { name: a.name, value: `0x${hex}` }
}

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4')
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r))
  const { port } = s.address()
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

// Skipped without the daemon: say so, as every skip does (test/kit/skip.ts).
if (!(has('freeradius') && has('radclient'))) console.log('      skipped: radius values in FreeRADIUS 3.2 (Debian: freeradius, freeradius-utils is not installed)')
;(has('freeradius') && has('radclient') ? describe : describe.skip)('radius values in FreeRADIUS 3.2 (users file and unlang)', function () {
  let t: TestApp
  let dir: string
  let daemon: ChildProcess | undefined
  let port: number
  let stored: RadiusAttribute[]

  before(async function () {
    t = await startTestApp({ plugins: ['inventory', 'radius'] })
    const attrs = [...dictionaryEntries().map((e) => ({ name: e.name, value: sample(e) })), ...AWKWARD]
    stored = (await createProfile(t, { attributes: attrs })).attributes
    expect(stored).to.deep.equal(attrs)
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-freeradius-'))
    port = await freeUdpPort()
    // Entries nobody signs in as, so that `freeradius -C` parses every enum value name we accept.
    const enums = dictionaryEntries()
      .filter((e) => e.type === 'enum')
      .flatMap((e) => e.values!.map((v, i) => usersEntry(`enum-${e.name}-${i}`, [{ name: e.name, value: v }])))
    writeFileSync(path.join(dir, 'users'), usersEntry('users', stored) + usersEntry('unlang', []) + enums.join(''))
    const unlang = stored.map((a) => `\t\t\t\t${a.name} += ${formatValue(a)}`).join('\n')
    writeFileSync(path.join(dir, 'radiusd.conf'), configFor(dir, port, unlang))
  })

  after(async () => {
    daemon?.kill()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('accepts the rendered configuration (freeradius -C)', () => {
    const r = spawnSync('freeradius', ['-C', '-d', dir], { encoding: 'utf8' })
    expect(r.status, r.stdout + r.stderr).to.equal(0)
  })

  it('sends exactly the stored values, in order, from the users file and from unlang', async () => {
    daemon = spawn('freeradius', ['-f', '-l', 'stdout', '-d', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    let log = ''
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`freeradius did not start:\n${log}`)), 10_000)
      const seen = (b: Buffer) => {
        log += b.toString()
        if (log.includes('Ready to process requests')) {
          clearTimeout(timer)
          resolve()
        }
      }
      daemon!.stdout!.on('data', seen)
      daemon!.stderr!.on('data', seen)
      daemon!.on('exit', (code) => reject(new Error(`freeradius exited with ${code}:\n${log}`)))
    })
    const expected = stored.map(onTheWire)
    for (const user of ['users', 'unlang']) {
      const r = spawnSync('radclient', ['-x', '-r', '2', '-t', '3', `127.0.0.1:${port}`, 'auth', SECRET], {
        input: `User-Name = "${user}", User-Password = "pw"\n`,
        encoding: 'utf8',
      })
      expect(r.stdout, r.stdout + r.stderr + log).to.include('Received Access-Accept')
      expect(parseReply(r.stdout), user).to.deep.equal(expected)
    }
  })
})
