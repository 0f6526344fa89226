/**
 * The pid file of a supervised daemon (`<DATA_DIR>/run/supervised-<daemon>.pid`): a server killed with
 * -9 leaves its daemons running, still holding their ports; the next start finds them by it and ends
 * them, so the daemon it starts can listen. A pid is killed only when /proc says it is the daemon's
 * binary: after a reboot the number may belong to anything.
 */
import { mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { descendants, signalAll } from './process-tree.js'

export const pidFilePath = (dataDir: string, daemon: string): string => path.join(dataDir, 'run', `supervised-${daemon}.pid`)

export function writePidFile(file: string, pid: number): void {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, `${pid}\n`, { mode: 0o644 })
}

export function removePidFile(file: string): void {
  rmSync(file, { force: true })
}

export function readPidFile(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim())
    return Number.isInteger(pid) && pid > 1 ? pid : null
  } catch {
    return null
  }
}

const realpath = (p: string): string => {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/**
 * Whether process `pid` runs `binary` (an absolute path): its executable (/proc/<pid>/exe), or, where
 * that cannot be read, the program its command line names (tac_plus-ng rewrites its command line to
 * `tac_plus-ng: 0 connections…`, so only the name before a colon is compared then).
 */
export function runsBinary(pid: number, binary: string): boolean {
  const want = realpath(binary)
  try {
    return realpath(readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '')) === want
  } catch {
    // Not readable (another user's process) or gone: the command line below.
  }
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? ''
    if (!argv0) return false
    if (argv0.includes('/')) return realpath(argv0) === want
    return argv0.replace(/:.*$/, '').trim() === path.basename(want)
  } catch {
    return false
  }
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    // A zombie has exited: it only waits for its parent to read its status.
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/** Signal the daemon's process group (the daemon and its workers: it is started as the group's leader), else the pid alone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    try {
      process.kill(pid, signal)
    } catch {
      // Already gone.
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * End the daemon a previous server left running (the pid file names it, /proc says it is `binary`):
 * SIGTERM to its group, SIGKILL after `graceMs`. Returns the pid it ended, or null. The pid file is removed.
 */
export async function killOrphan(file: string, binary: string, graceMs = 5000): Promise<number | null> {
  const pid = readPidFile(file)
  removePidFile(file)
  if (pid === null || pid === process.pid || !alive(pid) || !runsBinary(pid, binary)) return null
  const tree = descendants(pid)
  signalGroup(pid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (alive(pid) && Date.now() < deadline) await sleep(50)
  // Its workers too (tac_plus-ng's finish their connections first, with the old policy).
  signalGroup(pid, 'SIGKILL')
  signalAll(tree, 'SIGKILL')
  while (alive(pid) && Date.now() < deadline + 2000) await sleep(20)
  return pid
}
