/**
 * A daemon's processes as /proc shows them. tac_plus-ng's workers each start a session of their own
 * (setsid), so signalling the daemon's process group does not reach them: the supervisor keeps the
 * tree of the process it started (pid and start time, so a reused pid is never signalled) and ends it
 * whole. A worker left behind would go on answering the connection it holds with the old release.
 */
import { readdirSync, readFileSync } from 'node:fs'

export interface Proc {
  pid: number
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22): with the pid, names one process. */
  start: string
}

function stat(pid: number): { ppid: number; state: string; start: string } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ')
    return { state: f[0], ppid: Number(f[1]), start: f[19] }
  } catch {
    return null
  }
}

/** The live descendants of `pid` (children, their children …), not the process itself. */
export function descendants(pid: number): Proc[] {
  const children = new Map<number, Proc[]>()
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue
    const s = stat(Number(e))
    if (!s || s.state === 'Z') continue
    const list = children.get(s.ppid) ?? []
    list.push({ pid: Number(e), start: s.start })
    children.set(s.ppid, list)
  }
  const out: Proc[] = []
  const todo = [pid]
  while (todo.length) {
    for (const c of children.get(todo.pop()!) ?? []) {
      out.push(c)
      todo.push(c.pid)
    }
  }
  return out
}

/** Whether this very process (same pid, same start) still runs. */
export function running(p: Proc): boolean {
  const s = stat(p.pid)
  return !!s && s.state !== 'Z' && s.start === p.start
}

/** Signal each process still running (never one that merely reuses a pid). */
export function signalAll(procs: Iterable<Proc>, signal: NodeJS.Signals): void {
  for (const p of procs) {
    if (!running(p)) continue
    try {
      process.kill(p.pid, signal)
    } catch {
      // Gone meanwhile.
    }
  }
}

/** Resolves once none of `procs` runs any more (a SIGKILL is delivered when the process is next scheduled), or after `timeoutMs`. */
export async function gone(procs: Iterable<Proc>, timeoutMs = 2000): Promise<void> {
  const list = [...procs]
  const deadline = Date.now() + timeoutMs
  while (list.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
}
