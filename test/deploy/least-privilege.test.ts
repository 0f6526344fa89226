/**
 * Least privilege, against the real daemons: with the server options
 * tacacs.daemon_user/group and radius.daemon_user/group naming the system's
 * `nobody` account (and its primary group, `nogroup` on Debian; the tests run
 * as root, so they can start daemons that drop to it), the rendered
 * configurations name the account, the release files are readable by its
 * group only (0640, folders 0750, nothing for others), a restart of the
 * platform keeps it so, and both daemons start from `current`, answer a login
 * and run as `nobody` (/proc/<pid>/status). Their log files are 0640.
 *
 * tac_plus-ng's spawnd starts its workers as the account, and a worker runs the
 * binary again: the test copies the build out of /root (0700) into a folder the
 * account can reach, as an install under /usr/local would be.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { TacacsClient } from '../../plugins/tacacs/client/index.js'
import { freeUdpPort, radclient, rcString, startFreeradius, type RunningFreeradius } from '../../plugins/radius/test/e2e-support.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { freePort, TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../kit/tac-plus-ng.js'
import { strongPassword } from '../../plugins/tacacs/test/e2e/support.js'
import { skipBecause } from '../kit/skip.js'

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy']
const KEY = 'least-privilege-key'
const SECRET = 'least-privilege-secret'
const FREERADIUS_PRESENT = ['freeradius', 'radclient'].every((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status === 0)

/** The account the daemons drop to: `nobody` and its primary group. */
const ACCOUNT = { user: 'nobody', uid: Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout), group: spawnSync('id', ['-gn', 'nobody'], { encoding: 'utf8' }).stdout.trim(), gid: Number(spawnSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).stdout) }
/** Some other unprivileged uid/gid, in no group of the daemons. */
const STRANGER = { uid: 54_321, gid: 54_321 }

