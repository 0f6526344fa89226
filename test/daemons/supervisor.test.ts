/**
 * The supervisor of daemons.supervise against the real daemons: FreeRADIUS and tac_plus-ng started
 * from a release written by hand under a throwaway DATA_DIR (`current` pointing at it), as the
 * plugins' renderers say to run them (`ConfigRenderer.run`). A daemon killed with -9 is started again
 * and answers; one that cannot start waits longer each time, says why, and writes one audit row per
 * wait; a reload answers from the new release (a revoked password refused at once); stop leaves no
 * process; a daemon a killed server left running is ended at the next start.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createSocket, type Socket } from 'node:dgram'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { expect } from 'chai'
import { createAuditTrail } from '../../kernel/audit/trail.js'
import { Backoff } from '../../kernel/daemons/backoff.js'
import { pidFilePath, writePidFile } from '../../kernel/daemons/pid-file.js'
import { descendants, running, type Proc } from '../../kernel/daemons/process-tree.js'
import { Supervisor } from '../../kernel/daemons/supervisor.js'
import { switchCurrent } from '../../kernel/deploy/files.js'
import { TacacsClient } from '../../plugins/tacacs/client/index.js'
import type { Logger } from '../../sdk/index.js'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import { papRequest } from '../kit/radius-pap.js'
import { skipBecause } from '../kit/skip.js'
import { freePort, TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../kit/tac-plus-ng.js'
import { papServerBlocks } from '../kit/freeradius-pap.js'
import { scratchFolder } from '../kit/scratch.js'

const SECRET = 'testing123'
const FAST = { baseMs: 300, maxMs: 5000, resetAfterMs: 60_000 }
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (v) return v as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** A daemon's process and every process under it (tac_plus-ng's workers leave its process group), by pid and start time. */
const treeOf = (pid: number): Proc[] => [{ pid, start: readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[19] }, ...descendants(pid)]
const left = (procs: Proc[]): number[] => procs.filter(running).map((p) => p.pid)

/** A logger that keeps the warnings (one line per backoff step is asserted). */
function recordingLog(lines: string[]): Logger {
  const log: Logger = { debug: () => undefined, info: () => undefined, warn: (_o, msg) => void lines.push(String(msg)), error: (_o, msg) => void lines.push(String(msg)), child: () => log }
  return log
}

/** A release folder written by hand; `current` switched to it when asked. */
function writeRelease(dataDir: string, daemon: string, name: string, files: Record<string, string>, activate = true): void {
  const dir = path.join(dataDir, 'releases', daemon)
  mkdirSync(path.join(dir, name), { recursive: true })
  for (const [f, content] of Object.entries(files)) writeFileSync(path.join(dir, name, f), content, { mode: 0o600 })
  if (activate) switchCurrent(dir, name)
}

/** The smallest FreeRADIUS tree that answers PAP: one radiusd.conf, one users file with a Reply-Message naming the release. */
const freeradiusRelease = (dataDir: string, release: string, port: number) => {
  const dir = path.join(dataDir, 'releases', 'freeradius', 'current')
  return {
    'radiusd.conf': `prefix = /usr
localstatedir = /var
logdir = ${dataDir}
raddbdir = ${dir}
confdir = ${dir}
run_dir = ${dataDir}
libdir = /usr/lib/freeradius
pidfile = ${dataDir}/radiusd-${release}.pid
max_request_time = 5
log {
	destination = stdout
	colourise = no
}
security {
	allow_core_dumps = no
	reject_delay = 0
	status_server = no
}
thread pool {
	start_servers = 1
	max_servers = 2
	min_spare_servers = 1
	max_spare_servers = 2
}
${papServerBlocks({ dir, port, secret: SECRET })}`,
    users: `bob\tCleartext-Password := "pw"\n\tReply-Message := "${release}"\n`,
  }
}

/** The smallest tac_plus-ng configuration: one device, one user, a rule that permits. */
const tacRelease = (port: number, password: string) => ({
  'tac_plus-ng.cfg': `id = spawnd { listen { address = 127.0.0.1 port = ${port} } }
id = tac_plus-ng {
  device lo { address = 127.0.0.1/32 key = "${SECRET}" }
  user bob { password pap = clear "${password}" }
  ruleset { rule r { script { permit } } }
}
`,
})

async function udpPort(): Promise<number> {
  const s = createSocket('udp4')
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r))
  const { port } = s.address()
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

