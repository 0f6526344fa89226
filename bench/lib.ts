/**
 * Shared by the benchmarks: the machine line, small statistics, child
 * processes that are always reaped, and temporary folders that are always
 * removed. Benchmarks print figures; they never fail on a timing.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** `nproc`, the CPU model from /proc/cpuinfo, the Node version. */
export function machine(): { nproc: number; cpu: string; node: string; line: string } {
  const nproc = os.availableParallelism()
  let cpu = os.cpus()[0]?.model ?? 'unknown'
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))
    if (m) cpu = m[1].trim()
  } catch {
    /* not Linux: keep os.cpus() */
  }
  const node = process.version
  return { nproc, cpu, node, line: `machine: nproc=${nproc}, cpu="${cpu}", node=${node}, ${os.platform()} ${os.release()}` }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
export const min = (xs: number[]): number => Math.min(...xs)

/** The p-th percentile (nearest rank). */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN
}

export interface Stats {
  n: number
  median: number
  p95: number
  min: number
}

export const stats = (xs: number[]): Stats => ({ n: xs.length, median: median(xs), p95: pct(xs, 95), min: min(xs) })
/** Milliseconds with sensible precision. */
export const f2 = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
export const fmtStats = (s: Stats) => `median ${f2(s.median)} ms, p95 ${f2(s.p95)} ms, min ${f2(s.min)} ms (n=${s.n})`
export const loadAvg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ')
export const ms = (x: number): string => `${Math.round(x)} ms`

/** Seconds from an environment variable, or the default. */
export function envSeconds(name: string, def: number): number {
  const v = process.env[name]
  if (v === undefined || v === '') return def
  const n = Number(v)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of seconds, got "${v}"`)
  return n
}

export function envInt(name: string, def: number): number {
  const v = process.env[name]
  if (v === undefined || v === '') return def
  const n = Number(v)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${v}"`)
  return n
}

// ---- cleanup: every child and folder we create is reaped, whatever happens ----

const children = new Set<ChildProcess>()
const dirs = new Set<string>()
const finalizers: (() => void)[] = []

export function tempDir(prefix: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix))
  dirs.add(d)
  return d
}

export function removeDir(d: string): void {
  rmSync(d, { recursive: true, force: true })
  dirs.delete(d)
}

/** Run `fn` at exit (e.g. stop the throwaway PostgreSQL) if it has not run before. */
export function atExit(fn: () => void): () => void {
  let done = false
  const once = () => {
    if (done) return
    done = true
    fn()
  }
  finalizers.push(once)
  return once
}

export function track(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

export function spawnTracked(cmd: string, args: string[], opts: SpawnOptions): ChildProcess {
  return track(spawn(cmd, args, opts))
}

function cleanupSync() {
  for (const c of children) {
    try {
      c.kill('SIGKILL')
    } catch {
      /* gone */
    }
  }
  for (const f of finalizers.splice(0).reverse()) {
    try {
      f()
    } catch {
      /* best effort */
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  dirs.clear()
}

process.once('exit', cleanupSync)
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    cleanupSync()
    process.exit(130)
  })
}

/** Resolves with the exit code; SIGTERM first, SIGKILL after `graceMs`. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
    child.kill('SIGTERM')
  })
}

/** The first IPC message of a child, or its failure. */
export function firstMessage<T>(child: ChildProcess, what: string, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    let stderr = ''
    child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)))
    const timer = setTimeout(() => reject(new Error(`${what}: no message within ${timeoutMs} ms\n${stderr}`)), timeoutMs)
    child.once('message', (m) => {
      clearTimeout(timer)
      resolve(m as T)
    })
    child.once('exit', (code, sig) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited (${code ?? sig}) before it was ready\n${stderr}`))
    })
  })
}

/** True when this module is the script node was started with. */
export const isMain = (metaUrl: string): boolean => process.argv[1] !== undefined && pathToFileURL(path.resolve(process.argv[1])).href === metaUrl

/** Run a bench as a script: print nothing more, write BENCH_JSON when asked, exit 0, or 1 on error. */
export function runAsMain<T>(url: string, run: () => Promise<T>): void {
  if (!isMain(url)) return
  run().then(
    (r) => {
      if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(r, null, 2) + '\n')
      process.exit(0)
    },
    (e) => {
      console.error(e)
      process.exit(1)
    },
  )
}
