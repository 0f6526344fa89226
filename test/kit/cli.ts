/**
 * The `portcullis` command as a test runs it: the built command (dist/kernel/cli.js, what the package's
 * `bin` installs and what an operator runs) when dist/ is current, else the source under tsx.
 *
 * Why: under tsx every one of the command's ~1,500 modules is resolved and transformed through its hooks,
 * which made each run cost some 5 s of CPU; the built command starts in about 1.5 s. The suite runs the
 * command a few hundred times, so `npm test` builds dist/ first (`tsup`, a few seconds). Run alone after
 * a change, a test finds dist/ older than the sources and takes the source; nothing ever runs stale code.
 *
 * A plugin named by path (a fixture under test/fixtures/plugins) is TypeScript that only tsx loads: with
 * one in PLUGINS the source runs too.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../../kernel/version.js'

const ROOT = projectRoot()
/** What tsup builds dist/ from (tsup.config.ts). */
const SOURCES = ['kernel', 'sdk', 'plugins', 'collector', 'migrations', 'push', 'examples']

function newest(dir: string): number {
  let latest = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name === 'test') continue
    const p = path.join(dir, e.name)
    if (e.isDirectory()) latest = Math.max(latest, newest(p))
    else if (e.name.endsWith('.ts') || e.name.endsWith('.json')) latest = Math.max(latest, statSync(p).mtimeMs)
  }
  return latest
}

let built: boolean | null = null

/** Whether dist/ was built after the last change to what it is built from. */
export function distIsCurrent(): boolean {
  if (built !== null) return built
  const mark = statSync(path.join(ROOT, 'dist', 'kernel', 'cli.js'), { throwIfNoEntry: false })
  built = !!mark && process.env.TEST_CLI !== 'source' && SOURCES.every((s) => newest(path.join(ROOT, s)) <= mark.mtimeMs)
  return built
}

const ENTRIES = { cli: ['kernel/cli.ts', 'dist/kernel/cli.js'], collector: ['collector/main.ts', 'dist/collector/main.js'], server: ['kernel/main.ts', 'dist/kernel/main.js'] } as const

/** node's arguments for the command (`cli`: portcullis, `collector`: the collector's own entry point, `server`: what `npm start` runs). */
export function commandArgs(args: string[], env: Record<string, string | undefined> = {}, entry: keyof typeof ENTRIES = 'cli'): string[] {
  const pathPlugin = (env.PLUGINS ?? '').split(',').some((p) => /^[./]/.test(p.trim()))
  const [source, dist] = ENTRIES[entry]
  return distIsCurrent() && !pathPlugin ? [path.join(ROOT, dist), ...args] : ['--import', 'tsx', path.join(ROOT, source), ...args]
}

/** The command as a child process (its environment is `env` exactly: pass process.env's parts on purpose). */
export function spawnCommand(args: string[], env: Record<string, string | undefined>, o: SpawnOptions & { entry?: keyof typeof ENTRIES } = {}): ChildProcess {
  const { entry, ...rest } = o
  return spawn(process.execPath, commandArgs(args, env, entry), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...rest, env })
}

/** Runs the command to its end: exit code and what it printed. */
export function runCommand(args: string[], env: Record<string, string | undefined>, o: SpawnOptions & { entry?: keyof typeof ENTRIES } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawnCommand(args, env, o)
    let stdout = ''
    let stderr = ''
    c.stdout?.on('data', (d) => (stdout += d))
    c.stderr?.on('data', (d) => (stderr += d))
    c.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
