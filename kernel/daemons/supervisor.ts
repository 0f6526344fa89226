/**
 * The supervisor of a node's daemons (server option daemons.supervise): it runs FreeRADIUS and
 * tac_plus-ng in the foreground from their active release (`<DATA_DIR>/releases/<daemon>/current`),
 * keeps the last lines they print, starts one that exits again after 1 s, 2 s, 4 s … 60 s (a run of
 * a minute resets the delay), and ends them when the server stops.
 *
 * A new release is applied by a restart, not a HUP: FreeRADIUS 3 does not reload its clients or its
 * virtual servers on HUP, and tac_plus-ng's HUP is lazy (the worker that holds a connection keeps
 * answering with the old policy until it is idle), so after a HUP a user whose access was revoked
 * could still log in. The restart ends the whole process group (tac_plus-ng's workers with it) before
 * the new release starts; the listening socket is closed for the time the daemon takes to start.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { activeReleaseDir, type AuditService, type DaemonRun, type Logger } from '../../sdk/index.js'
import { findBinary } from '../deploy/check.js'
import { currentRelease } from '../deploy/files.js'
import { Backoff, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js'
import { OutputTail } from './output-tail.js'
import { killOrphan, pidFilePath, removePidFile, signalGroup, writePidFile } from './pid-file.js'
import { descendants, gone, signalAll, type Proc } from './process-tree.js'
import { exitWords } from './exit-words.js'

export interface DaemonProcessState {
  daemon: string
  state: 'running' | 'starting' | 'backoff' | 'stopped' | 'no_release' | 'no_binary'
  pid: number | null
  /** The release folder name it was started from. */
  release: string | null
  /** ISO */
  started_at: string | null
  /** Restarts after an exit since the server started. */
  restarts: number
  last_exit_code: number | null
  last_exit_signal: string | null
  /** ISO, while in backoff. */
  next_start_at: string | null
  /** Why it is not running (words for an engineer). */
  reason: string | null
  /** The last 20 lines of its stdout and stderr, secrets masked. */
  output_tail: string[]
}

export interface SupervisorDeps {
  dataDir: string
  daemons: string[]
  run: (daemon: string) => Promise<DaemonRun | null>
  audit: AuditService
  log: Logger
  /** The masker of the daemon's active release: what it prints may hold its secrets. */
  masker?: (daemon: string) => (s: string) => string
  /** Tests only: shorter delays. The default, 1 s → 60 s reset after 60 s, is what production runs. */
  backoff?: BackoffOptions
  /** How long a new process must stay up to count as started (ms). */
  settleMs?: number
  /** How long a daemon has after SIGTERM before SIGKILL (ms). */
  stopGraceMs?: number
}

interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

interface Run {
  child: ChildProcess
  pid: number
  release: string
  startedAt: number
  /** The output tail's mark at its start: the lines of this run. */
  mark: number
  /** The supervisor ends it (a reload, the server stopping): its exit is no crash. */
  ending: boolean
  exited: Promise<Exit>
  /** True once it is ready (its ready line, else up for the settle time), false if it exited before. */
  up: Promise<boolean>
  /** Its workers and helpers seen so far (tac_plus-ng's leave its process group): ended with it. */
  tree: Map<number, Proc>
  watch: NodeJS.Timeout
}

/** How often the tree of a running daemon is looked at (a worker it starts is ended with it). */
const TREE_EVERY_MS = 1000
/** How long a reload waits for a daemon that names a ready line to print it. */
const READY_WAIT_MS = 30_000

const track = (run: Run): void => {
  for (const p of descendants(run.pid)) run.tree.set(p.pid, p)
}

interface Slot {
  daemon: string
  run: Run | null
  backoff: Backoff
  timer: NodeJS.Timeout | null
  tail: OutputTail
  state: Omit<DaemonProcessState, 'output_tail'>
  /** Starts, reloads and stops of one daemon happen one after the other. */
  queue: Promise<unknown>
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * When a start counts as done: the daemon's ready line (a busy node may take seconds to load FreeRADIUS's
 * modules, and a port already taken is only found after that), else the process up for `settleMs`.
 * False when it exits first.
 */
function readiness(tail: OutputTail, ready: RegExp | undefined, exited: Promise<Exit>, settleMs: number): Promise<boolean> {
  if (!ready) return Promise.race([exited.then(() => false), sleep(settleMs).then(() => true)])
  return new Promise<boolean>((resolve) => {
    const stop = tail.listen((line) => {
      if (!ready.test(line)) return
      stop()
      resolve(true)
    })
    void exited.then(() => {
      stop()
      resolve(false)
    })
  })
}

export class Supervisor {
  private readonly slots = new Map<string, Slot>()
  private readonly pending = new Set<Promise<unknown>>()
  private stopped = false
  private readonly settleMs: number
  private readonly graceMs: number

