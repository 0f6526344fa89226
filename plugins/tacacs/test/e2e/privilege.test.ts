/**
 * Per-command privilege levels against the real tac_plus-ng: command entries with
 * `min_privilege_level` (made through the API) apply only to requests at that level or above,
 * otherwise the next entry decides. Every line at every level is asked of the daemon (the level in
 * the request's priv_lvl, as Cisco IOS sends it) and of the policy test (`priv_lvl`): zero
 * disagreements. Skips without TAC_PLUS_NG.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, RULES, renderAndRun, startAaaApp, strongPassword, type DaemonRun } from './support.js'

const KEY = 'privilege-e2e-key'
const FROM = '127.27.0.2'
const COMMANDS = [
  { command: 'configure', action: 'permit', min_privilege_level: 15 },
  { command: 'show', action: 'permit', min_privilege_level: 5, arguments: [{ match_type: 'prefix', value: 'running-config' }] },
  { command: 'show', action: 'deny', arguments: [{ match_type: 'prefix', value: 'running-config' }] },
  { command: 'show', action: 'permit' },
  { command: 'debug', action: 'deny', min_privilege_level: 7 },
  { command: 'debug', action: 'permit' },
  { command: 'reload', action: 'permit', min_privilege_level: 0 },
]
const LINES = ['configure terminal', 'show running-config', 'show version', 'debug ip packet', 'reload', 'write memory']
const LEVELS = [0, 1, 4, 5, 6, 7, 14, 15]

describe('tacacs e2e: per-command privilege levels on tac_plus-ng, as the policy test says', function () {
  this.timeout(180_000)
  let t: TestApp
  let run: DaemonRun
  let device: any

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()
    device = await created(t, '/api/v1/devices', { name: 'priv-sw', address: FROM, tacacs_key: KEY })
    const user = await created(t, '/api/v1/users', { username: 'priv-user', password: strongPassword(), network_login: true })
    const set = await created(t, '/api/v1/tacacs/command-sets', { name: 'by-level', commands: COMMANDS })
    expect(set.commands[0]).to.include({ min_privilege_level: 15 })
    expect(set.commands[3]).to.not.have.property('min_privilege_level')
    const p = await created(t, '/api/v1/tacacs/profiles', { name: 'by-level', privilege_level: 1, command_set_ids: [set.id], default_action: 'deny' })
    await created(t, RULES, { name: 'priv', who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: p.id, position: 0 })
    run = await renderAndRun(t)
  })
  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  it('renders the level as a priv-lvl condition beside the command pattern', () => {
    expect(run.config).to.include('&& priv-lvl =~ /^(?:15)$/) permit')
    expect(run.config).to.include('&& priv-lvl =~ /^(?:7|8|9|10|11|12|13|14|15)$/) deny')
  })

  it('every line at every level: the daemon and the policy test agree', async () => {
    const client = new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
    const got: Record<string, string> = {}
    const said: Record<string, string> = {}
    for (const level of LEVELS) {
      for (const line of LINES) {
        const [cmd, ...args] = line.split(' ')
        const r = await client.authorize('priv-user', { cmd, args: [...args, '<cr>'], privLvl: level })
        got[`${level} ${line}`] = r.permitted ? 'permit' : 'deny'
        const p = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username: 'priv-user', device_id: device.id, command: line, priv_lvl: level } })
        expect(p.status, JSON.stringify(p.body)).to.equal(200)
        said[`${level} ${line}`] = p.body.command_decision.decision
      }
    }
    expect(said).to.deep.equal(got)
    // What the levels do, spelled out for a few cells.
    expect(got).to.include({ '15 configure terminal': 'permit', '14 configure terminal': 'deny', '5 show running-config': 'permit', '4 show running-config': 'deny' })
    expect(got).to.include({ '6 debug ip packet': 'permit', '7 debug ip packet': 'deny', '0 reload': 'permit', '15 write memory': 'deny' })
  })

  it('the policy test defaults to the profile\'s privilege level, and says the level in its reason', async () => {
    const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username: 'priv-user', device_id: device.id, command: 'configure terminal' } })
    expect(r.body.command_decision.decision).to.equal('deny')
    const at15 = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username: 'priv-user', device_id: device.id, command: 'configure terminal', priv_lvl: 15 } })
    expect(at15.body.command_decision.reason).to.include('at privilege level 15 or above')
  })
})