// Supervising the daemons is the same whatever the engine: once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('supervised daemons (daemons.supervise)', function () {
  this.timeout(120_000)
  const tac = tacPlusNgBinary()
  let t: TestApp
  let dataDir: string

  before(async function () {
    t = await startTestApp({ plugins: ['inventory', 'radius', 'tacacs'], options: tac ? { 'tacacs.binary': tac } : {} })
    dataDir = scratchFolder('portcullis-supervised-')
  })
  after(async () => {
    await t?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  const runOf = (daemon: string) => t.app.registry.renderers.find((r) => r.renderer.daemon === daemon)!.renderer.run!()
  const supervisor = (daemon: string, log: string[]) =>
    new Supervisor({ dataDir, daemons: [daemon], run: runOf, audit: createAuditTrail(t.app.db.knex), log: recordingLog(log), backoff: FAST, masker: () => (s) => s.split(SECRET).join('***') })
  const exits = async (daemon: string) =>
    (await t.app.db.knex('audit_log').where({ action: 'daemon.exited', resource_id: daemon }).orderBy('at')).map((r: { actor_id: string | null; after: unknown }) => ({
      actor: r.actor_id,
      ...((typeof r.after === 'string' ? JSON.parse(r.after) : r.after) as { next_start_in_seconds: number; exit_signal: string | null; exit_code: number | null; output_tail: string[] }),
    }))

  it('waits 1 s, 2 s, 4 s … 60 s between starts by default, and again 1 s after a minute of running', () => {
    const b = new Backoff()
    expect([0, 0, 0, 0, 0, 0, 0, 0].map((ms) => b.next(ms))).to.deep.equal([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000])
    expect(b.next(60_000)).to.equal(1000)
  })

  describe('FreeRADIUS', function () {
    let port: number
    let sup: Supervisor
    const log: string[] = []
    const state = () => sup.states()[0]
    const reply = () => papRequest({ port, secret: SECRET, user: 'bob', password: 'pw', timeoutMs: 2000 })

    before(async function () {
      if (!(has('freeradius') && has('radclient'))) skipBecause(this, 'FreeRADIUS 3 (Debian: freeradius) is not installed')
      port = await udpPort()
      writeRelease(dataDir, 'freeradius', 'r1', freeradiusRelease(dataDir, 'r1', port))
      sup = supervisor('freeradius', log)
    })
    after(async () => sup?.stop())

    it('says no_release while nothing is deployed, then starts the release `current` names and it answers', async () => {
      const empty = new Supervisor({ dataDir: path.join(dataDir, 'none'), daemons: ['freeradius'], run: runOf, audit: createAuditTrail(t.app.db.knex), log: recordingLog([]) })
      await empty.start()
      expect(empty.states()[0]).to.include({ state: 'no_release', pid: null })
      await sup.start()
      await until('running', () => state().state === 'running')
      expect(state()).to.include({ release: 'r1', restarts: 0 })
      expect((await reply()).replyMessage).to.equal('r1')
      expect(readFileSync(pidFilePath(dataDir, 'freeradius'), 'utf8').trim()).to.equal(String(state().pid))
    })

    it('starts it again after kill -9, counts the restart and writes the audit row (no actor)', async () => {
      const before = state().pid!
      process.kill(before, 'SIGKILL')
      await until('a new process', () => state().state === 'running' && state().pid !== before)
      expect(state()).to.include({ restarts: 1, last_exit_signal: 'SIGKILL' })
      expect((await reply()).replyMessage).to.equal('r1')
      const rows = await until('the audit row', async () => ((await exits('freeradius')).length === 1 ? exits('freeradius') : null))
      expect(rows[0]).to.include({ actor: null, exit_signal: 'SIGKILL' })
    })

    it('a release that cannot start: the reload says why, then 1, 2, 4 times the first delay, one audit row and one log line each', async () => {
      const holder: Socket = createSocket('udp4')
      const taken = await udpPort()
      await new Promise<void>((r) => holder.bind(taken, '127.0.0.1', r))
      const logged = log.length
      try {
        writeRelease(dataDir, 'freeradius', 'r-taken', freeradiusRelease(dataDir, 'r-taken', taken))
        const r = await sup.reload('freeradius')
        expect(r.ok).to.equal(false)
        expect(r.output).to.match(/exited with code 1/).and.match(/in use|bind/i)
        await until('three backoff steps', async () => (await exits('freeradius')).length >= 4, 30_000)
        const steps = (await exits('freeradius')).slice(1, 4)
        expect(steps.map((s) => s.next_start_in_seconds)).to.deep.equal([0.3, 0.6, 1.2])
        expect(steps.every((s) => s.output_tail.some((l) => /in use|bind/i.test(l)))).to.equal(true)
        expect(state().state).to.be.oneOf(['backoff', 'starting'])
        await until('the state in backoff', () => state().state === 'backoff')
        expect(state().reason).to.match(/exited with code 1 .*starting again in/)
        expect(state().next_start_at).to.be.a('string')
        expect(log.slice(logged).filter((l) => l.startsWith('freeradius exited')).length).to.equal((await exits('freeradius')).length - 1)
      } finally {
        await new Promise<void>((r) => holder.close(() => r()))
      }
      // The port free again: the next start of the backoff succeeds by itself.
      port = taken
      await until('running again', () => state().state === 'running', 30_000)
      expect((await reply()).replyMessage).to.equal('r-taken')
    })

    it('reload() answers from the new release, and stop() leaves no process and no pid file', async () => {
      writeRelease(dataDir, 'freeradius', 'r2', freeradiusRelease(dataDir, 'r2', port))
      const old = treeOf(state().pid!)
      const r = await sup.reload('freeradius')
      expect(r, r.output).to.include({ ok: true })
      expect(state()).to.include({ release: 'r2', state: 'running' })
      expect(left(old)).to.deep.equal([])
      expect((await reply()).replyMessage).to.equal('r2')
      const last = treeOf(state().pid!)
      await sup.stop()
      expect(left(last)).to.deep.equal([])
      expect(state()).to.include({ state: 'stopped', pid: null })
      expect(() => readFileSync(pidFilePath(dataDir, 'freeradius'))).to.throw()
    })

    it('at start, ends the daemon a killed server left running (its pid file), not an unrelated process', async () => {
      const stranger = spawn('sleep', ['30'], { stdio: 'ignore' })
      writePidFile(pidFilePath(dataDir, 'freeradius'), stranger.pid!)
      const s1 = supervisor('freeradius', [])
      await s1.start()
      await until('running', () => s1.states()[0].state === 'running')
      expect(stranger.exitCode === null && stranger.signalCode === null, 'the unrelated process is left alone').to.equal(true)
      stranger.kill('SIGKILL')
      // The server "dies" without stopping its daemon: the pid file stays, the daemon keeps the port.
      const orphan = treeOf(s1.states()[0].pid!)
      sup = supervisor('freeradius', [])
      await sup.start()
      expect(left(orphan)).to.deep.equal([])
      await until('running', () => state().state === 'running' && state().pid !== orphan[0].pid)
      expect((await reply()).replyMessage).to.equal('r2')
      await s1.stop()
    })
  })

  describe('tac_plus-ng', function () {
    let port: number
    let sup: Supervisor
    const state = () => sup.states()[0]
    /** A device's connection the daemon holds open (a worker serving it would outlive a lazy reload). */
    const hold = () =>
      new Promise<{ closed: () => boolean; sock: net.Socket }>((resolve, reject) => {
        let closed = false
        const sock = net.connect({ host: '127.0.0.1', port }, () => resolve({ closed: () => closed, sock }))
        sock.on('close', () => (closed = true))
        sock.on('error', reject)
      })
    const login = (password: string) => new TacacsClient({ host: '127.0.0.1', port, key: SECRET, timeoutMs: 5000 }).authenticatePap('bob', password)

    before(async function () {
      if (!tac) skipBecause(this, TAC_PLUS_NG_SKIP)
      port = await freePort()
      writeRelease(dataDir, 'tac_plus-ng', 't1', tacRelease(port, 'pw-one'))
      sup = supervisor('tac_plus-ng', [])
      await sup.start()
      await until('running', () => state().state === 'running')
    })
    after(async () => sup?.stop())

    it('runs with its workers, is started again after kill -9, and answers', async () => {
      expect((await login('pw-one')).pass).to.equal(true)
      const before = state().pid!
      const held = await hold()
      const procs = treeOf(before)
      expect(procs.length, 'tac_plus-ng runs with workers').to.be.greaterThan(1)
      process.kill(before, 'SIGKILL')
      await until('a new process', () => state().state === 'running' && state().pid !== before)
      expect(left(procs), 'no worker of the killed one is left').to.deep.equal([])
      await until('the held connection closed', () => held.closed())
      expect(state()).to.include({ restarts: 1, last_exit_signal: 'SIGKILL' })
      await until('answering', async () => (await login('pw-one').catch(() => null))?.pass)
      expect((await exits('tac_plus-ng')).length).to.be.at.least(1)
    })

    it('reload(): the old password is refused at once (the old workers are gone), the new one passes; stop() leaves nothing', async () => {
      const held = await hold()
      const old = treeOf(state().pid!)
      writeRelease(dataDir, 'tac_plus-ng', 't2', tacRelease(port, 'pw-two'))
      const r = await sup.reload('tac_plus-ng')
      expect(r, r.output).to.include({ ok: true })
      expect(left(old), 'no worker of the old release is left, even one holding a connection').to.deep.equal([])
      await until('the held connection closed', () => held.closed())
      await until('answering', async () => (await login('pw-two').catch(() => null))?.pass)
      expect((await login('pw-one')).pass).to.equal(false)
      const last = treeOf(state().pid!)
      await sup.stop()
      expect(left(last)).to.deep.equal([])
    })
  })
})
