/**
 * Rule conditions against the real daemons: one policy made through the API, rendered for
 * tac_plus-ng and FreeRADIUS, run, and asked what POST /aaa/policy/test is asked.
 *
 * - A time window that excludes now: the rule is skipped by the daemon and by the policy test, and
 *   the next rule decides (a denying rule outside its window does not stop the walk); one that
 *   includes now matches. Windows are local time: the whole test runs in TZ=Asia/Kolkata (UTC+05:30,
 *   a half-hour offset), which the daemons inherit as the deployed ones inherit the host's zone, so
 *   a renderer or a test reading UTC instead would disagree.
 * - Client prefixes: requests from 127.0.0.1 and from 127.0.0.2 (both inside the device's
 *   127.0.0.0/8), a rule for 127.0.0.2/32 only.
 *
 * Each half skips without its daemon (TAC_PLUS_NG; freeradius and radclient).
 */
import { createHmac, randomBytes } from 'node:crypto'
import dgram from 'node:dgram'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { startTestApp } from '../../../test/kit/app.js'
import { checkTacPlusNg, freePort, startTacPlusNg, TAC_PLUS_NG_SKIP, tacPlusNgBinary, writeRendered, type RunningTacPlusNg } from '../../../test/kit/tac-plus-ng.js'
import { encryptPap } from '../../radius/client/radius.js'
import { deployFreeradius, FREERADIUS_PRESENT, FREERADIUS_SKIP, radclient, rcString, type RunningFreeradius } from '../../radius/test/e2e-support.js'
import { TacacsClient } from '../../tacacs/client/index.js'
import { created, PLUGINS, renderTacPlusNg, RULES, setSetting } from '../../tacacs/test/e2e/support.js'
import { skipBecause } from '../../../test/kit/skip.js'

const KEY = 'cond-e2e-key'
const SECRET = 'cond-e2e-secret'
const PASSWORD = 'Tq-conditions-agree-7'
const ZONE = 'Asia/Kolkata'
const SOURCES = ['127.0.0.1', '127.0.0.2'] as const

const hhmm = (m: number) => `${String(Math.floor((((m % 1440) + 1440) % 1440) / 60)).padStart(2, '0')}:${String((((m % 1440) + 1440) % 1440) % 60).padStart(2, '0')}`
const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']

/**
 * tac_plus-ng in ZONE. The kit runs it with an empty environment (so `${…}` in its strings stays
 * literal), where it reads /etc/localtime, as a deployed daemon started without TZ does: a wrapper
 * gives it this host-to-be's zone, and only that.
 */
async function runTacPlusNg(t: TestApp, dir: string): Promise<{ daemon: RunningTacPlusNg; config: string }> {
  const wrapper = path.join(dir, 'tac_plus-ng-in-zone')
  writeFileSync(wrapper, `#!/bin/sh\nTZ=${ZONE} exec ${JSON.stringify(tacPlusNgBinary())} "$@"\n`)
  chmodSync(wrapper, 0o755)
  const port = await freePort()
  await setSetting(t, 'tacacs.listen_address', '127.0.0.1')
  await setSetting(t, 'tacacs.listen_port', port)
  const files = await renderTacPlusNg(t)
  const confDir = path.join(dir, 'tacacs')
  mkdirSync(confDir)
  const [configFile] = writeRendered(confDir, files)
  const check = await checkTacPlusNg(configFile, wrapper)
  expect(check.ok, `tac_plus-ng -P: exit ${check.code}\n${check.stderr}${check.stdout}`).to.equal(true)
  return { daemon: await startTacPlusNg({ configFile, port, binary: wrapper, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] }), config: files[0].content }
}

