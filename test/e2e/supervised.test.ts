/**
 * The first run of issue 27: a node started with supervision on
 * (daemons.supervise) runs FreeRADIUS and tac_plus-ng itself. Before the first
 * deploy it is not ready (nothing to run); after it, radclient and the
 * project's TACACS+ client on loopback get the answers the policy test
 * predicts, and the log rows come back through the API with no log folder
 * configured. A daemon killed is started again; a new release restarts it on
 * the new policy; stopping the server leaves no daemon running.
 */
import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { TacacsClient } from '../../plugins/tacacs/client/index.js'
import { startTestApp, testEngines, type TestApp } from '../kit/app.js'
import { tacPlusNgBinary } from '../kit/tac-plus-ng.js'
import * as k from './support.js'

const SECRET = `s-${randomBytes(6).toString('hex')}`
const KEY = `k-${randomBytes(6).toString('hex')}`
const strongPassword = () => `Tq-${randomBytes(9).toString('base64url')}-7z`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

for (const engine of testEngines()) {
  describe(`first run with supervised daemons (${engine})`, function () {
    this.timeout(180_000)
    const tac = tacPlusNgBinary()
    const supervised = tac ? ['freeradius', 'tac_plus-ng'] : ['freeradius']
    let t: TestApp
    let rad: k.Radius
    let tacPort: number
    let swId = ''
    const pw: Record<string, string> = {}
    const users: Record<string, { id: string }> = {}
    const processes = async () => ((await t.admin('GET', '/api/v1/dashboard/system-info')).body.daemons as { daemon: string; state: string; pid: number | null; restarts: number; release: string | null }[])
    const predicted = async (username: string, protocol: 'radius' | 'tacacs') => (await k.ok(t, 'POST', '/api/v1/aaa/policy/test', { username, device_id: swId, protocol }, 200)).decision as string
    // Without tac_plus-ng its check cannot run, so only FreeRADIUS is deployed.
    const deploy = async () => (tac ? k.deployAll(t) : (await k.ok(t, 'POST', '/api/v1/deploys', { daemon: 'freeradius' }, 201)).deploys as any[])
    const tacLogin = (user: string) => new TacacsClient({ host: '127.0.0.1', port: tacPort, key: KEY, localAddress: '127.0.0.1', timeoutMs: 5000 }).authenticateAscii(user, pw[user])

    before(async function () {
      if (!k.FREERADIUS_PRESENT) {
        console.log('      skipped: FreeRADIUS 3.2 and radclient (Debian: freeradius, freeradius-utils) are not installed')
        return this.skip()
      }
      if (!tac) console.log('      (tac_plus-ng not supervised here: TAC_PLUS_NG is not set; CI builds it)')
      t = await startTestApp({ engine, plugins: k.CHAIN_PLUGINS, options: { 'daemons.supervise': supervised } })
      rad = k.radius(await k.freeUdpPort(), await k.freeUdpPort())
      tacPort = await k.freePort()
    })
    after(async () => {
      const pids = t ? (await processes().catch(() => [])).map((p) => p.pid).filter((p): p is number => p !== null) : []
      await t?.stop()
      // Stopping the server stops the daemons it runs.
      for (const pid of pids) expect(alive(pid), `daemon ${pid} still running after the server stopped`).to.equal(false)
    })

    it('before the first deploy: not ready, each supervised daemon down for want of a release', async () => {
      const r = await t.req('GET', '/ready')
      expect(r.status).to.equal(503)
      expect(r.body.checks.daemons).to.deep.equal(Object.fromEntries(supervised.map((d) => [d, 'down'])))
      for (const p of await processes()) expect(p).to.include({ state: 'no_release', pid: null })
    })

    it('after the first deploy: ready, and the daemons answer what the policy test predicts, with the log rows in the API', async () => {
      await k.setSetting(t, 'radius.auth_port', rad.port.auth)
      await k.setSetting(t, 'radius.acct_port', rad.port.acct)
      await k.setSetting(t, 'tacacs.listen_port', tacPort)
      await k.setSetting(t, 'aaa-logs.poll_ms', 200)
      const admins = await k.created(t, '/api/v1/user-groups', { name: 'net-admins' })
      for (const [name, body] of [['alice', { group_ids: [admins.id] }], ['carol', {}]] as const) {
        pw[name] = strongPassword()
        users[name] = await k.created(t, '/api/v1/users', { username: name, password: pw[name], network_login: true, ...body })
      }
      const core = await k.created(t, '/api/v1/device-groups', { name: 'core' })
      swId = (await k.created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: core.id, radius_secret: SECRET, tacacs_key: KEY })).id
      const radAdmin = await k.created(t, '/api/v1/radius/profiles', { name: 'admin', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] })
      const tacAdmin = await k.created(t, '/api/v1/tacacs/profiles', { name: 'tac-admin', privilege_level: 15, default_action: 'permit' })
      await k.created(t, '/api/v1/aaa/policy/rules', { name: 'admins-core', who: { group_id: admins.id }, where: { device_group_id: core.id }, radius_profile_id: radAdmin.id, tacacs_profile_id: tacAdmin.id })
      await deploy()

      const ready = await t.req('GET', '/ready')
      expect(ready.status, JSON.stringify(ready.body)).to.equal(200)
      expect(ready.body.checks.daemons).to.deep.equal(Object.fromEntries(supervised.map((d) => [d, 'running'])))
      const nodes = (await t.admin('GET', '/api/v1/cluster/nodes')).body.items as { this_node: boolean; daemons: { daemon: string; process: { state: string } | null }[] }[]
      for (const d of supervised) expect(nodes.find((n) => n.this_node)!.daemons.find((x) => x.daemon === d)?.process?.state, d).to.equal('running')

      expect(await predicted('alice', 'radius')).to.equal('permit')
      expect(await predicted('carol', 'radius')).to.equal('deny')
      expect((await rad.pap('alice', pw.alice, SECRET)).code).to.equal('Access-Accept')
      expect((await rad.pap('carol', pw.carol, SECRET)).code).to.equal('Access-Reject')
      expect((await k.waitForLogs(t, 'radius/authentication', { username: 'alice' }, 1))[0]).to.include({ username: 'alice' })
      if (tac) {
        expect(await predicted('alice', 'tacacs')).to.equal('permit')
        expect(await predicted('carol', 'tacacs')).to.equal('deny')
        expect((await tacLogin('alice')).status).to.equal('pass')
        expect((await tacLogin('carol')).status).to.equal('fail')
        expect((await k.waitForLogs(t, 'tacacs/authentication', { username: 'alice' }, 1))[0]).to.include({ username: 'alice', status: 'success' })
      }
    })

    it('a daemon killed is started again (counted), and answers', async () => {
      const before = (await processes()).find((p) => p.daemon === 'freeradius')!
      process.kill(before.pid!, 'SIGKILL')
      let now = before
      for (let i = 0; i < 100 && !(now.state === 'running' && now.pid !== before.pid); i++) {
        await sleep(100)
        now = (await processes()).find((p) => p.daemon === 'freeradius')!
      }
      expect(now).to.include({ state: 'running', restarts: before.restarts + 1 })
      expect(now.pid).to.not.equal(before.pid)
      let code: string | null = null
      for (let i = 0; i < 20 && code !== 'Access-Accept'; i++) code = (await rad.pap('alice', pw.alice, SECRET).catch(() => ({ code: null }))).code
      expect(code).to.equal('Access-Accept')
    })

    it('a new release restarts each daemon on it: alice disabled is refused by both at once', async () => {
      await k.ok(t, 'PUT', `/api/v1/users/${users.alice.id}`, { enabled: false }, 200)
      const deploys = await deploy()
      for (const d of deploys) expect(d.reload_status, `${d.daemon}: ${d.reload_output}`).to.equal('ok')
      for (const p of await processes()) expect(p, p.daemon).to.include({ state: 'running', release: deploys.find((d) => d.daemon === p.daemon).release })
      expect((await rad.pap('alice', pw.alice, SECRET)).code).to.equal('Access-Reject')
      if (tac) expect((await tacLogin('alice')).status).to.equal('fail')
    })
  })
}
