/**
 * A daemon's own cost, read from /proc (Linux): CPU time (utime + stime, in
 * clock ticks, of the process and every live descendant, plus what it has
 * reaped from dead children: cutime + cstime), and resident memory (VmRSS of
 * the same processes). tac_plus-ng may fork workers and FreeRADIUS runs
 * threads, so the whole tree is counted. Ticks are USER_HZ (100 on Linux:
 * `getconf CLK_TCK`), i.e. 10 ms granularity: a round must be long enough
 * (seconds) for a per-request figure to mean something.
 */
import { readdirSync, readFileSync } from 'node:fs'

export const CLOCK_TICKS_PER_SECOND = 100

interface ProcStat {
  pid: number
  ppid: number
  ticks: number
  childTicks: number
}

function readStat(pid: number): ProcStat | null {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null // gone
  }
  // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ')
  // f[0] is field 3 (state); ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
  return { pid, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), childTicks: Number(f[13]) + Number(f[14]) }
}

/** The pid and its live descendants. */
export function processTree(root: number): number[] {
  const byParent = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const s = readStat(Number(name))
    if (!s) continue
    const list = byParent.get(s.ppid) ?? []
    list.push(s.pid)
    byParent.set(s.ppid, list)
  }
  const out = [root]
  for (let i = 0; i < out.length; i++) out.push(...(byParent.get(out[i]) ?? []))
  return out
}

/** CPU milliseconds the daemon (and its descendants) have used so far. */
export function cpuMs(root: number): number {
  let ticks = 0
  for (const pid of processTree(root)) {
    const s = readStat(pid)
    if (s) ticks += s.ticks + (pid === root ? s.childTicks : 0)
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND
}

/** Resident memory in KiB (VmRSS summed over the tree; shared pages of forked workers are counted once per process). */
export function rssKiB(root: number): number {
  let kib = 0
  for (const pid of processTree(root)) {
    try {
      const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (m) kib += Number(m[1])
    } catch {
      /* gone */
    }
  }
  return kib
}

/** What a load round measured, the same for every load generator. */
export interface RoundFigures {
  elapsedMs: number
  /** Answered requests a second. */
  rps: number
  p50Ms: number
  p99Ms: number
  /** The daemon's CPU over the round (its process tree), or null when no pid was given. */
  cpuMs: number | null
  cpuPerRequestMs: number | null
}

/** The figures of a round from its counts: `rtts` (sorted here), and the daemon's CPU at start and end (null without a pid). */
export function roundFigures(answered: number, elapsedMs: number, rtts: number[], cpu: { start: number; end: number } | null): RoundFigures {
  rtts.sort((a, b) => a - b)
  const at = (q: number) => (rtts.length ? rtts[Math.min(rtts.length - 1, Math.floor(rtts.length * q))] : NaN)
  const cpuMs = cpu ? cpu.end - cpu.start : null
  return {
    elapsedMs,
    rps: elapsedMs > 0 ? (answered * 1000) / elapsedMs : 0,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    cpuMs,
    cpuPerRequestMs: cpuMs !== null && answered ? cpuMs / answered : null,
  }
}
