/**
 * Account lockout against the real tac_plus-ng (renderers/lockout.ts): settings
 * identity.lockout_threshold 3 and identity.lockout_seconds 10, deployed through the API (the MAVIS
 * backend reads the release's shadow file through `releases/tac_plus-ng/current`), the daemon run
 * from the active release and asked by the client. Wrong PAP, ASCII and enable passwords count; at
 * the threshold the right password is refused until the period ends; another user is not touched;
 * an administrator's clear takes effect at the next deploy. CHAP and MS-CHAP are not given while the
 * lockout is on, and the policy test says why. With the threshold 0 nothing of it is rendered.
 * Skips without TAC_PLUS_NG.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../../test/kit/app.js'
import { freePort, startTacPlusNg, TAC_PLUS_NG_SKIP, tacPlusNgBinary, type RunningTacPlusNg } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, PLUGINS, renderTacPlusNg, RULES, setSetting, strongPassword } from './support.js'

const KEY = 'lockout-e2e-key'
const FROM = '127.27.0.2'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('tacacs e2e: account lockout on tac_plus-ng (MAVIS tacauth_limit), as the settings say', function () {
  this.timeout(180_000)
  let t: TestApp
  let daemon: RunningTacPlusNg | undefined
  let device: any
  let port = 0
  let lockDir = ''
  const pw: Record<string, string> = {}
  const ids: Record<string, string> = {}

  const current = () => path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current')
  async function deployAndRun(): Promise<void> {
    await daemon?.stop()
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'lockout e2e' } })
    expect(r.status, JSON.stringify(r.body)).to.equal(201)
    for (const d of r.body.deploys) expect(d.status, JSON.stringify(d)).to.equal('active')
    daemon = await startTacPlusNg({ configFile: path.join(current(), 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
  }

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    // Short: tac_plus-ng cuts a count folder longer than 32 characters (renderers/lockout.ts).
    lockDir = mkdtempSync('/tmp/tl-')
    t = await startTestApp({ plugins: PLUGINS, options: { 'tacacs.lockout_directory': lockDir } })
    port = await freePort()
    await setSetting(t, 'tacacs.listen_address', '127.0.0.1')
    await setSetting(t, 'tacacs.listen_port', port)
    await setSetting(t, 'identity.lockout_threshold', 3)
    await setSetting(t, 'identity.lockout_seconds', 10)
    device = await created(t, '/api/v1/devices', { name: 'lock-sw', address: FROM, tacacs_key: KEY })
    const profile = await created(t, '/api/v1/tacacs/profiles', { name: 'lock-p', privilege_level: 15, default_action: 'permit', enable_mode: 'login' })
    for (const username of ['l-alice', 'l-bob', 'l-carol', 'l-dave']) {
      pw[username] = strongPassword()
      const u = await created(t, '/api/v1/users', { username, password: pw[username], network_login: true, chap_enabled: username === 'l-bob' })
      ids[username] = u.id
      await created(t, RULES, { name: `r-${username}`, who: { user_id: u.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id, position: 0 })
    }
    await deployAndRun()
  })
  after(async () => {
    await daemon?.stop()
    await t?.stop()
    if (lockDir) rmSync(lockDir, { recursive: true, force: true })
  })

  const client = () => new TacacsClient({ host: '127.0.0.1', port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
  const pap = async (u: string, p: string) => (await client().authenticatePap(u, p)).pass
  const policy = async (username: string, method: string, against: 'database' | 'deployed' = 'database') => {
    const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username, device_id: device.id, method, ...(against === 'deployed' ? { against } : {}) } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }

  it('renders the MAVIS chain over the release shadow file, without CHAP or MS-CHAP passwords; the policy test says why', async () => {
    const config = readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')
    expect(config).to.include('mavis module = tacauth_limit {').and.include('blacklist count = 3').and.include('blacklist time = 10')
    expect(config).to.include(`setenv SHADOWFILE = "${path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'shadow')}"`)
    expect(config).to.not.match(/password (?:chap|ms-chap) =/)
    expect(config).to.match(/user "?l-bob"? \{\n\s+# checked through MAVIS[^\n]*CHAP[^\n]*\n\s+password login = mavis\n\s+password pap = login\n/)
    const shadow = readFileSync(path.join(current(), 'shadow'), 'utf8')
    expect(shadow.split('\n').filter(Boolean).map((l) => l.split(':')[0])).to.deep.equal(['l-alice', 'l-bob', 'l-carol', 'l-dave'])
    expect(statSync(path.join(current(), 'shadow')).mode & 0o007, 'nothing for others').to.equal(0)
    for (const [m, against] of [['chap', 'database'], ['mschapv2', 'database'], ['chap', 'deployed'], ['mschapv2', 'deployed']] as const) {
      const said = await policy('l-bob', m, against)
      expect(said.decision).to.equal('deny')
      expect(said.reason).to.include('account lockout is on: tac_plus-ng would check CHAP outside the failure count')
    }
    expect(await pap('l-bob', pw['l-bob'])).to.equal(true)
  })

  it('refuses the right PAP password after 3 wrong ones, leaves another user alone, and accepts again after identity.lockout_seconds', async () => {
    expect(await pap('l-alice', pw['l-alice'])).to.equal(true)
    for (let i = 0; i < 3; i++) expect(await pap('l-alice', 'wrong-' + i)).to.equal(false)
    const lockedAt = Date.now()
    expect(await pap('l-alice', pw['l-alice']), 'locked out').to.equal(false)
    expect(await pap('l-bob', pw['l-bob']), 'another user').to.equal(true)
    await sleep(Math.max(0, lockedAt + 11_500 - Date.now()))
    expect(await pap('l-alice', pw['l-alice']), 'after the period').to.equal(true)
  })

  it('counts wrong ASCII and enable passwords too', async () => {
    expect((await client().authenticateAscii('l-carol', 'wrong-a')).pass).to.equal(false)
    expect((await client().enable('l-carol', 'wrong-e')).pass).to.equal(false)
    expect((await client().authenticateAscii('l-carol', 'wrong-b')).pass).to.equal(false)
    expect((await client().authenticateAscii('l-carol', pw['l-carol'])).pass, 'ASCII with the right password, locked').to.equal(false)
    expect((await client().enable('l-carol', pw['l-carol'])).pass, 'enable with the right password, locked').to.equal(false)
  })

  it("an administrator's clear lets the user in at the next deploy, before the period ends", async () => {
    for (let i = 0; i < 3; i++) expect(await pap('l-dave', 'wrong-' + i)).to.equal(false)
    expect(await pap('l-dave', pw['l-dave'])).to.equal(false)
    const r = await t.admin('POST', `/api/v1/users/${ids['l-dave']}/lockout/clear`, { body: {} })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    await deployAndRun()
    expect(readFileSync(path.join(current(), 'tac_plus-ng.cfg'), 'utf8')).to.match(/if \(\$USER == "?l-dave"?\) set \$CUSTOM_0 = "cleared \d+"/)
    expect(await pap('l-dave', pw['l-dave'])).to.equal(true)
  })

  it('with identity.lockout_threshold 0 renders no MAVIS and no shadow file, and CHAP again', async () => {
    await setSetting(t, 'identity.lockout_threshold', 0)
    const files = await renderTacPlusNg(t)
    expect(files.map((f) => f.path)).to.deep.equal(['tac_plus-ng.cfg'])
    expect(files[0].content).to.not.include('mavis')
    expect(files[0].content).to.match(/password chap = clear /)
    expect((await policy('l-bob', 'chap')).decision).to.equal('permit')
    // The active release was rendered with the lockout on: answered from it, CHAP is still refused.
    expect((await policy('l-bob', 'chap', 'deployed')).reason).to.include('account lockout is on')
    await setSetting(t, 'identity.lockout_threshold', 3)
  })
})

describe('tacacs: account lockout needs Perl and the MAVIS folder', function () {
  this.timeout(60_000)
  it('refuses to render, naming the server option, when Perl or the MAVIS folder is missing', async () => {
    for (const [options, option] of [
      [{ 'tacacs.perl_binary': '/nonexistent/perl' }, 'tacacs.perl_binary'],
      [{ 'tacacs.mavis_directory': '/nonexistent/mavis' }, 'tacacs.mavis_directory'],
      [{ 'tacacs.lockout_directory': null }, 'tacacs.lockout_directory'],
    ] as const) {
      // The test app's data folder (/tmp/portcullis-app-XXXXXX/tacacs-lock) is too long for tacauth_limit.
      const t = await startTestApp({ plugins: PLUGINS, options: { 'tacacs.lockout_directory': '/tmp/tl-short', ...options } })
      try {
        await setSetting(t, 'identity.lockout_threshold', 3)
        let error: unknown = null
        await renderTacPlusNg(t).catch((e) => (error = e))
        expect(String(error)).to.include(option)
      } finally {
        await t.stop()
      }
    }
  })
})