/** An Access-Request with PAP from `source` (radclient cannot choose its source address): the reply's code. */
async function papFrom(source: string, port: number, user: string): Promise<string> {
  const secret = Buffer.from(SECRET)
  const id = randomBytes(1)[0]
  const auth = randomBytes(16)
  const attr = (type: number, v: Buffer) => Buffer.concat([Buffer.from([type, v.length + 2]), v])
  const body = Buffer.concat([attr(1, Buffer.from(user)), attr(2, encryptPap(PASSWORD, secret, auth)), attr(80, Buffer.alloc(16))])
  const pkt = Buffer.concat([Buffer.from([1, id, 0, 0]), auth, body])
  pkt.writeUInt16BE(pkt.length, 2)
  createHmac('md5', secret).update(pkt).digest().copy(pkt, pkt.length - 16)
  const sock = dgram.createSocket('udp4')
  await new Promise<void>((r) => sock.bind(0, source, r))
  try {
    return await new Promise<string>((resolve, reject) => {
      let tries = 0
      let timer: NodeJS.Timeout
      const send = () => {
        // Retransmit as a NAS does: a reject comes after reject_delay, and the machine may be busy.
        if (++tries > 4) return reject(new Error(`no answer from FreeRADIUS to ${source}`))
        sock.send(pkt, port, '127.0.0.1')
        timer = setTimeout(send, 3000)
      }
      sock.on('message', (m) => {
        if (m[1] !== id) return
        clearTimeout(timer)
        resolve(({ 2: 'Access-Accept', 3: 'Access-Reject' } as Record<number, string>)[m[0]] ?? `code ${m[0]}`)
      })
      send()
    })
  } finally {
    sock.close()
  }
}

