/**
 * The `portcullis` command line: render / check / deploy on a real database,
 * and, with TAC_PLUS_NG, the tacacs plugin's tacacs-probe command against
 * tac_plus-ng running the deployed release. (The RADIUS probe's tests are the
 * radius plugin's: plugins/radius/test/probe.test.ts.)
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import { freePort, startTacPlusNg, tacPlusNgBinary, TAC_PLUS_NG_SKIP } from '../kit/tac-plus-ng.js'
import { created, PLUGINS as AAA_PLUGINS, RULES, setSetting, strongPassword } from '../../plugins/tacacs/test/e2e/support.js'
import { current } from './helpers.js'
import { scratchFolder } from '../kit/scratch.js'
import { runCommand } from '../kit/cli.js'

const cli = (args: string[], env: Record<string, string> = {}) => runCommand(args, { ...process.env, LOG_LEVEL: 'silent', ...env })

describe('portcullis CLI', function () {
  this.timeout(120_000)

  describe('render, check, deploy', () => {
    let t: TestApp
    let dataDir: string
    let env: Record<string, string>
    before(async () => {
      dataDir = scratchFolder('portcullis-cli-')
      const plugins = ['inventory', 'tacacs', './examples/greetings-plugin', './test/fixtures/plugins/deploy-probe']
      t = await startTestApp({ plugins, dataDir })
      await t.admin('POST', '/api/v1/greetings', { body: { name: 'cli', message: 'Hello' } })
      // On the embedded engine the command opens the stopped app's data folder (an empty DATABASE_URL is none).
      env = { DATABASE_URL: t.databaseUrl ?? '', DATA_DIR: dataDir, MASTER_KEY: t.masterKey, PLUGINS: plugins.join(','), TAC_PLUS_NG: '' }
      await t.stop()
    })
    after(() => rmSync(dataDir, { recursive: true, force: true }))

    it('render writes every daemon\'s files into a new folder, with their modes', async () => {
      const r = await cli(['render', '--out', path.join(dataDir, 'out')], env)
      expect(r.code, r.stderr).to.equal(0)
      expect(r.stdout).to.match(/tac_plus-ng: rendered into .*out\/tac_plus-ng\n\s+0600\s+\d+ B\s+[0-9a-f]{16}\s+tac_plus-ng\.cfg/)
      expect(readFileSync(path.join(dataDir, 'out', 'motd', 'motd.txt'), 'utf8')).to.equal('Hello, cli!\n')
      const again = await cli(['render', '--out', path.join(dataDir, 'out')], env)
      expect(again.code).to.equal(1)
      expect(again.stderr).to.match(/exists already/)
    })

    it('check runs the daemon\'s check on a folder: PASS, FAIL with the output, SKIPPED without the binary', async () => {
      expect((await cli(['check', path.join(dataDir, 'out', 'brokend'), '--daemon', 'brokend'], env)).stdout).to.match(/brokend .*: PASS/)
      const skipped = await cli(['check', path.join(dataDir, 'out', 'tac_plus-ng'), '--daemon', 'tac_plus-ng'], { ...env, PATH: '/usr/bin:/bin' })
      expect(skipped.stdout).to.match(/SKIPPED\n\s+tac_plus-ng not found: check skipped/)
      const bin = tacPlusNgBinary()
      if (bin) {
        const real = await cli(['check', path.join(dataDir, 'out', 'tac_plus-ng'), '--daemon', 'tac_plus-ng'], { ...env, TAC_PLUS_NG: bin })
        expect(real.code, real.stdout + real.stderr).to.equal(0)
        expect(real.stdout).to.match(/tac_plus-ng .*: PASS/)
      }
      expect((await cli(['check', '--daemon', 'motd'], env)).code).to.equal(2)
    })

    it('deploy refuses a release its daemon could not check, activates, deploy --dry-run shows no change, an unknown daemon fails', async () => {
      // No tac_plus-ng binary: its check cannot run, so nothing is activated (deploy.allow_unchecked is off).
      const refused = await cli(['deploy', '--comment', 'from the cli'], env)
      expect(refused.code).to.equal(1)
      expect(refused.stderr).to.match(/DEPLOY_CHECK_SKIPPED: The configuration of tac_plus-ng could not be checked \(tac_plus-ng not found: check skipped\); nothing was deployed/)
      // Each other daemon's result, as the API words it.
      expect(refused.stderr).to.match(/The other daemons of this deploy: .*motd, not checked \(no check ran for it\), was not activated because the check of tac_plus-ng did not pass; deploy motd alone to activate it/)
      expect(current(dataDir, 'motd')).to.equal(null)
      // motd declares no check: nothing to run, so nothing is refused.
      const d = await cli(['deploy', '--daemon', 'motd', '--comment', 'from the cli'], env)
      expect(d.code, d.stderr).to.equal(0)
      expect(d.stdout).to.match(/^motd: ACTIVE  release (\S+)/m)
      const release = /^motd: ACTIVE {2}release (\S+)/m.exec(d.stdout)![1]
      expect(current(dataDir, 'motd')).to.equal(release)
      const dry = await cli(['deploy', '--dry-run', '--daemon', 'motd'], env)
      expect(dry.code).to.equal(0)
      expect(dry.stdout).to.equal(`motd: no change from ${release}; check SKIPPED\n`)
      const unknown = await cli(['deploy', '--daemon', 'nope'], env)
      expect(unknown.code).to.equal(1)
      expect(unknown.stderr).to.match(/DEPLOY_DAEMON_UNKNOWN: No renderer produces configuration for daemon "nope"/)
    })
  })

  // tacacs-probe talks to the daemon only; the deploy under it runs on both engines above and in deploy.test.ts:
  // once per `npm test`, in its embedded run (docs/testing.md).
  ;(runsOn('embedded') ? describe : describe.skip)('tacacs-probe against tac_plus-ng running the deployed release', () => {
    it('PASS for a permitted user and command, FAIL for a wrong password or a denied command', async function () {
      const bin = tacPlusNgBinary()
      if (!bin) {
        console.log(`      (skipped: ${TAC_PLUS_NG_SKIP})`)
        return this.skip()
      }
      const t = await startTestApp({ plugins: AAA_PLUGINS })
      let daemon: Awaited<ReturnType<typeof startTacPlusNg>> | undefined
      try {
        const pw = strongPassword()
        const alice = await created(t, '/api/v1/users', { username: 'alice', password: pw, network_login: true })
        const lo = await created(t, '/api/v1/devices', { name: 'lo', address: '127.0.0.1', tacacs_key: 'probe-key' })
        const set = await created(t, '/api/v1/tacacs/command-sets', { name: 'show-only', commands: [{ command: 'show', action: 'permit' }] })
        const prof = await created(t, '/api/v1/tacacs/profiles', { name: 'ro', privilege_level: 7, command_set_ids: [set.id], default_action: 'deny' })
        await created(t, RULES, { name: 'alice-lo', who: { user_id: alice.id }, where: { device_id: lo.id }, tacacs_profile_id: prof.id })
        const port = await freePort()
        await setSetting(t, 'tacacs.listen_port', port)
        const dep = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
        expect(dep.status, dep.text).to.equal(201)
        expect(dep.body.deploys[0].checked).to.equal(true)
        daemon = await startTacPlusNg({ configFile: path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'tac_plus-ng.cfg'), port, mkdirs: [path.join(t.dataDir, 'logs', 'tacacs')] })
        const base = ['tacacs-probe', '--host', '127.0.0.1', '--port', String(port), '--key', 'probe-key', '--user', 'alice']
        const ok = await cli([...base, '--password', pw, '--command', 'show running-config', '--account', 'stop'])
        expect(ok.code, ok.stdout + ok.stderr).to.equal(0)
        expect(ok.stdout).to.match(/authentication \(ascii login\): PASS/)
        expect(ok.stdout).to.match(/authorization exec shell:\s+PASS[\s\S]*priv-lvl=7/)
        expect(ok.stdout).to.match(/authorization "show running-config": PASS/)
        expect(ok.stdout).to.match(/accounting stop:\s+SUCCESS/)
        expect(ok.stdout.trim().split('\n').pop()).to.equal('PASS')
        const denied = await cli([...base, '--password', pw, '--command', 'reload'])
        expect(denied.code).to.equal(1)
        expect(denied.stdout).to.match(/authorization "reload": FAIL/)
        const wrong = await cli([...base, '--password', pw + 'x'])
        expect(wrong.code).to.equal(1)
        expect(wrong.stdout).to.match(/authentication \(ascii login\): FAIL/)
      } finally {
        await daemon?.stop()
        await t.stop()
      }
    })
  })
})
