/**
 * TACACS+ CHAP, MS-CHAPv1 and MS-CHAPv2 against the real tac_plus-ng: users made through the API,
 * rendered, run, and logged in from the device's address with plugins/tacacs/client (RFC 8907
 * §5.4.2 STARTs). A user with chap_enabled (the platform keeps the cleartext) gets
 * `password chap`/`password ms-chap = clear …` and logs in by all three with the right password,
 * not with a wrong one; anyone else is rejected, tac_plus-ng's log line says why where the daemon
 * says it (CHAP: "no clear text password set"), and the policy test says the same. Two passwords
 * the daemon cannot be given exactly: one outside the Basic Multilingual Plane (its MS-CHAP hashes
 * it wrongly: CHAP only) and one holding `${` (environment substitution: neither). Then the
 * deploy: once CHAP is turned off, no older release keeps the password on disk.
 * Skips without TAC_PLUS_NG.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { logFileName, parseLogLine } from '../../renderers/log-format.js'
import { created, RULES, renderAndRun, startAaaApp, strongPassword, updated, type DaemonRun } from './support.js'

const KEY = 'chap-e2e-key'
const FROM = '127.27.0.2'

describe('tacacs e2e: CHAP and MS-CHAP logins on tac_plus-ng, as the policy test says', function () {
  this.timeout(180_000)
  let t: TestApp
  let run: DaemonRun
  let device: any
  const pw: Record<string, string> = {}
  const ids: Record<string, string> = {}

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()
    device = await created(t, '/api/v1/devices', { name: 'chap-sw', address: FROM, tacacs_key: KEY })
    const profile = await created(t, '/api/v1/tacacs/profiles', { name: 'chap-p', privilege_level: 15, default_action: 'permit' })
    const users: Record<string, { password: string; chap: boolean }> = {
      'c-chap': { password: strongPassword(), chap: true },
      'c-bmp': { password: `Pässwörd-€-${strongPassword()}`, chap: true },
      // Written with escapes (\\ \" \011): FreeRADIUS is not given this one (control character), tac_plus-ng is.
      'c-quote': { password: `Quote-"-\\-\t-#-${strongPassword()}`, chap: true },
      'c-astral': { password: `Pass-😀-${strongPassword()}`, chap: true },
      'c-dollar': { password: `Dollar-\${HOME}-${strongPassword()}`, chap: true },
      'c-plain': { password: strongPassword(), chap: false },
      'c-none': { password: '', chap: false },
    }
    for (const [username, u] of Object.entries(users)) {
      pw[username] = u.password || strongPassword()
      const body = { username, network_login: true, ...(u.password ? { password: u.password, chap_enabled: u.chap } : {}) }
      const made = await created(t, '/api/v1/users', body)
      ids[username] = made.id
      await created(t, RULES, { name: `r-${username}`, who: { user_id: made.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id, position: 0 })
    }
    run = await renderAndRun(t)
  })
  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  const client = () => new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
  const policy = async (username: string, method: string) => {
    const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username, device_id: device.id, method } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  const verdict = (pass: boolean) => (pass ? 'permit' : 'deny')

  it('renders the kept password for CHAP and MS-CHAP, quoted, only for chap_enabled users it can be written for', () => {
    const block = (u: string) => run.config.slice(run.config.indexOf(`user "${u}" {`), run.config.indexOf('}', run.config.indexOf(`user "${u}" {`)))
    expect(block('c-chap')).to.include(`password chap = clear "${pw['c-chap']}"`).and.include(`password ms-chap = clear "${pw['c-chap']}"`)
    expect(block('c-quote')).to.include(`password chap = clear "Quote-\\"-\\\\-\\011-#-`)
    expect(block('c-astral')).to.include('password chap = clear').and.include('outside the Basic Multilingual Plane')
    expect(block('c-astral')).to.not.include('password ms-chap')
    expect(block('c-dollar')).to.include('holds "${"')
    expect(block('c-dollar')).to.not.include('password chap')
    expect(run.config).to.not.include(pw['c-dollar'])
    for (const u of ['c-plain', 'c-none']) expect(block(u)).to.not.include('chap')
  })

  it('logs in a chap_enabled user by CHAP, MS-CHAPv1 and MS-CHAPv2 with the right password and never with a wrong one; rejects everyone else; the policy test agrees', async () => {
    const got: Record<string, string> = {}
    const said: Record<string, string> = {}
    // In parallel: tac_plus-ng answers a failed login after about a second.
    await Promise.all(
      Object.keys(pw).map(async (u) => {
        const right = pw[u]
        const wrong = right + 'x'
        const [chap, v1, v2, ...bad] = await Promise.all([
          client().authenticateChap(u, right), client().authenticateMschapV1(u, right), client().authenticateMschapV2(u, right),
          client().authenticateChap(u, wrong), client().authenticateMschapV1(u, wrong), client().authenticateMschapV2(u, wrong),
        ])
        Object.assign(got, { [`${u} chap`]: verdict(chap.pass), [`${u} mschapv1`]: verdict(v1.pass), [`${u} mschapv2`]: verdict(v2.pass) })
        expect(bad.map((r) => r.status), `${u} with a wrong password`).to.deep.equal(['fail', 'fail', 'fail'])
      }),
    )
    for (const u of Object.keys(pw)) for (const m of ['chap', 'mschapv2']) said[`${u} ${m}`] = (await policy(u, m)).decision
    expect(got).to.deep.equal({
      'c-chap chap': 'permit', 'c-chap mschapv1': 'permit', 'c-chap mschapv2': 'permit',
      'c-bmp chap': 'permit', 'c-bmp mschapv1': 'permit', 'c-bmp mschapv2': 'permit',
      'c-quote chap': 'permit', 'c-quote mschapv1': 'permit', 'c-quote mschapv2': 'permit',
      'c-astral chap': 'permit', 'c-astral mschapv1': 'deny', 'c-astral mschapv2': 'deny',
      'c-dollar chap': 'deny', 'c-dollar mschapv1': 'deny', 'c-dollar mschapv2': 'deny',
      'c-plain chap': 'deny', 'c-plain mschapv1': 'deny', 'c-plain mschapv2': 'deny',
      'c-none chap': 'deny', 'c-none mschapv1': 'deny', 'c-none mschapv2': 'deny',
    })
    // The policy test has no MS-CHAPv1 method: tac_plus-ng answers it as MS-CHAPv2 (one ms-chap password).
    expect(said).to.deep.equal(Object.fromEntries(Object.entries(got).filter(([k]) => !k.endsWith('mschapv1'))))
  })

  it('says why in the policy test, and in the daemon\'s log line where tac_plus-ng gives a reason', async () => {
    expect((await policy('c-plain', 'chap')).reason).to.contain('CHAP is not supported for user c-plain').and.contain('chap_enabled')
    expect((await policy('c-plain', 'mschapv2')).reason).to.contain('MS-CHAPv2 is not supported for user c-plain')
    expect((await policy('c-dollar', 'chap')).reason).to.contain('"${"')
    expect((await policy('c-astral', 'mschapv2')).reason).to.contain('Basic Multilingual Plane')
    expect((await policy('c-none', 'chap')).reason).to.contain('no network password')
    const file = path.join(run.logDir, logFileName('authentication', new Date()))
    const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => parseLogLine(l)!).filter((r) => r.kind === 'authentication')
    const first = (user: string, type: string) => rows.find((r) => r.user === user && r.authen_type === type) as Record<string, string>
    // The ingester keeps `hint` as the row's message and `authen-type` as its authen_type.
    expect(first('c-plain', 'chap')).to.include({ result: 'deny', msgid: 'AUTHC-FAIL-PASSWORD-NOT-TEXT', hint: 'failed (no clear text password set)' })
    expect(first('c-chap', 'chap')).to.include({ result: 'permit', rule: 'r-c-chap', profile: 'chap-p' })
    expect(first('c-chap', 'mschapv2')).to.include({ result: 'permit' })
    // MS-CHAP: tac_plus-ng overwrites its own no-cleartext hint with the plain "failed" (authen.c mschap_helper).
    expect(first('c-plain', 'mschapv2')).to.include({ result: 'deny', hint: 'failed' })
    expect(first('c-plain', 'mschap')).to.include({ result: 'deny', hint: 'failed' })
  })

  it('keeps no cleartext in older releases once CHAP is turned off and deployed (deploy housekeeping); a rollback to one answers 409', async () => {
    const releases = path.join(t.dataDir, 'releases', 'tac_plus-ng')
    const names = () => readdirSync(releases).filter((n) => /^\d{8}T/.test(n))
    const holds = (release: string, text: string) => readFileSync(path.join(releases, release, 'tac_plus-ng.cfg'), 'utf8').includes(text)
    const deploy = async () => {
      const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
      expect(r.status, r.text).to.equal(201)
      expect(r.body.deploys[0].checked, r.body.deploys[0].check_output).to.equal(true)
      return r.body.deploys[0]
    }
    const a = await deploy()
    expect(holds(a.release, pw['c-chap'])).to.equal(true)
    // The policy test against the deployed release reads the same (policy-test-inputs.json keeps whether, never the password).
    const deployed = async (username: string, method: string) =>
      (await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username, device_id: device.id, method, against: 'deployed' } })).body
    const ok = await deployed('c-chap', 'mschapv2')
    expect([ok.decision, ok.answered_from?.against, ok.answered_from?.release]).to.deep.equal(['permit', 'deployed', a.release])
    expect(await deployed('c-astral', 'mschapv2')).to.include({ decision: 'deny' })
    expect(await deployed('c-plain', 'chap')).to.include({ decision: 'deny' })
    expect(readFileSync(path.join(t.dataDir, 'releases', 'tac_plus-ng', a.release, 'policy-test-inputs.json'), 'utf8')).to.not.include(pw['c-chap'])
    await created(t, '/api/v1/devices', { name: 'chap-sw2', address: '127.27.0.3', tacacs_key: 'k2' })
    const b = await deploy()
    expect(names()).to.include.members([a.release, b.release])
    // Another CHAP user's password is turned off: every release holding it goes.
    await updated(t, `/api/v1/users/${ids['c-bmp']}`, { chap_enabled: false })
    const c = await deploy()
    expect(names()).to.deep.equal([c.release])
    expect(holds(c.release, pw['c-bmp'])).to.equal(false)
    expect(holds(c.release, pw['c-chap']), 'the others keep theirs').to.equal(true)
    const rb = await t.admin('POST', `/api/v1/deploys/${a.id}/rollback`, { body: {} })
    expect([rb.status, rb.body.code]).to.deep.equal([409, 'DEPLOY_RELEASE_MISSING'])
    expect(existsSync(path.join(releases, b.release))).to.equal(false)
    // And the preview of the deployed file masks the CHAP passwords as it masks keys.
    const cfg = await t.app.deploys.currentFiles('tac_plus-ng')
    const text = cfg!.files.find((f) => f.path === 'tac_plus-ng.cfg')!.content
    expect(text).to.include('password chap = ***').and.include('password ms-chap = ***').and.not.include(pw['c-chap'])
  })
})
