/** The daemon's own configuration check, run on a release folder before it is activated. */
import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import type { DaemonCheck } from '../../sdk/index.js'

/** The binary's absolute path: as given when absolute, else looked up on PATH; null when absent or not executable. */
export function findBinary(binary: string): string | null {
  const executable = (p: string) => {
    try {
      accessSync(p, constants.X_OK)
      return true
    } catch {
      return false
    }
  }
  if (binary.includes('/')) {
    const p = path.resolve(binary)
    return executable(p) ? p : null
  }
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
    if (d && executable(path.join(d, binary))) return path.join(d, binary)
  }
  return null
}

export interface RunResult {
  code: number | null
  signal: string | null
  stdout: string
  stderr: string
  timedOut: boolean
  error?: string
}

const CAP = 64 * 1024

/** Run argv with a timeout; output capped at 64 KiB a stream. An empty environment by default (tac_plus-ng expands `${NAME}` from it). */
export function run(file: string, args: string[], o: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string }): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const child = spawn(file, args, { env: o.env ?? {}, cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < CAP) stdout += d.toString('utf8')
    })
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < CAP) stderr += d.toString('utf8')
    })
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, o.timeoutMs)
    child.on('error', (e) => {
      clearTimeout(timer)
      resolve({ code: null, signal: null, stdout, stderr, timedOut, error: e.message })
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, timedOut })
    })
  })
}

export interface CheckOutcome {
  /** null: no check configured, or its binary is absent. */
  checked: boolean | null
  ok: boolean
  output: string
}

/** A daemon's check over all its renderers; `unchecked`: a renderer declares a check that could not run (its binary is absent). */
export type DaemonCheckOutcome = CheckOutcome & { unchecked: boolean }

export async function runCheck(check: DaemonCheck | null, releaseDir: string, timeoutMs = 60_000): Promise<CheckOutcome> {
  if (!check) return { checked: null, ok: true, output: 'no check configured' }
  const bin = findBinary(check.binary)
  if (!bin) return { checked: null, ok: true, output: `${check.binary} not found: check skipped` }
  const args = check.args(releaseDir)
  const r = await run(bin, args, { timeoutMs, cwd: releaseDir })
  const output = [r.stdout.trim(), r.stderr.trim()].filter(Boolean).join('\n')
  const cmd = [bin, ...args].join(' ')
  if (r.error) return { checked: true, ok: false, output: `${cmd}: ${r.error}` }
  if (r.timedOut) return { checked: true, ok: false, output: `${cmd}: timed out after ${timeoutMs} ms\n${output}`.trim() }
  if (r.code !== 0) return { checked: true, ok: false, output: output || `${cmd}: exit ${r.code ?? r.signal}` }
  if (check.stderrIsFailure && r.stderr.trim() !== '') return { checked: true, ok: false, output }
  return { checked: true, ok: true, output }
}