describe('AAA policy e2e: rule conditions (time window, client prefixes) decided by tac_plus-ng and FreeRADIUS as the policy test decides them', function () {
  this.timeout(180_000)
  let t: TestApp
  let dir: string
  let tacacs: { daemon: RunningTacPlusNg; config: string } | undefined
  let radius: RunningFreeradius | undefined
  let radiusPort = 0
  let device: any
  const tz = process.env.TZ

  before(async function () {
    if (!FREERADIUS_PRESENT && !tacPlusNgBinary()) skipBecause(this, `${FREERADIUS_SKIP}; ${TAC_PLUS_NG_SKIP}`)
    // Before anything reads the clock: this process and the daemons it starts read local time in this zone.
    process.env.TZ = ZONE
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-cond-e2e-'))
    t = await startTestApp({ plugins: PLUGINS, options: { 'radius.log_directory': path.join(dir, 'radius-logs') } })
    const user = (username: string) => created(t, '/api/v1/users', { username, password: PASSWORD, network_login: true })
    const users = Object.fromEntries(
      await Promise.all(['w-out', 'w-in', 'w-skip', 'w-day', 'c-only', 'c-skip'].map(async (u) => [u, await user(u)] as const)),
    )
    device = await created(t, '/api/v1/devices', { name: 'lo', address: '127.0.0.0/8', tacacs_key: KEY, radius_secret: SECRET })
    const tp = await created(t, '/api/v1/tacacs/profiles', { name: 'ops', privilege_level: 15 })
    const rp = await created(t, '/api/v1/radius/profiles', { name: 'ops', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] })
    const now = new Date()
    const m = now.getHours() * 60 + now.getMinutes()
    // Two hours either side of now, every day (crossing midnight when now is near it); and one starting three hours from now.
    const around = { days: ALL_DAYS, start: hhmm(m - 120), end: hhmm(m + 120) }
    const later = { days: ALL_DAYS, start: hhmm(m + 180), end: hhmm(m + 300) }
    const today = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][now.getDay()]
    const otherDays = { days: ALL_DAYS.filter((d) => d !== today), start: '00:00', end: '24:00' }
    const permit = { tacacs_profile_id: tp.id, radius_profile_id: rp.id }
    const rule = (name: string, u: string, body: Record<string, unknown>) => created(t, RULES, { name, who: { user_id: users[u].id }, where: { device_id: device.id }, ...body })
    await rule('w-out', 'w-out', { ...permit, time_window: later })
    await rule('w-in', 'w-in', { ...permit, time_window: around })
    // A denying rule outside its window, then a permitting one: the daemons go on to the second.
    await rule('w-skip-deny', 'w-skip', { time_window: later })
    await rule('w-skip-permit', 'w-skip', permit)
    await rule('w-day', 'w-day', { ...permit, time_window: otherDays })
    await rule('c-only', 'c-only', { ...permit, client_prefixes: ['127.0.0.2/32', '2001:db8::/32'] })
    await rule('c-skip-deny', 'c-skip', { client_prefixes: ['127.0.0.2'] })
    await rule('c-skip-permit', 'c-skip', permit)

    if (FREERADIUS_PRESENT) ({ daemon: radius, port: radiusPort } = await deployFreeradius(t, path.join(dir, 'radius')))
    if (tacPlusNgBinary()) tacacs = await runTacPlusNg(t, dir)
  })

  after(async () => {
    await radius?.stop()
    await tacacs?.daemon.stop()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
    if (tz === undefined) delete process.env.TZ
    else process.env.TZ = tz
  })

  const policyTest = async (body: Record<string, unknown>) => {
    const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  const CASES = ['w-out', 'w-in', 'w-skip', 'w-day', 'c-only', 'c-skip']
  const WANT: Record<string, string> = {
    'w-out 127.0.0.1': 'deny', 'w-out 127.0.0.2': 'deny', 'w-in 127.0.0.1': 'permit', 'w-in 127.0.0.2': 'permit',
    'w-skip 127.0.0.1': 'permit', 'w-skip 127.0.0.2': 'permit', 'w-day 127.0.0.1': 'deny', 'w-day 127.0.0.2': 'deny',
    'c-only 127.0.0.1': 'deny', 'c-only 127.0.0.2': 'permit', 'c-skip 127.0.0.1': 'permit', 'c-skip 127.0.0.2': 'deny',
  }

  it('tac_plus-ng: the exec start of each user from 127.0.0.1 and 127.0.0.2 is decided as the policy test decides it', async function () {
    if (!tacacs) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    expect(tacacs.config).to.contain('timespec "w-in" {').and.contain('device.address == "127.0.0.2/32"')
    const rows = await Promise.all(
      CASES.flatMap((u) =>
        SOURCES.map(async (from) => {
          const client = new TacacsClient({ host: '127.0.0.1', port: tacacs!.daemon.port, key: KEY, localAddress: from, timeoutMs: 8000 })
          const [daemon, sim] = await Promise.all([client.authorize(u, { cmd: '' }), policyTest({ protocol: 'tacacs', username: u, nas_ip: from })])
          return { what: `${u} ${from}`, daemon: daemon.permitted ? 'permit' : 'deny', sim: sim.decision as string, why: sim.trace.map((s: any) => s.reason).join(' | ') }
        }),
      ),
    )
    expect(Object.fromEntries(rows.map((r) => [r.what, r.daemon]))).to.deep.equal(WANT)
    expect(rows.filter((r) => r.daemon !== r.sim).map((r) => `${r.what}: daemon ${r.daemon}, policy test ${r.sim} (${r.why})`)).to.deep.equal([])
  })

  it('FreeRADIUS: PAP of each user from 127.0.0.1 and 127.0.0.2 is decided as the policy test decides it', async function () {
    if (!radius) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    const rows: { what: string; daemon: string; sim: string; why: string }[] = []
    for (const u of CASES) {
      for (const from of SOURCES) {
        const code =
          from === '127.0.0.1'
            ? (await radclient(radiusPort, 'auth', SECRET, [`User-Name = ${rcString(u)}`, `User-Password = ${rcString(PASSWORD)}`, 'Message-Authenticator = 0x00'])).code
            : await papFrom(from, radiusPort, u)
        const sim = await policyTest({ protocol: 'radius', username: u, nas_ip: from })
        expect(code, `${u} from ${from}: ${radius.output().slice(-1500)}`).to.be.oneOf(['Access-Accept', 'Access-Reject'])
        rows.push({ what: `${u} ${from}`, daemon: code === 'Access-Accept' ? 'permit' : 'deny', sim: sim.decision, why: sim.trace.map((s: any) => s.reason).join(' | ') })
      }
    }
    expect(Object.fromEntries(rows.map((r) => [r.what, r.daemon]))).to.deep.equal(WANT)
    expect(rows.filter((r) => r.daemon !== r.sim).map((r) => `${r.what}: daemon ${r.daemon}, policy test ${r.sim} (${r.why})`)).to.deep.equal([])
  })

  it('the policy test says why a rule did not match', async () => {
    const out = await policyTest({ protocol: 'tacacs', username: 'w-out', nas_ip: '127.0.0.1' })
    expect(out.trace[0]).to.deep.include({ name: 'w-out', matched: false })
    expect(out.trace[0].reason).to.match(/^outside its time window Mon-Sun \d\d:\d\d-\d\d:\d\d$/)
    const from = await policyTest({ protocol: 'radius', username: 'c-only', nas_ip: '127.0.0.1' })
    expect(from.trace.find((s: any) => s.name === 'c-only').reason).to.equal('NAS address 127.0.0.1 is not in 127.0.0.2/32, 2001:db8::/32')
  })
})
