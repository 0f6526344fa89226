/**
 * tac_plus-ng for tests: check a rendered configuration with the daemon's own
 * parser (`-P`), and run it in the foreground, one process (`-f -1`), on a
 * loopback port. The binary comes from the environment variable TAC_PLUS_NG
 * (tac_plus-ng is not packaged by Debian; it is built from its public source
 * outside this repository); tests skip when it is not set.
 *
 * The daemon runs with an empty environment: tac_plus-ng replaces `${NAME}`
 * in every quoted string of its configuration by the environment variable
 * NAME when that is set, and the log formats are made of `${…}` variables.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import type { RenderedFile } from '../../sdk/index.js'

/** The binary named by TAC_PLUS_NG, or null when unset (or not there). */
export function tacPlusNgBinary(): string | null {
  const bin = process.env.TAC_PLUS_NG
  return bin && existsSync(bin) ? bin : null
}

/** Why a test skips without the binary, said once. */
export const TAC_PLUS_NG_SKIP =
  'TAC_PLUS_NG is not set (or names no file): set it to a tac_plus-ng binary built from MarcJHuber/event-driven-servers to run the tests against the real daemon'

/** Write rendered files into `dir` with their modes; returns the paths written. */
export function writeRendered(dir: string, files: RenderedFile[]): string[] {
  return files.map((f) => {
    const p = path.join(dir, f.path)
    mkdirSync(path.dirname(p), { recursive: true })
    writeFileSync(p, f.content, { mode: f.mode })
    return p
  })
}

export interface CheckResult {
  /** Exit code 0 and nothing on stderr: some errors (a group used before it is declared) exit 0 but print. */
  ok: boolean
  code: number | null
  stdout: string
  stderr: string
}

/** `tac_plus-ng -P FILE`: the daemon's own parse of the configuration. */
export function checkTacPlusNg(configFile: string, binary = tacPlusNgBinary()): Promise<CheckResult> {
  if (!binary) throw new Error(TAC_PLUS_NG_SKIP)
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-P', configFile], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ ok: code === 0 && stderr.trim() === '', code, stdout, stderr })
    })
  })
}

/** A free TCP port (test/kit/ports.ts: outside the range listen(0) is given from). */
export { freePort } from './ports.js'

export interface RunningTacPlusNg {
  host: string
  port: number
  pid: number
  /** What the daemon printed so far (its own messages go to stderr with `-f`). */
  output(): string
  stop(): Promise<void>
}

export interface StartOptions {
  configFile: string
  /** Where the configuration listens: the test renders it so (setting `tacacs.listen_port`). */
  host?: string
  port: number
  binary?: string | null
  /** Folders to create first (the log directory). */
  mkdirs?: string[]
  /** Extra arguments, e.g. `['-d', '526']` with TAC_PLUS_NG_DEBUG. */
  args?: string[]
  readyTimeoutMs?: number
}

function connectOnce(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port })
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

/** Start `tac_plus-ng -f -1 FILE` and wait until it accepts connections. */
export async function startTacPlusNg(o: StartOptions): Promise<RunningTacPlusNg> {
  const binary = o.binary ?? tacPlusNgBinary()
  if (!binary) throw new Error(TAC_PLUS_NG_SKIP)
  const host = o.host ?? '127.0.0.1'
  for (const d of o.mkdirs ?? []) mkdirSync(d, { recursive: true })
  const debug = process.env.TAC_PLUS_NG_DEBUG ? ['-D', '-d', process.env.TAC_PLUS_NG_DEBUG] : []
  const child: ChildProcess = spawn(binary, ['-f', '-1', ...debug, ...(o.args ?? []), o.configFile], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  let exited: number | null | undefined
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code
      resolve()
    }),
  )
  const deadline = Date.now() + (o.readyTimeoutMs ?? 10_000)
  for (;;) {
    if (exited !== undefined) throw new Error(`tac_plus-ng exited (code ${exited}) before listening:\n${out}`)
    if (await connectOnce(host, o.port)) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`tac_plus-ng did not listen on ${host}:${o.port} within the time:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    host,
    port: o.port,
    pid: child.pid!,
    output: () => out,
    async stop() {
      if (exited !== undefined) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exit
      clearTimeout(timer)
    },
  }
}