  constructor(private readonly d: SupervisorDeps) {
    this.settleMs = d.settleMs ?? 300
    this.graceMs = d.stopGraceMs ?? 5000
    for (const daemon of d.daemons) {
      this.slots.set(daemon, {
        daemon,
        run: null,
        backoff: new Backoff(d.backoff ?? DEFAULT_BACKOFF),
        timer: null,
        tail: new OutputTail(),
        state: { daemon, state: 'stopped', pid: null, release: null, started_at: null, restarts: 0, last_exit_code: null, last_exit_signal: null, next_start_at: null, reason: null },
        queue: Promise.resolve(),
      })
    }
  }

  supervises(daemon: string): boolean {
    return this.slots.has(daemon)
  }

  states(): DaemonProcessState[] {
    return [...this.slots.values()].map((s) => ({ ...s.state, output_tail: s.tail.get() }))
  }

  /** Start every supervised daemon that has a `current` release, after ending one a previous server left running. */
  async start(): Promise<void> {
    await Promise.all(
      [...this.slots.values()].map((slot) =>
        this.serial(slot, async () => {
          await this.endOrphan(slot)
          await this.launch(slot)
        }),
      ),
    )
  }

  /** After `current` was switched: restart the daemon on the new release; resolves once the new process is up or has failed to start. */
  async reload(daemon: string): Promise<{ ok: boolean; output: string }> {
    const slot = this.slots.get(daemon)
    if (!slot) return { ok: false, output: `${daemon} is not supervised on this node (server option daemons.supervise)` }
    return this.serial(slot, async () => {
      this.clearTimer(slot)
      // A new release is a fresh start: if it fails, it waits the first delay, not the last one's.
      slot.backoff.reset()
      if (slot.run) await this.end(slot.run)
      const run = await this.launch(slot)
      if (!run) return { ok: false, output: slot.state.reason ?? `${daemon} did not start` }
      // The wait's timer is cleared once the daemon answers: a server stopping soon after must not wait for it.
      let timer: NodeJS.Timeout | undefined
      const up = await Promise.race([run.up, new Promise<null>((r) => (timer = setTimeout(() => r(null), READY_WAIT_MS)))]).finally(() => clearTimeout(timer))
      const lines = slot.tail.since(run.mark)
      if (up) return { ok: true, output: lines.join('\n') }
      if (up === null) return { ok: false, output: [`${daemon} has not said it is ready after ${READY_WAIT_MS / 1000} s; it is still starting`, ...lines].join('\n') }
      return { ok: false, output: [slot.state.reason ?? `${daemon} exited`, ...lines].join('\n') }
    })
  }

  /** End every daemon (SIGTERM, SIGKILL after the grace); on shutdown. */
  async stop(): Promise<void> {
    this.stopped = true
    await Promise.all(
      [...this.slots.values()].map((slot) =>
        this.serial(slot, async () => {
          this.clearTimer(slot)
          if (slot.run) await this.end(slot.run)
          slot.state = { ...slot.state, state: 'stopped', pid: null, next_start_at: null, reason: 'the server stopped' }
        }),
      ),
    )
    await Promise.allSettled([...this.pending])
  }

  private serial<T>(slot: Slot, fn: () => Promise<T>): Promise<T> {
    const next = slot.queue.then(fn, fn)
    slot.queue = next.catch(() => undefined)
    return next
  }

