/**
 * Enable against the real tac_plus-ng: profiles with enable_mode none, login and secret (and a
 * secret granting level 5 only) made through the API, rendered, run, and asked by the client's
 * `enable` (ASCII, service ENABLE, the level in priv_lvl) from the device's address; the policy
 * test's `method: enable` must say the same for every user (the right password assumed), and a
 * wrong password never enables. Skips without TAC_PLUS_NG.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, RULES, renderAndRun, startAaaApp, strongPassword, type DaemonRun } from './support.js'

const KEY = 'enable-e2e-key'
const FROM = '127.25.0.2'
const SECRET = 'En@ble s3cret 100%'

describe('tacacs e2e: enable per profile (none, login, secret) on tac_plus-ng, as the policy test says', function () {
  this.timeout(120_000)
  let t: TestApp
  let run: DaemonRun
  const pw: Record<string, string> = {}
  let device: any

  /** user → [profile body, has a password] */
  const USERS: Record<string, [Record<string, unknown>, boolean]> = {
    'en-none': [{}, true],
    'en-login': [{ enable_mode: 'login' }, true],
    'en-secret': [{ enable_mode: 'secret', enable_secret: SECRET }, true],
    'en-low': [{ enable_mode: 'secret', enable_secret: SECRET, enable_privilege_level: 5 }, true],
    'en-login-nopw': [{ enable_mode: 'login' }, false],
    'en-secret-nopw': [{ enable_mode: 'secret', enable_secret: SECRET }, false],
  }

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()
    device = await created(t, '/api/v1/devices', { name: 'en-sw', address: FROM, tacacs_key: KEY })
    for (const [username, [profile, hasPassword]] of Object.entries(USERS)) {
      pw[username] = strongPassword()
      const user = await created(t, '/api/v1/users', { username, network_login: true, ...(hasPassword ? { password: pw[username] } : {}) })
      const p = await created(t, '/api/v1/tacacs/profiles', { name: `p-${username}`, privilege_level: 1, default_action: 'permit', ...profile })
      expect(p).to.not.have.property('enable_secret')
      await created(t, RULES, { name: `r-${username}`, who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: p.id, position: 0 })
    }
    run = await renderAndRun(t)
  })
  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  const client = () => new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
  const policyEnable = async (username: string) => {
    const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username, device_id: device.id, method: 'enable' } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }

  it('renders the secret as its SHA-512 crypt only, and the login mode as `enable 15 = login`', () => {
    expect(run.config).to.not.include(SECRET)
    expect(run.config).to.match(/enable 15 = crypt "\$6\$[^"]+"/)
    expect(run.config).to.match(/enable 5 = crypt "\$6\$[^"]+"/)
    expect(run.config).to.include('enable 15 = login')
  })

  it('enable (level 15) passes exactly where the policy test permits, with the password the profile names; a wrong one never', async () => {
    // The password each mode takes: the login password, or the profile's secret.
    const right = (u: string) => (USERS[u][0].enable_mode === 'secret' ? SECRET : pw[u] || 'no-password-at-all')
    const got: Record<string, string> = {}
    const said: Record<string, string> = {}
    for (const u of Object.keys(USERS)) {
      const r = await client().enable(u, right(u))
      got[u] = r.pass ? 'permit' : 'deny'
      said[u] = (await policyEnable(u)).decision
      const wrong = await client().enable(u, `${right(u)}-wrong`)
      expect(wrong.pass, `${u}: a wrong enable password`).to.equal(false)
    }
    expect(got).to.deep.equal({ 'en-none': 'deny', 'en-login': 'permit', 'en-secret': 'permit', 'en-low': 'deny', 'en-login-nopw': 'deny', 'en-secret-nopw': 'permit' })
    expect(said).to.deep.equal(got)
  })

  it('the login password does not enable with a secret profile, nor the secret with a login one', async () => {
    expect((await client().enable('en-secret', pw['en-secret'])).pass).to.equal(false)
    expect((await client().enable('en-login', SECRET)).pass).to.equal(false)
  })

  it('a profile granting level 5 enables to 5 and below, not above', async () => {
    expect((await client().enable('en-low', SECRET, { privLvl: 5 })).pass).to.equal(true)
    expect((await client().enable('en-low', SECRET, { privLvl: 3 })).pass).to.equal(true)
    expect((await client().enable('en-low', SECRET, { privLvl: 6 })).pass).to.equal(false)
  })

  it('the policy test says why enable is refused', async () => {
    expect((await policyEnable('en-none')).reason).to.include('enable_mode is none')
    expect((await policyEnable('en-low')).reason).to.include('up to level 5 only')
    expect((await policyEnable('en-login-nopw')).reason).to.include('no network password')
  })

  it('logins are unchanged: PAP still takes the login password', async () => {
    expect((await client().authenticatePap('en-secret', pw['en-secret'])).pass).to.equal(true)
    expect((await client().authenticatePap('en-secret', SECRET)).pass).to.equal(false)
  })
})
