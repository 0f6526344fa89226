/**
 * Palo Alto systems send TACACS+ authorization and accounting with minor version 1 (tac_plus-ng's
 * manual, "bug compatibility"); RFC 8907 asks for 0 and tac_plus-ng answers such packets with
 * ERROR "Illegal packet" unless `bug compatibility = 2` holds for the device. The renderer writes it
 * once for the whole tac_plus-ng block, and every device (nested in a device group too) inherits it:
 * both versions get the same answer. Without the line the daemon refuses them: checked here by
 * running the same configuration with it removed. Skips without TAC_PLUS_NG.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { freePort, startTacPlusNg, TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, RULES, renderAndRun, startAaaApp, strongPassword, type DaemonRun } from './support.js'

const KEY = 'minor-e2e-key'
const FROM = '127.28.0.2'

describe('tacacs e2e: authorization and accounting of minor version 1 (Palo Alto) on tac_plus-ng', function () {
  this.timeout(120_000)
  let t: TestApp
  let run: DaemonRun

  before(async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      return this.skip()
    }
    t = await startAaaApp()
    const group = await created(t, '/api/v1/device-groups', { name: 'firewalls' })
    const device = await created(t, '/api/v1/devices', { name: 'pa-fw', address: FROM, tacacs_key: KEY, vendor: 'Palo Alto', device_group_id: group.id })
    const profile = await created(t, '/api/v1/tacacs/profiles', { name: 'pa-p', privilege_level: 15, default_action: 'permit' })
    const u = await created(t, '/api/v1/users', { username: 'pa-admin', password: strongPassword(), network_login: true })
    await created(t, RULES, { name: 'pa', who: { user_id: u.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id, position: 0 })
    run = await renderAndRun(t)
  })
  after(async () => {
    await run?.stop()
    await t?.stop()
  })

  const ask = async (port: number, minorVersion: 0 | 1) => {
    const c = new TacacsClient({ host: '127.0.0.1', port, key: KEY, localAddress: FROM, timeoutMs: 8000 })
    const author = await c.authorize('pa-admin', { cmd: '', minorVersion })
    const acct = await c.account('pa-admin', { flags: 'start', args: ['task_id=1', 'service=shell'], minorVersion })
    return { author: author.status, args: author.args, acct: acct.status, msg: author.serverMsg }
  }

  it('renders `bug compatibility = 2` once, for every device', () => {
    expect(run.config.match(/^\s*bug compatibility = 2$/gm)).to.have.length(1)
  })

  it('answers minor version 1 as it answers 0; without the line tac_plus-ng refuses them', async () => {
    const v0 = await ask(run.daemon.port, 0)
    expect(v0).to.deep.include({ author: 'pass_add', acct: 'success' })
    expect(await ask(run.daemon.port, 1)).to.deep.equal(v0)

    const stripped = path.join(run.dir, 'stripped.cfg')
    const port = await freePort()
    writeFileSync(stripped, run.config.replace(/^\s*bug compatibility = 2\n/m, '').replace(/port = \d+/, `port = ${port}`), { mode: 0o600 })
    const other = await startTacPlusNg({ configFile: stripped, port })
    try {
      expect(await ask(port, 0)).to.deep.equal(v0)
      const v1 = await ask(port, 1)
      expect(v1).to.deep.include({ author: 'error', acct: 'error' })
      expect(v1.msg).to.match(/^Illegal packet/)
    } finally {
      await other.stop()
    }
  })
})
