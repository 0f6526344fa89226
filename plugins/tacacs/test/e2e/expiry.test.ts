/**
 * User expiry against the real tac_plus-ng: users made through the API with `expires_at` in the
 * past, far ahead and a few seconds ahead, rendered (`valid until = <seconds since 1970>`), run, and
 * asked by the client from the device's address. The daemon refuses an expired user's PAP, ASCII
 * and enable logins with the right password, accepts one not yet expired, and enforces the instant
 * itself to the second with no deploy in between; it does not check expiry on an authorization.
 * The policy test must say the same for each. Skips without TAC_PLUS_NG.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, RULES, renderAndRun, startAaaApp, strongPassword, type DaemonRun } from './support.js'

const KEY = 'expiry-e2e-key'
const FROM = '127.26.0.2'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('tacacs e2e: user expiry on tac_plus-ng (valid until), as the policy test says', function () {
  this.timeout(120_000)
  let t: TestApp
  let run: DaemonRun
  let device: any
  let soon = 0
  const pw: Record<string, string> = {}

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()
    device = await created(t, '/api/v1/devices', { name: 'exp-sw', address: FROM, tacacs_key: KEY })
    const profile = await created(t, '/api/v1/tacacs/profiles', { name: 'exp-p', privilege_level: 15, default_action: 'permit', enable_mode: 'login' })
    const now = Date.now()
    soon = now + 12_000
    const users: Record<string, string> = {
      'x-past': new Date(now - 86400_000).toISOString(),
      'x-future': new Date(now + 30 * 86400_000).toISOString(),
      'x-soon': new Date(soon).toISOString(),
    }
    for (const [username, expires_at] of Object.entries(users)) {
      pw[username] = strongPassword()
      const u = await created(t, '/api/v1/users', { username, password: pw[username], network_login: true, expires_at })
      await created(t, RULES, { name: `r-${username}`, who: { user_id: u.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id, position: 0 })
    }
    run = await renderAndRun(t)
  })
  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  const client = () => new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
  const policy = async (username: string, method?: string, at?: string) => {
    const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username, device_id: device.id, ...(method ? { method } : {}), ...(at ? { at } : {}) } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }

  it('renders the expiry as `valid until` in seconds since 1970, with the instant in a comment', () => {
    expect(run.config).to.match(/# expires \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z\n\s+valid until = \d+\n/)
    expect(run.config).to.include(`valid until = ${Math.floor(soon / 1000)}`)
  })

  it('refuses an expired user with the right password (PAP, ASCII, enable) and accepts one not yet expired; the policy test agrees', async () => {
    const got: Record<string, string> = {}
    const said: Record<string, string> = {}
    for (const u of ['x-past', 'x-future']) {
      got[`${u} pap`] = (await client().authenticatePap(u, pw[u])).pass ? 'permit' : 'deny'
      got[`${u} ascii`] = (await client().authenticateAscii(u, pw[u])).pass ? 'permit' : 'deny'
      got[`${u} enable`] = (await client().enable(u, pw[u])).pass ? 'permit' : 'deny'
      for (const m of ['pap', 'ascii', 'enable']) said[`${u} ${m}`] = (await policy(u, m)).decision
    }
    expect(got).to.deep.equal({ 'x-past pap': 'deny', 'x-past ascii': 'deny', 'x-past enable': 'deny', 'x-future pap': 'permit', 'x-future ascii': 'permit', 'x-future enable': 'permit' })
    expect(said).to.deep.equal(got)
    expect((await policy('x-past', 'pap')).reason).to.include('expired at')
  })

  it('an authorization alone is not checked for expiry by tac_plus-ng, and the policy test says so', async () => {
    const r = await client().authorize('x-past', { cmd: '' })
    // Checked on 2026-11 sources: author.c never calls user_expiry_check; a session opened before the instant goes on.
    expect(r.permitted).to.equal(true)
    const said = await policy('x-past')
    expect(said.decision).to.equal('permit')
    expect(said.reason).to.include('checks expiry at login only')
  })

  it('enforces the instant itself, to the second, with no deploy in between', async () => {
    expect((await client().authenticatePap('x-soon', pw['x-soon'])).pass).to.equal(true)
    expect((await policy('x-soon', 'pap', new Date(soon - 1000).toISOString())).decision).to.equal('permit')
    expect((await policy('x-soon', 'pap', new Date(soon).toISOString())).decision).to.equal('deny')
    await sleep(Math.max(0, soon - Date.now()) + 1100)
    expect((await client().authenticatePap('x-soon', pw['x-soon'])).pass).to.equal(false)
    expect((await policy('x-soon', 'pap')).decision).to.equal('deny')
  })
})
