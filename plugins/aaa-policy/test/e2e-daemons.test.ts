/**
 * The policy test against the real daemons: one policy made through the API, rendered for
 * tac_plus-ng and FreeRADIUS, run, and asked what POST /aaa/policy/test is asked.
 *
 * - Command lines split as a NAS splits them (space and TAB only): NBSP and the other Unicode
 *   spaces stay inside a word, a line holding LF or CR is denied, a word `<cr>` is literal.
 * - Logins by method: PAP and ASCII (TACACS+), PAP, CHAP and MS-CHAPv2 (RADIUS), TACACS+ CHAP,
 *   MS-CHAPv2 and enable; a user without network password material is rejected by both daemons.
 * - A device without a RADIUS secret inside a wider device with one: FreeRADIUS answers it as the
 *   wider client, and so does the policy test.
 *
 * Each half skips without its daemon (TAC_PLUS_NG; freeradius and radclient).
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { ntHash } from '../../../sdk/md4.js'
import type { TestApp } from '../../../test/kit/app.js'
import { startTestApp } from '../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../test/kit/tac-plus-ng.js'
import { deployFreeradius, FREERADIUS_PRESENT, FREERADIUS_SKIP, mschapv2Pairs, radclient, rcString, type RunningFreeradius } from '../../radius/test/e2e-support.js'
import {
  AuthenAction, AuthenService, AuthenStatus, AuthenType, decodeAuthenReply, decodePacket, encodeAuthenContinue, encodeAuthenStart, encodePacket, HEADER_LENGTH, MAJOR_VERSION,
  MINOR_VERSION_DEFAULT, MINOR_VERSION_ONE, PacketType, TacacsClient,
} from '../../tacacs/client/index.js'
import { created, PLUGINS, renderAndRun, RULES, type DaemonRun } from '../../tacacs/test/e2e/support.js'
import { skipBecause } from '../../../test/kit/skip.js'

const KEY = 'policy-e2e-key'
const SECRET = 'policy-e2e-secret'
const TACACS_FROM = '127.24.0.2'
const PASSWORD = 'Tq-daemons-agree-41'

/**
 * One authentication session over its own connection: START (minor version `minor`), then a
 * CONTINUE with `answer` while the server asks (GETPASS/GETDATA/GETUSER). What the client
 * offers for ASCII and PAP, open for the other types and services (CHAP, enable).
 */
async function authen(port: number, start: Buffer, minor: number, answer: string): Promise<'pass' | 'fail' | 'error'> {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress: TACACS_FROM })
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  const sessionId = randomBytes(4).readUInt32BE(0)
  let buf = Buffer.alloc(0)
  let wake: (() => void) | null = null
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d])
    wake?.()
  })
  const key = Buffer.from(KEY)
  try {
    let body = start
    for (let seq = 1; seq < 20; seq += 2) {
      socket.write(encodePacket({ majorVersion: MAJOR_VERSION, minorVersion: seq === 1 ? minor : minor, type: PacketType.AUTHEN, seqNo: seq, flags: 0, sessionId }, key, body))
      const deadline = Date.now() + 8000
      while (buf.length < HEADER_LENGTH || buf.length < HEADER_LENGTH + buf.readUInt32BE(8)) {
        if (Date.now() > deadline) throw new Error('no answer from tac_plus-ng')
        await new Promise<void>((r) => {
          wake = r
          setTimeout(r, 200)
        })
      }
      const len = HEADER_LENGTH + buf.readUInt32BE(8)
      const reply = decodeAuthenReply(decodePacket(buf.subarray(0, len), key).body)
      buf = buf.subarray(len)
      if (reply.status === AuthenStatus.PASS) return 'pass'
      if (reply.status === AuthenStatus.FAIL) return 'fail'
      if (reply.status === AuthenStatus.ERROR) return 'error'
      body = encodeAuthenContinue({ userMsg: answer })
    }
    throw new Error('tac_plus-ng kept asking')
  } finally {
    socket.destroy()
  }
}

/** TACACS+ CHAP (RFC 8907 5.4.2.3): data = id, challenge, MD5(id ‖ password ‖ challenge). */
function chapStart(user: string, password: string): Buffer {
  const id = Buffer.from([7])
  const challenge = randomBytes(16)
  const response = createHash('md5').update(id).update(password).update(challenge).digest()
  return encodeAuthenStart({ action: AuthenAction.LOGIN, privLvl: 1, authenType: AuthenType.CHAP, authenService: AuthenService.PPP, user, port: 'tty0', remAddr: '', data: Buffer.concat([id, challenge, response]) })
}

