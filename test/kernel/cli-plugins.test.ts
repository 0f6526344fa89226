/**
 * The `portcullis` command line dispatches to commands the loaded plugins
 * declare (`cli` in the manifest): it lists them, runs one without the
 * database when it names no deps, and inside the booted platform (the kernel's
 * database, settings, server options, secrets and node id) when it does, on
 * either engine.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { BootError } from '../../kernel/boot-error.js'
import { validateManifest } from '../../kernel/plugins/load.js'
import { runsOn, startTestApp, type TestApp, testEngines } from '../kit/app.js'
import { scratchFolder } from '../kit/scratch.js'
import { runCommand } from '../kit/cli.js'

const FIXTURE = './test/fixtures/plugins/cli-probe'

/** The configuration the test process may carry (DATABASE_URL …) is not the command's. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'PLUGINS', 'MASTER_KEY', 'MASTER_KEY_FILE', 'DATA_DIR', 'PORTCULLIS_CONFIG'].includes(k)))
  return runCommand(args, { ...base, LOG_LEVEL: 'silent', ...env })
}

describe('portcullis CLI: commands contributed by plugins', function () {
  this.timeout(120_000)
  let scratch: string
  before(() => (scratch = scratchFolder('portcullis-cli-plugins-')))
  after(() => rmSync(scratch, { recursive: true, force: true }))

  // The three below start the command line without a database (seven processes, seconds each on a busy CI):
  // the same whatever the engine, so once per `npm test`, in its PostgreSQL run (docs/testing.md).
  ;(runsOn('postgres') ? it : it.skip)('help lists the kernel\'s commands and those of the loaded plugins, with their owner', async () => {
    const r = await cli(['help'], { PLUGINS: `inventory,${FIXTURE}`, DATA_DIR: scratch })
    expect(r.code, r.stderr).to.equal(0)
    for (const k of ['render', 'check', 'deploy']) expect(r.stdout).to.match(new RegExp(`^  ${k} `, 'm'))
    expect(r.stdout).to.match(/^ {2}cli-probe-info +Print what the booted platform gives a command {2}\[plugin cli-probe\]$/m)
    expect(r.stdout).to.match(/^ {2}cli-probe-echo +.*\[plugin cli-probe\]$/m)
    // The kernel names no plugin: a probe is there only when its plugin is loaded.
    expect(r.stdout).to.not.include('tacacs-probe').and.not.include('radius-probe')
    const one = await cli(['help', 'cli-probe-info'], { PLUGINS: FIXTURE, DATA_DIR: scratch })
    expect(one.stdout).to.equal('portcullis cli-probe-info [--seal TEXT]\n  Print what the booted platform gives a command\n')
  })

  ;(runsOn('postgres') ? it : it.skip)('a command of a plugin that is not loaded is unknown (status 2)', async () => {
    const r = await cli(['cli-probe-echo', 'hi'], { PLUGINS: 'inventory', DATA_DIR: scratch })
    expect(r.code).to.equal(2)
    expect(r.stderr).to.include('unknown command "cli-probe-echo"')
  })

  ;(runsOn('postgres') ? it : it.skip)('a command without deps runs without the database: status 0/1 from the command, 2 with its usage on wrong arguments', async () => {
    // Nothing listens there: a command that booted the platform would fail with DATABASE_UNREACHABLE.
    const env = { PLUGINS: FIXTURE, DATA_DIR: scratch, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }
    const ok = await cli(['cli-probe-echo', 'hello', 'world'], env)
    expect(ok.code, ok.stderr).to.equal(0)
    expect(ok.stdout).to.equal('hello world\n')
    expect((await cli(['cli-probe-echo', 'fail'], env)).code).to.equal(1)
    const bad = await cli(['cli-probe-echo'], env)
    expect(bad.code).to.equal(2)
    expect(bad.stderr).to.equal('portcullis: say something\nusage: portcullis cli-probe-echo WORD…\n')
    const help = await cli(['cli-probe-echo', '--help'], env)
    expect(help.code).to.equal(0)
    expect(help.stdout).to.include('portcullis cli-probe-echo WORD…')
  })

  it('a malformed command in a manifest refuses the boot (name outside the plugin\'s prefix, no run)', () => {
    const base = { id: 'cli-bad', version: '1.0.0', sdk: '^0.1.0' }
    const refused = (cli: unknown[]) => {
      try {
        validateManifest({ ...base, cli }, 'cli-bad')
      } catch (e) {
        return e instanceof BootError ? `${e.code}: ${e.message}` : String(e)
      }
      return 'accepted'
    }
    expect(refused([{ name: 'deploy', summary: '', usage: '', run: async () => 0 }])).to.match(/^PLUGIN_INVALID: .*command name "deploy" must be "cli-bad-<word>"/)
    expect(refused([{ name: 'cli-bad-x', summary: '', usage: '' }])).to.match(/^PLUGIN_INVALID: .*needs summary, usage and run/)
    expect(refused([{ name: 'cli-bad-x', summary: '', usage: '', run: async () => 0 }])).to.equal('accepted')
  })

  for (const engine of testEngines()) {
    describe(engine, () => {
      let t: TestApp
      let dataDir: string
      before(async () => {
        dataDir = scratchFolder('portcullis-cli-plugins-')
        t = await startTestApp({ engine, plugins: [FIXTURE], dataDir })
        const set = await t.admin('PUT', '/api/v1/settings/cli-probe.greeting', { body: { value: 'set through the API' } })
        expect(set.status, set.text).to.equal(200)
        // The embedded engine's one connection belongs to one process: the server stops first.
        if (engine === 'embedded') await t.stop()
      })
      after(async () => {
        if (engine === 'postgres') await t.stop()
        rmSync(dataDir, { recursive: true, force: true })
      })

      it('a command with deps runs in the booted platform: its engine, node id, settings, server options and secrets', async () => {
        const env: Record<string, string> = { PLUGINS: FIXTURE, DATA_DIR: dataDir, MASTER_KEY: t.masterKey, CLI_PROBE_SPOOL: '/var/spool/probe' }
        if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl
        const r = await cli(['cli-probe-info', '--seal', 's3cret'], env)
        expect(r.code, r.stderr).to.equal(0)
        expect(r.stdout).to.equal(
          [`engine ${engine}`, `node ${t.app.nodeId}`, 'greeting set through the API', 'spool /var/spool/probe', 'users 2', 'secrets loaded', 'unsealed s3cret', ''].join('\n'),
        )
      })
    })
  }
})
