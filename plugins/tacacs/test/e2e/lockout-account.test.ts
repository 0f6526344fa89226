/**
 * Account lockout with tac_plus-ng's workers running as an unprivileged account (server options
 * tacacs.daemon_user / tacacs.daemon_group = nobody), as a production host runs it: the worker
 * reads the release's shadow file through `current` (group read), runs the Perl backend, and
 * writes the counts in the folder the deploy gave to its group. Skips without TAC_PLUS_NG or
 * when not root (the deploy gives files to another group).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../../test/kit/app.js'
import { freePort, TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, PLUGINS, RULES, setSetting, strongPassword } from './support.js'
import { skipBecause } from '../../../../test/kit/skip.js'

const KEY = 'lockout-account-key'
const GROUP = spawnSync('id', ['-gn', 'nobody'], { encoding: 'utf8' }).stdout.trim()

describe('tacacs e2e: account lockout with the workers as an unprivileged account', function () {
  this.timeout(120_000)
  let t: TestApp
  let tacDir = ''
  let lockDir = ''
  let child: ChildProcess | undefined
  let port = 0
  const pw = { 'a-alice': strongPassword(), 'a-bob': strongPassword() }

  before(async function () {
    const built = tacPlusNgBinary()
    if (!built || process.getuid?.() !== 0 || !GROUP) skipBecause(this, !built ? TAC_PLUS_NG_SKIP : 'needs root (to run the daemon\'s workers as another account) and a group for it')
    // The build with its libmavis, where `nobody` can run it (the mavis folder defaults next to it).
    tacDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-tpn-'))
    cpSync(path.resolve(built, '..', '..'), path.join(tacDir, 'tac_plus-ng'), { recursive: true, verbatimSymlinks: true })
    spawnSync('chmod', ['-R', 'go+rX', tacDir])
    // The installed backend names its install prefix (`use lib '<prefix>/lib/mavis/'`), and Perl stops at a
    // folder it may not read: point it at the copy, as installing the build there would.
    const mavis = path.join(tacDir, 'tac_plus-ng', 'lib', 'mavis')
    const script = path.join(mavis, 'mavis_tacplus_shadow.pl')
    writeFileSync(script, readFileSync(script, 'utf8').replace(/^use lib '[^']*';$/m, `use lib '${mavis}/';`))
    lockDir = mkdtempSync('/tmp/tla-')
    t = await startTestApp({
      plugins: PLUGINS,
      env: { TAC_PLUS_NG: path.join(tacDir, 'tac_plus-ng', 'sbin', 'tac_plus-ng'), TAC_PLUS_NG_USER: 'nobody', TAC_PLUS_NG_GROUP: GROUP },
      options: { 'tacacs.lockout_directory': lockDir },
    })
    port = await freePort()
    await setSetting(t, 'tacacs.listen_port', port)
    await setSetting(t, 'identity.lockout_threshold', 3)
    await setSetting(t, 'identity.lockout_seconds', 30)
    const device = await created(t, '/api/v1/devices', { name: 'acc-lo', address: '127.0.0.1/32', tacacs_key: KEY })
    const profile = await created(t, '/api/v1/tacacs/profiles', { name: 'acc-p', privilege_level: 15, default_action: 'permit' })
    for (const [username, password] of Object.entries(pw)) {
      const u = await created(t, '/api/v1/users', { username, password, network_login: true })
      await created(t, RULES, { name: `r-${username}`, who: { user_id: u.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id, position: 0 })
    }
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
    expect(r.status, r.text).to.equal(201)
    for (const d of r.body.deploys) expect(d.checked, `${d.daemon}: ${d.check_output}`).to.equal(true)
  })
  after(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM')
      await new Promise((r) => child!.once('exit', r))
    }
    await t?.stop()
    for (const d of [tacDir, lockDir]) if (d) rmSync(d, { recursive: true, force: true })
  })

  it('locks out after 3 wrong PAP passwords, the counts written by the account in its folder, another user unaffected', async () => {
    expect(statSync(lockDir).mode & 0o7777, 'the count folder: 2770').to.equal(0o2770)
    const cfg = path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'tac_plus-ng.cfg')
    child = spawn(path.join(tacDir, 'tac_plus-ng', 'sbin', 'tac_plus-ng'), ['-f', cfg], { env: { LD_LIBRARY_PATH: path.join(tacDir, 'tac_plus-ng', 'lib') }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (out += d))
    const client = () => new TacacsClient({ host: '127.0.0.1', port, key: KEY, timeoutMs: 4000 })
    let first: Awaited<ReturnType<TacacsClient['authenticatePap']>> | null = null
    for (let i = 0; i < 30 && !first; i++) {
      first = await client().authenticatePap('a-alice', pw['a-alice']).catch(() => null)
      if (!first) await new Promise((r) => setTimeout(r, 100))
    }
    const seen = () => spawnSync('sh', ['-c', `ls -la ${lockDir} ${path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current/')}; tail -5 ${path.join(t.dataDir, 'logs', 'tacacs')}/*`], { encoding: 'utf8' }).stdout
    expect(first?.pass, out + seen()).to.equal(true)
    for (let i = 0; i < 3; i++) expect((await client().authenticatePap('a-alice', 'wrong-' + i)).pass).to.equal(false)
    expect((await client().authenticatePap('a-alice', pw['a-alice'])).pass, 'locked out').to.equal(false)
    expect((await client().authenticatePap('a-bob', pw['a-bob'])).pass, 'another user').to.equal(true)
    const files = spawnSync('find', [lockDir, '-type', 'f', '-uid', String(Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout))], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean)
    expect(files.length, 'a count file written by the account').to.equal(1)
  })
})
