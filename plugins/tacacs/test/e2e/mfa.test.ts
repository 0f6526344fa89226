/**
 * The second factor on tac_plus-ng (tacacs.mfa_mode append, renderers/mfa.ts) against the real
 * daemon, deployed through the API, with the platform's internal surface answering on loopback: a
 * user with MFA logs in with the password followed by the code (ASCII login at the password prompt,
 * and PAP), the password alone is refused, a wrong code and a replayed code are refused and count
 * against the user's budget shared with the API sign-in, a user without MFA is unaffected, and the
 * surface refusing the key or down fails closed. Skips without TAC_PLUS_NG.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../../test/kit/app.js'
import { awayFromWindowEdge, codeAt, enroll, enrollPhone, freeTcpPort, INTERNAL_KEY, internalSurface, setInternalKey, wrongCode } from '../../../../test/kit/mfa.js'
import { ScriptedPhone, viaPushService } from '../../../../test/kit/phone.js'
import { pushServerOptions, startPushService, type TestPushService } from '../../../../test/kit/push.js'
import { skipBecause } from '../../../../test/kit/skip.js'
import { freePort, startTacPlusNg, TAC_PLUS_NG_SKIP, tacPlusNgBinary, type RunningTacPlusNg } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, PLUGINS, RULES, setSetting, strongPassword } from './support.js'

const KEY = 'mfa-e2e-key'
const FROM = '127.27.0.3'

describe('tacacs e2e: the second factor on tac_plus-ng (password followed by the code, through MAVIS)', function () {
  this.timeout(180_000)
  let t: TestApp
  let daemon: RunningTacPlusNg | undefined
  let port = 0
  let dataDir = ''
  let lockDir = ''
  const pw: Record<string, string> = {}
  const seed: Record<string, string> = {}
  let push: TestPushService | undefined
  /** The push users' phones (real key pairs), answering through the push service. */
  const phone: Record<string, ScriptedPhone> = {}

  const current = () => path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current')
  async function deployAndRun(): Promise<void> {
    await daemon?.stop()
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'mfa e2e' } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    for (const d of r.body.deploys) expect(d.status, JSON.stringify(d)).to.equal('active')
    daemon = await startTacPlusNg({ configFile: path.join(current(), 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
  }

  before(async function () {
    if (!tacPlusNgBinary()) return skipBecause(this, TAC_PLUS_NG_SKIP)
    const corePort = await freeTcpPort()
    const surface = internalSurface(corePort)
    push = await startPushService({ coreUrl: `http://127.0.0.1:${corePort}` })
    // A data folder of the test's own: the release (and its shadow file) outlives the platform's stop.
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-tacacs-mfa-'))
    // Short: tac_plus-ng cuts a lockout count folder longer than 32 characters (renderers/lockout.ts).
    lockDir = mkdtempSync('/tmp/tm-')
    t = await startTestApp({ plugins: [...PLUGINS, 'mfa'], env: surface.env, options: { ...surface.options, ...pushServerOptions(push), 'tacacs.lockout_directory': lockDir }, dataDir })
    port = await freePort()
    await setSetting(t, 'tacacs.listen_address', '127.0.0.1')
    await setSetting(t, 'tacacs.listen_port', port)
    const device = await created(t, '/api/v1/devices', { name: 'mfa-sw', address: FROM, tacacs_key: KEY })
    const profile = await created(t, '/api/v1/tacacs/profiles', { name: 'mfa-p', privilege_level: 15, default_action: 'permit' })
    for (const username of ['t-plain', 't-alice', 't-bob', 't-carol', 't-dave', 't-erin', 't-frank', 't-push', 't-both', 't-both2']) {
      pw[username] = strongPassword()
      const u = await created(t, '/api/v1/users', { username, password: pw[username], network_login: true, must_change_password: false, chap_enabled: username === 't-plain' })
      await created(t, RULES, { name: `r-${username}`, who: { user_id: u.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id, position: 0 })
      if (username.startsWith('t-push') || username.startsWith('t-both')) {
        // t-push: a phone only; t-both, t-both2: a phone and an authenticator.
        phone[username] = new ScriptedPhone(viaPushService(push.url))
        const secret = await enrollPhone(t, username, pw[username], phone[username], { totp: username !== 't-push' })
        if (secret) seed[username] = secret
      } else if (username !== 't-plain') seed[username] = await enroll(t, username, pw[username])
    }
    // The shortest the setting takes: the unanswered push ends within the test's patience.
    await setSetting(t, 'mfa.push_timeout_seconds', 5)
    await setInternalKey(t)
    await deployAndRun()
  })
  after(async () => {
    for (const p of Object.values(phone)) await p.stop()
    await daemon?.stop()
    await t?.stop()
    await push?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    if (lockDir) rmSync(lockDir, { recursive: true, force: true })
  })
  beforeEach(async () => {
    await t?.app.db.knex('rate_limit_hits').delete()
  })

  const client = () => new TacacsClient({ host: '127.0.0.1', port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
  const pap = async (u: string, p: string) => (await client().authenticatePap(u, p)).pass
  const ascii = (u: string, p: string) => client().authenticateAscii(u, p)

  it('writes the backend and the shadow file into the release (0600), the key only into the configuration, and no CHAP', () => {
    const config = readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')
    expect(config).to.include('mavis module = external {').and.include(`setenv MFA_KEY = "${INTERNAL_KEY}"`).and.include('portcullis-mfa.pl')
    expect(config).to.not.match(/password (?:chap|ms-chap) =/)
    expect(config, 'a backend process a login waiting for a push').to.include('childs max = 64')
    expect(config, 'the ASCII prompt says the code follows the password').to.include('message PASSWORD = "Password (followed by your 6-digit code if you use MFA): "')
    for (const f of ['tac_plus-ng.cfg', 'shadow', 'portcullis-mfa.pl']) expect(statSync(path.join(current(), f)).mode & 0o077, f).to.equal(0)
    expect(existsSync(path.join(current(), 'portcullis-mfa.pl'))).to.equal(true)
  })

  it('leaves a user without MFA alone: the password alone, ASCII and PAP', async () => {
    expect(await pap('t-plain', pw['t-plain'])).to.equal(true)
    expect((await ascii('t-plain', pw['t-plain'])).pass).to.equal(true)
    expect(await pap('t-plain', pw['t-plain'] + '123456'), 'digits after the password are a wrong password').to.equal(false)
  })

  it('takes the password followed by the code at the ASCII password prompt, which says so; refuses the password alone', async () => {
    const alone = await ascii('t-alice', pw['t-alice'])
    expect(alone.pass).to.equal(false)
    const r = await ascii('t-alice', pw['t-alice'] + codeAt(seed['t-alice'], 1))
    expect(r.pass, JSON.stringify(r)).to.equal(true)
  })

  it('takes the password followed by the code in PAP; a wrong code and a replayed code are refused', async () => {
    expect(await pap('t-bob', pw['t-bob'] + wrongCode(seed['t-bob']))).to.equal(false)
    const code = codeAt(seed['t-bob'], 1)
    expect(await pap('t-bob', pw['t-bob'] + code)).to.equal(true)
    expect(await pap('t-bob', pw['t-bob'] + code), 'replayed').to.equal(false)
    expect(await pap('t-bob', 'wrong' + codeAt(seed['t-bob'], 1)), 'wrong password').to.equal(false)
    const audit = await t.app.db.knex('audit_log').where({ action: 'auth.mfa_internal_verify', actor_name: 't-bob' }).orderBy('at').select('outcome', 'reason')
    // Each login opens its own challenge: the replay is a wrong code on the new one.
    expect(audit.map((a) => [a.outcome, a.reason])).to.deep.equal([['failure', 'mfa_bad_code'], ['success', null], ['failure', 'mfa_bad_code']])
  })

  it('counts the device\'s codes in the budget the API sign-in shares: ten wrong codes, then the API refuses too', async () => {
    await awayFromWindowEdge(40_000)
    for (let i = 0; i < 10; i++) expect(await pap('t-carol', pw['t-carol'] + wrongCode(seed['t-carol']))).to.equal(false)
    const login = await t.req('POST', '/api/v1/auth/login', { body: { username: 't-carol', password: pw['t-carol'] } })
    expect(login.body.status).to.equal('mfa_required')
    const api = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: login.body.mfa_token, code: codeAt(seed['t-carol'], 1) } })
    expect(api.status, JSON.stringify(api.body)).to.equal(429)
    const limited = await client().authenticatePap('t-carol', pw['t-carol'] + codeAt(seed['t-carol'], 1))
    expect(limited.pass, 'and the device refuses the right code now').to.equal(false)
    expect(limited.serverMsg).to.include('too many MFA codes')
  })

  it('runs after the lockout\'s count when account lockout is on too: password+code accepted, wrong passwords lock the account, the right password and code are refused then', async () => {
    await setSetting(t, 'identity.lockout_threshold', 3)
    try {
      await deployAndRun()
      const config = readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')
      // The lockout's modules first, our backend last in the chain (it checks the passwords).
      expect(config.indexOf('portcullis-mfa.pl'), 'the MFA backend ends the chain').to.be.greaterThan(config.lastIndexOf('mavis module ='))
      expect(await pap('t-plain', pw['t-plain']), 'a user without MFA').to.equal(true)
      expect((await ascii('t-erin', pw['t-erin'] + codeAt(seed['t-erin'], 1))).pass, 'ASCII, password+code').to.equal(true)
      for (let i = 0; i < 3; i++) expect(await pap('t-frank', 'wrong-' + i + codeAt(seed['t-frank'], 1))).to.equal(false)
      expect(await pap('t-frank', pw['t-frank'] + codeAt(seed['t-frank'], 1)), 'locked out').to.equal(false)
      const audit = await t.app.db.knex('audit_log').where({ action: 'auth.mfa_internal_verify', actor_name: 't-frank' }).count<{ n: string }[]>({ n: '*' })
      expect(Number(audit[0].n), 'a locked-out login never reaches the code check').to.equal(0)
    } finally {
      await setSetting(t, 'identity.lockout_threshold', 0)
      await deployAndRun()
    }
  })

  const pushes = (username: string) => t.app.db.knex('mfa_push_challenge').join('users', 'users.id', 'mfa_push_challenge.user_id').where('users.username', username).orderBy('mfa_push_challenge.created_at').select('mfa_push_challenge.*')
  const slow = () => new TacacsClient({ host: '127.0.0.1', port, key: KEY, localAddress: FROM, timeoutMs: 30_000 })
  async function withPhone<T>(name: string, mode: Parameters<ScriptedPhone['behave']>[0], fn: () => Promise<T>): Promise<T> {
    phone[name].behave(mode)
    try {
      return await fn()
    } finally {
      await phone[name].stop()
    }
  }

  it('push: sends a push for the password alone of a push user and lets in on the approval, PAP and ASCII (no prompt after the password); the phone is told the device', async () => {
    const r = await withPhone('t-push', 'approve', async () => [await slow().authenticatePap('t-push', pw['t-push']), await slow().authenticateAscii('t-push', pw['t-push'])])
    expect(r[0].pass, JSON.stringify(r[0])).to.equal(true)
    expect(r[1].pass, JSON.stringify(r[1])).to.equal(true)
    const sent = await pushes('t-push')
    expect(sent.map((c) => [c.origin, c.state, c.number_matching])).to.deep.equal([
      ['tacacs', 'approved', false],
      ['tacacs', 'approved', false],
    ])
    expect(sent[0].context).to.include({ username: 't-push', client: FROM })
  })

  it('push: refuses when the phone denies or nobody answers within mfa.push_timeout_seconds, telling the user why, in the authentication log', async () => {
    const denied = await withPhone('t-push', 'deny', () => slow().authenticatePap('t-push', pw['t-push']))
    expect(denied.pass).to.equal(false)
    expect(denied.serverMsg).to.include('denied on your phone')
    const silent = await withPhone('t-push', 'silent', () => slow().authenticatePap('t-push', pw['t-push']))
    expect(silent.pass).to.equal(false)
    expect(silent.serverMsg).to.include('not answered in time')
    expect((await pushes('t-push')).slice(-2).map((c) => c.state)).to.deep.equal(['denied', 'expired'])
    const dir = path.join(t.dataDir, 'logs', 'tacacs')
    const log = readdirSync(dir).filter((f) => f.startsWith('authentication-')).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('').split('\n').filter((l) => l.includes('t-push'))
    expect(log.join('\n')).to.include('failed [the sign-in was denied on your phone]').and.include('failed [the push was not answered in time]')
    expect(await pap('t-push', 'wrong-' + pw['t-push']), 'a wrong password').to.equal(false)
    expect((await pushes('t-push')).length, 'sends no push').to.equal(4)
  })

  it('push: takes the password followed by the code as TOTP for a user with both factors, and sends no push then', async () => {
    expect(await pap('t-both', pw['t-both'] + codeAt(seed['t-both'], 1))).to.equal(true)
    expect(await pushes('t-both')).to.deep.equal([])
  })

  it('push: fails closed for a push user with the push service down, telling why; the code still works for a user with both', async () => {
    await push!.close()
    push = undefined
    const r = await slow().authenticatePap('t-push', pw['t-push'])
    expect(r.pass).to.equal(false)
    expect(r.serverMsg).to.include('could not be sent')
    expect(await pap('t-both2', pw['t-both2'] + codeAt(seed['t-both2'], 1))).to.equal(true)
  })

  it('says why on its stderr, which tac_plus-ng logs to syslog: the key refused, nothing answering (the release\'s backend run as the daemon runs it)', async () => {
    const run = (url: string, key: string) => {
      // Asynchronously: the platform answering it runs in this process.
      const child = spawn('/usr/bin/perl', [path.join(current(), 'portcullis-mfa.pl')], { env: { SHADOWFILE: path.join(current(), 'shadow'), MFA_URL: url, MFA_KEY: key } })
      let out = ''
      let err = ''
      child.stdout.on('data', (d) => (out += d))
      child.stderr.on('data', (d) => (err += d))
      child.stdin.end(['0 TACPLUS', '4 t-dave', `8 ${pw['t-dave']}${codeAt(seed['t-dave'], 1)}`, '49 AUTH', '='].join('\n') + '\n')
      return new Promise<{ out: string; err: string }>((resolve) => child.once('close', () => resolve({ out, err })))
    }
    const refused = await run(`http://127.0.0.1:${new URL(t.url).port}`, 'not-the-key-' + 'z'.repeat(40))
    expect(refused.out).to.match(/^6 ERR$/m).and.match(/=0\n$/)
    expect(refused.err, refused.err).to.include("portcullis-mfa: user t-dave: the second factor could not be checked: the platform's MFA surface answered 401; refused")
    const nobody = await run(`http://127.0.0.1:${await freePort()}`, INTERNAL_KEY)
    expect(nobody.out).to.match(/^6 ERR$/m)
    expect(nobody.err).to.match(/portcullis-mfa: user t-dave: the second factor could not be checked: the platform's MFA surface answered nothing \(.+\); refused/)
  })

  it('fails closed when the platform refuses the key, and when it is down: a backend failure for the device, in the daemon\'s log', async () => {
    const authLog = () => {
      const dir = path.join(t0.dataDir, 'logs', 'tacacs')
      return readdirSync(dir).filter((f) => f.startsWith('authentication-')).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('')
    }
    const t0 = t
    await setInternalKey(t, 'another-key-' + 'y'.repeat(40))
    const r = await client().authenticatePap('t-dave', pw['t-dave'] + codeAt(seed['t-dave'], 1))
    expect(r.status).to.equal('fail')
    expect(r.serverMsg).to.include('the second factor could not be checked')
    // ASCII answers as PAP does: FAIL, never ERROR, which a NAS with `group tacacs+ local` takes for
    // "server down" and then lets its local accounts in (issue 26, finding 11).
    const ascii = await client().authenticateAscii('t-dave', pw['t-dave'] + codeAt(seed['t-dave'], 1))
    expect(ascii.status).to.equal('fail')
    expect(await pap('t-plain', pw['t-plain']), 'whether a user has MFA is unknown: everyone is refused').to.equal(false)
    await setInternalKey(t)
    await t.stop()
    const down = await client().authenticatePap('t-dave', pw['t-dave'] + codeAt(seed['t-dave'], 1))
    expect(down.status).to.equal('fail')
    expect(down.serverMsg).to.include('the second factor could not be checked')
    expect((await client().authenticateAscii('t-dave', pw['t-dave'] + codeAt(seed['t-dave'], 1))).status).to.equal('fail')
    // Refused (FAIL, never ERROR), with the backend's reason in the log line.
    expect(authLog().split('\n').filter((l) => l.includes('t-dave')).at(-1)).to.include('failed [the second factor could not be checked]')
    t = undefined as unknown as TestApp
  })
})