/** Enable as Cisco IOS asks it: ASCII, service ENABLE, privilege 15, the password at GETPASS. */
const enableStart = (user: string) =>
  encodeAuthenStart({ action: AuthenAction.LOGIN, privLvl: 15, authenType: AuthenType.ASCII, authenService: AuthenService.ENABLE, user, port: 'tty0', remAddr: '' })

/** The words a NAS sends for a typed line: split on space and TAB only (cmd, then the cmd-args). */
const nasWords = (line: string) => line.split(/[ \t]+/).filter((w) => w !== '')

describe('AAA policy e2e: the policy test answers what tac_plus-ng and FreeRADIUS answer (command lines, login methods)', function () {
  this.timeout(180_000)
  let t: TestApp
  let dir: string
  let tacacs: DaemonRun | undefined
  let radius: RunningFreeradius | undefined
  let radiusPort = 0
  let tacDevice: any, radDevice: any

  before(async function () {
    if (!FREERADIUS_PRESENT && !tacPlusNgBinary()) skipBecause(this, `${FREERADIUS_SKIP}; ${TAC_PLUS_NG_SKIP}`)
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-policy-e2e-'))
    t = await startTestApp({ plugins: PLUGINS, options: { 'radius.log_directory': path.join(dir, 'radius-logs') } })
    const ops = await created(t, '/api/v1/user-groups', { name: 'ops' })
    await created(t, '/api/v1/users', { username: 'pw-user', password: PASSWORD, network_login: true, group_ids: [ops.id] })
    await created(t, '/api/v1/users', { username: 'nopw-user', network_login: true, group_ids: [ops.id] })
    await created(t, '/api/v1/users', { username: 'chap-user', password: PASSWORD, network_login: true, chap_enabled: true, group_ids: [ops.id] })
    tacDevice = await created(t, '/api/v1/devices', { name: 'tac-sw', address: TACACS_FROM, tacacs_key: KEY })
    // radclient sends from 127.0.0.1: the device there has no secret, so FreeRADIUS answers it as the wider client rad-wide.
    radDevice = await created(t, '/api/v1/devices', { name: 'rad-sw', address: '127.0.0.1/32' })
    const radWide = await created(t, '/api/v1/devices', { name: 'rad-wide', address: '127.0.0.0/8', radius_secret: SECRET })
    // `show` with one word permitted (`\S+` is PCRE2's ASCII non-space: NBSP is not a space to it), any other `show` denied.
    const words = await created(t, '/api/v1/tacacs/command-sets', {
      name: 'one-word',
      commands: [
        { command: 'show', action: 'permit', arguments: [{ match_type: 'regex', value: '\\S+' }] },
        { command: 'show', action: 'deny' },
        { command: 'configure', action: 'permit' },
      ],
    })
    const tp = await created(t, '/api/v1/tacacs/profiles', { name: 'ops', privilege_level: 15, command_set_ids: [words.id], default_action: 'deny' })
    const rp = await created(t, '/api/v1/radius/profiles', { name: 'ops', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] })
    await created(t, RULES, { name: 'ops-all', who: { group_id: ops.id }, where: { device_id: tacDevice.id }, tacacs_profile_id: tp.id, position: 0 })
    await created(t, RULES, { name: 'ops-rad', who: { group_id: ops.id }, where: { device_id: radWide.id }, radius_profile_id: rp.id, position: 0 })
    // Would deny RADIUS for the device itself; FreeRADIUS never sees rad-sw as a client, so it never matches.
    await created(t, RULES, { name: 'ops-rad-sw', who: { group_id: ops.id }, where: { device_id: radDevice.id }, position: 0 })

    if (FREERADIUS_PRESENT) {
      ;({ daemon: radius, port: radiusPort } = await deployFreeradius(t, path.join(dir, 'radius')))
    }
    if (tacPlusNgBinary()) tacacs = await renderAndRun(t)
  })

  after(async () => {
    await radius?.stop()
    await tacacs?.stop()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const policyTest = async (body: Record<string, unknown>) => {
    const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  const needTacacs = function (this: Mocha.Context) {
    if (!tacacs) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      this.skip()
    }
  }
  const needRadius = function (this: Mocha.Context) {
    if (!radius) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      this.skip()
    }
  }
  const tacClient = () => new TacacsClient({ host: '127.0.0.1', port: tacacs!.daemon.port, key: KEY, localAddress: TACACS_FROM, timeoutMs: 8000 })

  it('tac_plus-ng: command lines with NBSP, Unicode spaces, TAB, LF, CR and a word <cr> are decided as the policy test decides them', async function () {
    needTacacs.call(this)
    const lines = [
      'show a\u00a0b', 'show a\u2003b', 'show a\u3000b', 'show \u00a0', 'show\ta', 'show a\tb', ' \tshow  version\t ', 'show a b',
      'configure\nterminal', 'configure terminal\r', 'show version\r\n', 'show\rversion', 'show\u000bx', 'show\fx',
      'show <cr>', 'show x <cr>', 'configure <cr>', 'show a\u00a0b <CR>',
    ]
    const disagreements: string[] = []
    const got: Record<string, string> = {}
    for (const line of lines) {
      // A last `<cr>` is the end marker, not a word the NAS sends.
      const [cmd, ...args] = nasWords(line).filter((w, i, all) => !(i === all.length - 1 && /^<cr>$/i.test(w)))
      // As a Cisco NAS sends it (a trailing <cr>) and as others do (none): the daemon must answer alike.
      const [withCr, bare, sim] = await Promise.all([
        tacClient().authorize('pw-user', { cmd, args: [...args, '<cr>'] }),
        tacClient().authorize('pw-user', { cmd, args }),
        policyTest({ protocol: 'tacacs', username: 'pw-user', device_id: tacDevice.id, command: line }),
      ])
      const daemon = [withCr.permitted, bare.permitted].map((p) => (p ? 'permit' : 'deny'))
      got[line] = sim.command_decision.decision
      if (daemon[0] !== sim.command_decision.decision || daemon[1] !== sim.command_decision.decision) {
        disagreements.push(`${JSON.stringify(line)}: daemon ${daemon.join('/')} (with/without <cr>), policy test ${sim.command_decision.decision}`)
      }
    }
    expect(disagreements).to.deep.equal([])
    // The cases of the issue: one argument `a<NBSP>b` (permitted by `show \S+`), a line with LF denied.
    expect(got['show a\u00a0b']).to.equal('permit')
    expect(got['configure\nterminal']).to.equal('deny')
    expect(got['show a b']).to.equal('deny')
  })

  it('tac_plus-ng: a word <cr> before the last one is decided differently with and without the NAS\'s own marker, so the policy test refuses it (422 at command)', async function () {
    needTacacs.call(this)
    // The words show, x, <cr> as the NAS sends them: with its marker "show x <cr> <cr>", without "show x <cr>".
    const [withCr, bare] = await Promise.all([tacClient().authorize('pw-user', { cmd: 'show', args: ['x', '<cr>', '<cr>'] }), tacClient().authorize('pw-user', { cmd: 'show', args: ['x', '<cr>'] })])
    expect([withCr.permitted, bare.permitted]).to.deep.equal([false, true])
    const res = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username: 'pw-user', device_id: tacDevice.id, command: 'show x <cr> <cr>' } })
    expect([res.status, res.body.field]).to.deep.equal([422, 'command'])
  })

  it('tac_plus-ng: PAP and ASCII log in a user with a password and reject one without; CHAP and MS-CHAPv2 only a user with chap_enabled; enable is rejected: as the policy test says', async function () {
    needTacacs.call(this)
    const port = tacacs!.daemon.port
    const cases: [string, string, () => Promise<boolean>][] = [
      ['pw-user', 'pap', async () => (await tacClient().authenticatePap('pw-user', PASSWORD)).pass],
      ['pw-user', 'ascii', async () => (await tacClient().authenticateAscii('pw-user', PASSWORD)).pass],
      ['nopw-user', 'pap', async () => (await tacClient().authenticatePap('nopw-user', PASSWORD)).pass],
      ['nopw-user', 'ascii', async () => (await tacClient().authenticateAscii('nopw-user', PASSWORD)).pass],
      ['pw-user', 'chap', async () => (await authen(port, chapStart('pw-user', PASSWORD), MINOR_VERSION_ONE, PASSWORD)) === 'pass'],
      ['chap-user', 'chap', async () => (await authen(port, chapStart('chap-user', PASSWORD), MINOR_VERSION_ONE, PASSWORD)) === 'pass'],
      ['pw-user', 'mschapv2', async () => (await tacClient().authenticateMschapV2('pw-user', PASSWORD)).pass],
      ['chap-user', 'mschapv2', async () => (await tacClient().authenticateMschapV2('chap-user', PASSWORD)).pass],
      ['pw-user', 'enable', async () => (await authen(port, enableStart('pw-user'), MINOR_VERSION_DEFAULT, PASSWORD)) === 'pass'],
    ]
    const results = await Promise.all(
      cases.map(async ([username, method, login]) => {
        const [pass, sim] = await Promise.all([login(), policyTest({ protocol: 'tacacs', username, device_id: tacDevice.id, method })])
        return { what: `${username} ${method}`, daemon: pass ? 'permit' : 'deny', sim: sim.decision as string, reason: sim.reason as string }
      }),
    )
    const table = Object.fromEntries(results.map((r) => [r.what, r.daemon]))
    expect(table).to.deep.equal({
      'pw-user pap': 'permit', 'pw-user ascii': 'permit', 'nopw-user pap': 'deny', 'nopw-user ascii': 'deny', 'pw-user chap': 'deny', 'chap-user chap': 'permit', 'pw-user mschapv2': 'deny', 'chap-user mschapv2': 'permit', 'pw-user enable': 'deny',
    })
    expect(results.filter((r) => r.daemon !== r.sim).map((r) => `${r.what}: daemon ${r.daemon}, policy test ${r.sim} (${r.reason})`)).to.deep.equal([])
    // Authorization alone does not check a password: the daemon and the test (no method) permit the exec start.
    const [exec, sim] = await Promise.all([tacClient().authorize('nopw-user', { cmd: '' }), policyTest({ protocol: 'tacacs', username: 'nopw-user', device_id: tacDevice.id })])
    expect([exec.permitted, sim.decision]).to.deep.equal([true, 'permit'])
  })

  it('FreeRADIUS: PAP, CHAP and MS-CHAPv2 by user, and a user without network password material rejected: as the policy test says', async function () {
    needRadius.call(this)
    const pap = (u: string) => [`User-Name = ${rcString(u)}`, `User-Password = ${rcString(PASSWORD)}`]
    // radclient computes the CHAP response from a cleartext CHAP-Password.
    const chap = (u: string) => [`User-Name = ${rcString(u)}`, `CHAP-Password = ${rcString(PASSWORD)}`]
    const mschap = (u: string) => mschapv2Pairs(u, ntHash(PASSWORD).toString('hex'), randomBytes(16), randomBytes(16))
    const cases: [string, string, string[]][] = []
    for (const u of ['pw-user', 'nopw-user', 'chap-user']) cases.push([u, 'pap', pap(u)], [u, 'chap', chap(u)], [u, 'mschapv2', mschap(u)])
    const results: { what: string; daemon: string; sim: string; reason: string }[] = []
    for (const [username, method, pairs] of cases) {
      const [r, sim] = await Promise.all([radclient(radiusPort, 'auth', SECRET, [...pairs, 'Message-Authenticator = 0x00']), policyTest({ protocol: 'radius', username, device_id: radDevice.id, method })])
      expect(r.code, `${username} ${method}: ${r.raw.slice(-400)}`).to.be.oneOf(['Access-Accept', 'Access-Reject'])
      results.push({ what: `${username} ${method}`, daemon: r.code === 'Access-Accept' ? 'permit' : 'deny', sim: sim.decision, reason: sim.reason })
    }
    expect(Object.fromEntries(results.map((r) => [r.what, r.daemon]))).to.deep.equal({
      'pw-user pap': 'permit', 'pw-user chap': 'deny', 'pw-user mschapv2': 'permit',
      'nopw-user pap': 'deny', 'nopw-user chap': 'deny', 'nopw-user mschapv2': 'deny',
      'chap-user pap': 'permit', 'chap-user chap': 'permit', 'chap-user mschapv2': 'permit',
    })
    expect(results.filter((r) => r.daemon !== r.sim).map((r) => `${r.what}: daemon ${r.daemon}, policy test ${r.sim} (${r.reason})`)).to.deep.equal([])
    // No method: a RADIUS request authenticates, PAP assumed.
    expect(await policyTest({ protocol: 'radius', username: 'nopw-user', device_id: radDevice.id })).to.include({ decision: 'deny', method: 'pap' })
    // The device without a secret is answered as the wider client: the rule of rad-sw is not the one that decides.
    for (const where of [{ device_id: radDevice.id }, { nas_ip: '127.0.0.1' }]) {
      const sim = await policyTest({ protocol: 'radius', username: 'pw-user', ...where })
      expect(sim).to.deep.include({ decision: 'permit', device: { id: sim.device.id, name: 'rad-wide', address: '127.0.0.0/8' } })
      expect(sim.matched_rule.name).to.equal('ops-rad')
      expect(sim.reason).to.contain('wider client rad-wide')
    }
  })
})