/** Whether `who` may read `file` (cat run as that uid/gid, with no supplementary groups). */
const canRead = (file: string, who: { uid: number; gid: number }) => spawnSync('cat', [file], { uid: who.uid, gid: who.gid, stdio: 'ignore' }).status === 0
const mode = (p: string) => statSync(p).mode & 0o7777
/** Real, effective, saved and file-system uid of a process. */
const uids = (pid: number) => /^Uid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1].trim().split(/\s+/).map(Number)
const childrenOf = (pid: number) =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return Number(readFileSync(`/proc/${n}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]) === pid
      } catch {
        return false
      }
    })
    .map(Number)

describe('least privilege: the daemons run as an unprivileged account', function () {
  this.timeout(120_000)
  let t: TestApp
  let tacDir: string
  let tacBinary: string
  let tacPort: number
  let auth: number
  let acct: number
  const password = strongPassword()
  const rel = (daemon: string, ...p: string[]) => path.join(t.dataDir, 'releases', daemon, ...p)

  before(async function () {
    const built = tacPlusNgBinary()
    if (!built || !FREERADIUS_PRESENT) {
      console.log('      skipped: needs TAC_PLUS_NG (a tac_plus-ng build) and FreeRADIUS 3.2 with radclient')
      return this.skip()
    }
    // The build with its libmavis, where `nobody` can run it.
    tacDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-tpn-'))
    cpSync(path.resolve(built, '..', '..'), path.join(tacDir, 'tac_plus-ng'), { recursive: true, verbatimSymlinks: true })
    spawnSync('chmod', ['-R', 'go+rX', tacDir])
    tacBinary = path.join(tacDir, 'tac_plus-ng', 'sbin', 'tac_plus-ng')
    t = await startTestApp({
      plugins: PLUGINS,
      env: { TAC_PLUS_NG: tacBinary, TAC_PLUS_NG_USER: ACCOUNT.user, TAC_PLUS_NG_GROUP: ACCOUNT.group, FREERADIUS_USER: ACCOUNT.user, FREERADIUS_GROUP: ACCOUNT.group },
    })
    ;[tacPort, auth, acct] = [await freePort(), await freeUdpPort(), await freeUdpPort()]
    for (const [key, value] of Object.entries({ 'tacacs.listen_port': tacPort, 'radius.auth_port': auth, 'radius.acct_port': acct })) {
      expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status).to.be.oneOf([200, 204])
    }
    const ops = await t.admin('POST', '/api/v1/user-groups', { body: { name: 'ops' } })
    expect((await t.admin('POST', '/api/v1/users', { body: { username: 'alice', password, network_login: true, group_ids: [ops.body.id] } })).status).to.equal(201)
    const device = await t.admin('POST', '/api/v1/devices', { body: { name: 'lo', address: '127.0.0.1/32', radius_secret: SECRET, tacacs_key: KEY } })
    expect(device.status).to.equal(201)
    const rp = await t.admin('POST', '/api/v1/radius/profiles', { body: { name: 'ops', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] } })
    const tp = await t.admin('POST', '/api/v1/tacacs/profiles', { body: { name: 'ops', privilege_level: 15, default_action: 'permit' } })
    const rule = await t.admin('POST', '/api/v1/aaa/policy/rules', { body: { name: 'ops', who: { group_id: ops.body.id }, where: { device_id: device.body.id }, radius_profile_id: rp.body.id, tacacs_profile_id: tp.body.id } })
    expect(rule.status, rule.text).to.equal(201)
  })
  after(async () => {
    await t?.stop()
    if (tacDir) rmSync(tacDir, { recursive: true, force: true })
  })

  it('renders the account into both configurations, and the daemons accept it (-P, -C)', async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: {} })
    expect(r.status, r.text).to.equal(201)
    for (const d of r.body.deploys) expect(d.checked, `${d.daemon}: ${d.check_output}`).to.equal(true)
    const tac = readFileSync(rel('tac_plus-ng', 'current', 'tac_plus-ng.cfg'), 'utf8')
    expect(tac).to.include(`    spawn {\n        userid = "${ACCOUNT.user}"\n        groupid = "${ACCOUNT.group}"\n    }\n}`)
    expect(tac).to.include('umask = 0640')
    expect(readFileSync(rel('freeradius', 'current', 'radiusd.conf'), 'utf8')).to.match(new RegExp(`security \\{\\n(\\t#.*\\n)?\\tuser = ${ACCOUNT.user}\\n\\tgroup = ${ACCOUNT.group}\\n`))
  })

  it('gives the release files to the account\'s group only: 0640 files, 0750 folders, nothing for others; DATA_DIR search-only', () => {
    for (const daemon of ['tac_plus-ng', 'freeradius']) {
      const release = rel(daemon, 'current')
      const files = readdirSync(release, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
      expect(files.length).to.be.greaterThan(0)
      for (const e of files) {
        const p = path.join(e.parentPath, e.name)
        // The list of the render's secrets (for masking the views) is the service's alone: the daemon never reads it.
        if (e.name === '.portcullis-secrets.json') {
          expect(mode(p), p).to.equal(0o600)
          expect(canRead(p, ACCOUNT), `${ACCOUNT.user} reads ${p}`).to.equal(false)
          continue
        }
        expect(mode(p), p).to.equal(0o640)
        expect(statSync(p).gid, p).to.equal(ACCOUNT.gid)
        expect(canRead(p, ACCOUNT), `${ACCOUNT.user} reads ${p}`).to.equal(true)
        expect(canRead(p, STRANGER), `another user reads ${p}`).to.equal(false)
      }
      expect(mode(rel(daemon)), 'releases/<daemon>').to.equal(0o750)
      expect(mode(release), 'the release folder').to.equal(0o750)
    }
    expect(mode(path.join(rel('freeradius', 'current'), 'mods-enabled'))).to.equal(0o750)
    expect(mode(t.dataDir)).to.equal(0o711)
    expect(mode(path.join(t.dataDir, 'releases'))).to.equal(0o711)
    // Everything else in DATA_DIR stays the platform's.
    for (const n of readdirSync(t.dataDir).filter((n) => !['releases', 'logs', 'run', 'tacacs-lock'].includes(n))) expect(mode(path.join(t.dataDir, n)) & 0o077, n).to.equal(0)
    expect(canRead(path.join(t.dataDir, 'node_id'), ACCOUNT)).to.equal(false)
    expect(spawnSync('ls', [t.dataDir], { uid: ACCOUNT.uid, gid: ACCOUNT.gid }).status, 'nobody lists DATA_DIR').to.not.equal(0)
    // The folders the daemons write to: theirs, setgid.
    for (const d of [path.join(t.dataDir, 'logs', 'tacacs'), path.join(t.dataDir, 'logs', 'radius'), path.join(t.dataDir, 'run', 'freeradius'), path.join(t.dataDir, 'tacacs-lock')]) {
      expect(mode(d), d).to.equal(0o2770)
      expect(statSync(d).gid, d).to.equal(ACCOUNT.gid)
    }
  })

  it('a dry run writes as a deploy does: nothing changed, modes 0640 on both sides', async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { dry_run: true } })
    expect(r.status, r.text).to.equal(200)
    for (const d of r.body.daemons) {
      for (const c of d.changes) expect(c, `${d.daemon} ${c.path}`).to.include({ change: 'unchanged', mode_before: '0640', mode_after: '0640' })
    }
  })

  it('keeps it so across a restart of the platform (DATA_DIR is narrowed again, the daemons\' folders are not)', async () => {
    const app = await startTestApp({ plugins: PLUGINS, dataDir: t.dataDir, env: { TAC_PLUS_NG: tacBinary, TAC_PLUS_NG_USER: ACCOUNT.user, TAC_PLUS_NG_GROUP: ACCOUNT.group, FREERADIUS_USER: ACCOUNT.user, FREERADIUS_GROUP: ACCOUNT.group } }).catch(() => null)
    // On the embedded engine the running app holds the database: the protection walk at its stop is what counts.
    await app?.stop()
    const cfg = rel('tac_plus-ng', 'current', 'tac_plus-ng.cfg')
    expect(mode(cfg)).to.equal(0o640)
    expect(canRead(cfg, ACCOUNT)).to.equal(true)
    expect(canRead(rel('freeradius', 'current', 'portcullis', 'verifiers'), ACCOUNT)).to.equal(true)
    expect(mode(t.dataDir)).to.equal(0o711)
    for (const n of readdirSync(t.dataDir).filter((n) => !['releases', 'logs', 'run', 'tacacs-lock'].includes(n))) expect(mode(path.join(t.dataDir, n)) & 0o077, n).to.equal(0)
  })

  it('tac_plus-ng: starts from current, answers a login, its workers run as the account, its logs are 0640', async () => {
    const logDir = path.join(t.dataDir, 'logs', 'tacacs')
    const child: ChildProcess = spawn(tacBinary, ['-f', rel('tac_plus-ng', 'current', 'tac_plus-ng.cfg')], { env: { LD_LIBRARY_PATH: path.join(tacDir, 'tac_plus-ng', 'lib') }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (out += d))
    try {
      const client = new TacacsClient({ host: '127.0.0.1', port: tacPort, key: KEY })
      let result: Awaited<ReturnType<TacacsClient['authenticatePap']>> | null = null
      for (let i = 0; i < 100 && !result; i++) {
        result = await client.authenticatePap('alice', password).catch(() => null)
        if (!result) await new Promise((r) => setTimeout(r, 100))
      }
      expect(result?.status, out).to.equal('pass')
      expect((await client.authenticatePap('alice', password + 'x')).status).to.equal('fail')
      const workers = childrenOf(child.pid!)
      expect(workers.length, out).to.be.greaterThan(0)
      for (const w of workers) expect(uids(w), `worker ${w}`).to.deep.equal(Array(4).fill(ACCOUNT.uid))
      const logs = readdirSync(logDir).filter((n) => n.endsWith('.log'))
      expect(logs.length, 'log files').to.be.greaterThan(0)
      for (const n of logs) {
        expect(mode(path.join(logDir, n)), n).to.equal(0o640)
        expect(statSync(path.join(logDir, n)).uid, n).to.equal(ACCOUNT.uid)
      }
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('FreeRADIUS: starts from current, answers a login, runs as the account, its logs are 0640', async () => {
    let running: RunningFreeradius | undefined
    try {
      running = await startFreeradius(rel('freeradius', 'current'))
      const r = await radclient(auth, 'auth', SECRET, [`User-Name = ${rcString('alice')}`, `User-Password = ${rcString(password)}`, 'Message-Authenticator = 0x00'])
      expect(r.code, r.raw).to.equal('Access-Accept')
      // The daemon this test started: a child of this process running the current release.
      const [pid] = childrenOf(process.pid).filter((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes(rel('freeradius', 'current')))
      expect(pid, 'the FreeRADIUS process').to.be.a('number')
      expect(uids(pid), running.output().slice(-2000)).to.deep.equal(Array(4).fill(ACCOUNT.uid))
      const logDir = path.join(t.dataDir, 'logs', 'radius')
      const logs = readdirSync(logDir).filter((n) => n.endsWith('.jsonl'))
      expect(logs.length, 'JSON lines files').to.be.greaterThan(0)
      for (const n of logs) expect(mode(path.join(logDir, n)) & 0o007, n).to.equal(0)
    } finally {
      await running?.stop()
    }
  })
})

describe('least privilege: a daemon account the machine does not have', function () {
  this.timeout(60_000)

  it('is refused at deploy, nothing activated: an unknown user by the daemon\'s check, an unknown group or half an account by the deploy', async function () {
    if (!tacPlusNgBinary()) skipBecause(this, TAC_PLUS_NG_SKIP)
    const a = await startTestApp({ plugins: ['inventory', 'tacacs', 'radius'], env: { TAC_PLUS_NG_USER: 'nosuchuser-lp', TAC_PLUS_NG_GROUP: ACCOUNT.group, FREERADIUS_USER: ACCOUNT.user, FREERADIUS_GROUP: 'nosuchgroup-lp' } })
    try {
      const tac = await a.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
      expect(tac.status, tac.text).to.equal(422)
      expect(tac.body.code).to.equal('DEPLOY_CHECK_FAILED')
      expect(tac.body.detail).to.include("UNIX user 'nosuchuser-lp' not found")
      const rad = await a.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })
      expect(rad.status, rad.text).to.equal(422)
      expect(rad.body).to.include({ code: 'DEPLOY_RENDER_FAILED', detail: 'Renderer radius.freeradius failed: the group "nosuchgroup-lp" does not exist on this machine' })
      for (const d of ['tac_plus-ng', 'freeradius']) expect(readdirSync(path.join(a.dataDir, 'releases')).includes(d) ? readdirSync(path.join(a.dataDir, 'releases', d)) : [], d).to.not.include('current')
    } finally {
      await a.stop()
    }
    const b = await startTestApp({ plugins: ['inventory', 'tacacs'], env: { TAC_PLUS_NG_USER: ACCOUNT.user } })
    try {
      const r = await b.admin('POST', '/api/v1/deploys', { body: {} })
      expect(r.status, r.text).to.equal(422)
      expect(r.body).to.include({ code: 'DEPLOY_RENDER_FAILED', detail: 'Renderer tacacs.tac_plus-ng failed: set both server options tacacs.daemon_user and tacacs.daemon_group, or neither' })
    } finally {
      await b.stop()
    }
  })
})