  private clearTimer(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer)
    slot.timer = null
  }

  private async endOrphan(slot: Slot): Promise<void> {
    const spec = await this.d.run(slot.daemon).catch(() => null)
    const binary = spec ? findBinary(spec.binary) : null
    if (!binary) return
    const pid = await killOrphan(pidFilePath(this.d.dataDir, slot.daemon), binary, this.graceMs)
    if (pid !== null) this.d.log.warn({ daemon: slot.daemon, pid }, `${slot.daemon}: ended process ${pid} a previous run of the server left running`)
  }

  private idle(slot: Slot, state: 'stopped' | 'no_release' | 'no_binary', reason: string): null {
    slot.state = { ...slot.state, state, pid: null, next_start_at: null, reason }
    return null
  }

  /** Start the daemon from `current`; null (and the state says why) when it cannot be started. */
  private async launch(slot: Slot): Promise<Run | null> {
    if (this.stopped) return this.idle(slot, 'stopped', 'the server stopped')
    const { daemon } = slot
    const dir = path.join(this.d.dataDir, 'releases', daemon)
    const release = currentRelease(dir)
    const releaseDir = activeReleaseDir(this.d.dataDir, daemon)
    if (!release || !existsSync(releaseDir)) return this.idle(slot, 'no_release', `no release of ${daemon} is active on this node yet: deploy one`)
    let spec: DaemonRun | null
    try {
      spec = await this.d.run(daemon)
    } catch (e) {
      return this.idle(slot, 'stopped', `how to run ${daemon} could not be read: ${(e as Error).message}`)
    }
    if (!spec) return this.idle(slot, 'stopped', `no plugin says how to run ${daemon}`)
    const binary = findBinary(spec.binary)
    if (!binary) return this.idle(slot, 'no_binary', `${spec.binary} is not installed on this node (or not executable)`)
    slot.tail.setMask(this.d.masker?.(daemon) ?? ((s) => s))
    const mark = slot.tail.mark()
    slot.tail.note(`-- starting release ${release}`)
    // An empty environment, as for the check: tac_plus-ng replaces `${NAME}` in its configuration by the
    // variable NAME, so nothing of the server's environment may reach it. Its own process group
    // (detached): ending the group ends its workers and helpers with it.
    const child = spawn(binary, spec.args(releaseDir), { env: {}, cwd: path.join(dir, release), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    slot.tail.follow(child.stdout!)
    slot.tail.follow(child.stderr!)
    let settle: (e: Exit) => void = () => undefined
    const exited = new Promise<Exit>((resolve) => (settle = resolve))
    if (child.pid === undefined) {
      const err = await new Promise<Error>((r) => child.once('error', r))
      slot.state = { ...slot.state, state: 'stopped', pid: null, reason: `${binary} could not be started: ${err.message}` }
      return null
    }
    // A signal to a process already gone must not take the server down.
    child.on('error', (e) => this.d.log.warn({ daemon, err: e.message }, `${daemon}: ${e.message}`))
    const pid = child.pid
    const up = readiness(slot.tail, spec.ready, exited, this.settleMs)
    const run: Run = { child, pid, release, startedAt: Date.now(), mark, ending: false, exited, up, tree: new Map(), watch: setInterval(() => track(run), TREE_EVERY_MS).unref() }
    slot.run = run
    writePidFile(pidFilePath(this.d.dataDir, daemon), run.pid)
    slot.state = { ...slot.state, state: 'starting', pid: run.pid, release, started_at: new Date(run.startedAt).toISOString(), next_start_at: null, reason: null }
    const closed = new Promise<void>((r) => child.once('close', () => r()))
    child.once('exit', (code, signal) => {
      // Whatever of it is left (tac_plus-ng's workers would go on answering the connections they hold with this release).
      clearInterval(run.watch)
      signalGroup(run.pid, 'SIGKILL')
      signalAll(run.tree.values(), 'SIGKILL')
      // Its last lines, unless something outside the group holds its output open; and its workers really
      // gone (a killed process dies when it is next scheduled), so a stop or reload leaves nothing.
      void Promise.all([Promise.race([closed, sleep(500)]), gone(run.tree.values())]).then(() => {
        this.exited(slot, run, { code, signal })
        settle({ code, signal })
      })
    })
    void up.then((ready) => {
      track(run)
      if (ready && slot.run === run && slot.state.state === 'starting') slot.state = { ...slot.state, state: 'running' }
    })
    return run
  }

  /** SIGTERM to its group, SIGKILL after the grace; resolves once it exited. */
  private async end(run: Run): Promise<void> {
    run.ending = true
    // Its workers as they are now: the exit ends them (a HUP-like lazy exit would leave them answering).
    track(run)
    signalGroup(run.pid, 'SIGTERM')
    const timer = setTimeout(() => signalGroup(run.pid, 'SIGKILL'), this.graceMs)
    await run.exited
    clearTimeout(timer)
  }

  private exited(slot: Slot, run: Run, exit: Exit): void {
    if (slot.run === run) {
      slot.run = null
      removePidFile(pidFilePath(this.d.dataDir, slot.daemon))
    }
    const { daemon } = slot
    slot.state = { ...slot.state, pid: null, last_exit_code: exit.code, last_exit_signal: exit.signal }
    if (run.ending || this.stopped) {
      slot.state = { ...slot.state, state: 'stopped', reason: null }
      return
    }
    const ranMs = Date.now() - run.startedAt
    const delay = slot.backoff.next(ranMs)
    const last = slot.tail.since(run.mark).filter((l) => !l.startsWith('-- ')).at(-1)
    const reason = `${exitWords(daemon, exit.code, exit.signal)} after ${(ranMs / 1000).toFixed(1)} s; starting again in ${delay / 1000} s${last ? `. Its last line: ${last}` : ''}`
    slot.state = { ...slot.state, state: 'backoff', next_start_at: new Date(Date.now() + delay).toISOString(), reason }
    // One log line and one audit row per backoff step: a daemon crashing in a loop says so at most once a minute.
    const facts = { daemon, release: run.release, pid: run.pid, exit_code: exit.code, exit_signal: exit.signal, ran_seconds: Math.round(ranMs / 100) / 10, next_start_in_seconds: delay / 1000, restarts: slot.state.restarts }
    this.d.log.warn(facts, `${daemon} exited: ${reason}`)
    const audit = this.d.audit
      .record({ action: 'daemon.exited', resourceType: 'daemon', resourceId: daemon, after: { ...facts, output_tail: slot.tail.since(run.mark) } }, { actor: null })
      .catch((e: Error) => this.d.log.error({ daemon, err: e.message }, `${daemon} exited: the audit row could not be written`))
    this.pending.add(audit)
    void audit.finally(() => this.pending.delete(audit))
    slot.timer = setTimeout(() => {
      slot.timer = null
      void this.serial(slot, async () => {
        if (this.stopped || slot.run) return
        slot.state = { ...slot.state, restarts: slot.state.restarts + 1 }
        await this.launch(slot)
      })
    }, delay)
  }
}
