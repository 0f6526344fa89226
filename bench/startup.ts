/**
 * Start to ready: wall time from spawning `node dist/kernel/main.js` until
 * GET /ready answers 200 (polled every 20 ms), for
 *   (a) the embedded engine (PGlite, no DATABASE_URL) on an empty DATA_DIR,
 *   (b) the embedded engine again on that DATA_DIR,
 *   (a new DATA_DIR's cluster is a copy of the template kernel/db/embedded.ts
 *   keeps in node_modules/.cache/portcullis, made once per machine: before the
 *   first timed start, by ensureTemplate; what making it costs is the bound
 *   "PGlite first init" below),
 *   (c) a real PostgreSQL: a fresh database (migrations run), then later runs.
 * The compiled build is timed (dist/ is rebuilt with tsup first when it is
 * missing or older than the sources). Plugins: the edition's default list
 * from package.json. Each start ends with SIGTERM and a graceful exit.
 *
 * Bounds measured in the same run: a bare `node -e "require('http')"`
 * process; loading the kernel's code (import of dist/kernel/app.js, no
 * boot); PGlite's own init (new PGlite(dir) + waitReady) on an empty and on
 * an existing folder, each in a fresh process.
 *
 * BENCH_STARTUP_REPS: repetitions of each (default 5).
 * Run alone: node --import tsx bench/startup.ts
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { defaultTemplateDir, ensureTemplate } from '../kernel/db/embedded.js'
import { freePort, startPostgres } from '../test/kit/postgres.js'
import { atExit, envInt, isMain, machine, median, min, removeDir, repoRoot, spawnTracked, stopChild, tempDir } from './lib.js'

export interface Series {
  label: string
  /** Wall time, spawn to 200 from /ready, per repetition (ms). */
  wall: number[]
  /** The app's own `ready in N ms` (from its first line of code to listening). */
  boot: number[]
  target: number | null
}

export interface StartupResult {
  machine: string
  build: string
  plugins: string[]
  reps: number
  series: Series[]
  bounds: Series[]
}

const SOURCE_DIRS = ['kernel', 'sdk', 'plugins', 'migrations', 'examples']

function newestSource(dir: string): number {
  if (!existsSync(dir)) return 0
  let newest = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) {
      if (e.name !== 'test' && e.name !== 'node_modules') newest = Math.max(newest, newestSource(p))
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(p).mtimeMs)
  }
  return newest
}

/** Build dist/ with tsup when it is missing or older than the sources; says which. */
export function ensureBuild(): string {
  const main = path.join(repoRoot, 'dist', 'kernel', 'main.js')
  const src = Math.max(...SOURCE_DIRS.map((d) => newestSource(path.join(repoRoot, d))))
  if (existsSync(main) && statSync(main).mtimeMs >= src) return 'dist/ up to date'
  const t0 = performance.now()
  const r = spawnSync('npx', ['tsup', '--silent'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  if (r.status !== 0) throw new Error(`tsup failed (${r.status}): ${r.stderr || r.stdout}`)
  return `dist/ rebuilt with tsup in ${Math.round(performance.now() - t0)} ms`
}

function getStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(0))
  })
}

/** Minimal environment: nothing from this shell (DATABASE_URL, PLUGINS…) leaks into the app. */
const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8' })

/** One start: spawn, poll /ready every 20 ms until 200, stop with SIGTERM. */
async function startToReady(env: Record<string, string>): Promise<{ wall: number; boot: number }> {
  const port = await freePort()
  const t0 = performance.now()
  const child = spawnTracked(process.execPath, ['dist/kernel/main.js'], {
    cwd: repoRoot,
    env: { ...baseEnv(), HOST: '127.0.0.1', PORT: String(port), ...env },
    // The JSON log (info) goes to /dev/null, as it would to a collector; stderr holds the banner.
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()))
  let exited = false
  child.once('exit', () => (exited = true))
  const url = `http://127.0.0.1:${port}/ready`
  let wall = 0
  for (;;) {
    if (exited) throw new Error(`the app exited before it was ready:\n${stderr}`)
    if ((await getStatus(url)) === 200) {
      wall = performance.now() - t0
      break
    }
    if (performance.now() - t0 > 120_000) throw new Error(`not ready after 120 s:\n${stderr}`)
    await new Promise((r) => setTimeout(r, 20))
  }
  const code = await stopChild(child, 15_000)
  if (code !== 0) throw new Error(`the app did not exit cleanly on SIGTERM (exit ${code}):\n${stderr}`)
  const m = /ready in (\d+) ms/.exec(stderr)
  return { wall, boot: m ? Number(m[1]) : NaN }
}

/** Wall time of a node process from spawn to exit; its stdout may carry a JSON line of inner timings. */
function nodeProcess(args: string[], o: { cwd?: string } = {}): { wall: number; out: string } {
  const t0 = performance.now()
  const r = spawnSync(process.execPath, args, { cwd: o.cwd ?? repoRoot, env: baseEnv(), encoding: 'utf8' })
  const wall = performance.now() - t0
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`)
  return { wall, out: r.stdout }
}

const PGLITE_INIT = `
const t0 = performance.now()
const { PGlite } = await import('@electric-sql/pglite')
const t1 = performance.now()
const db = new PGlite(process.argv[1])
await db.waitReady
const t2 = performance.now()
await db.close()
console.log(JSON.stringify({ importMs: t1 - t0, initMs: t2 - t1 }))
`

const fmtSeries = (s: Series) => {
  const boot = s.boot.filter(Number.isFinite)
  return (
    `${s.label.padEnd(52)} median ${String(Math.round(median(s.wall))).padStart(5)} ms   min ${String(Math.round(min(s.wall))).padStart(5)} ms` +
    (boot.length ? `   (in-process boot median ${Math.round(median(boot))} ms)` : '') +
    (s.target !== null ? `   target < ${s.target} ms: ${median(s.wall) < s.target ? 'met' : 'NOT met'}` : '') +
    `   [${s.wall.map((x) => Math.round(x)).join(', ')}]`
  )
}

export async function runStartup(o: { printMachine?: boolean } = {}): Promise<StartupResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  const reps = envInt('BENCH_STARTUP_REPS', 5)
  console.log('\n== Start to ready: spawn `node dist/kernel/main.js` → GET /ready 200 (polled every 20 ms) ==')
  const build = ensureBuild()
  const edition = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { portcullis?: { editions?: { community?: string[] } } }).portcullis?.editions?.community ?? []
  console.log(`${build}; ${reps} repetitions each; plugins: the edition default from package.json [${edition.join(', ')}]; log at info to /dev/null`)
  // The embedded template, as the first start on this machine (or the Docker image build) makes it.
  const tTemplate = performance.now()
  const made = !(await ensureTemplate())
  console.log(`embedded template ${defaultTemplateDir()}: ${made ? 'missing, could not be made' : `ready (${Math.round(performance.now() - tTemplate)} ms)`}`)

  const series: Series[] = []
  const bounds: Series[] = []
  const record = (list: Series[], s: Series) => {
    list.push(s)
    console.log(fmtSeries(s))
  }

  // Bounds first, on a quiet machine.
  {
    const wall: number[] = []
    for (let i = 0; i < reps; i++) wall.push(nodeProcess(['-e', "require('http')"]).wall)
    record(bounds, { label: "bound: bare `node -e \"require('http')\"`", wall, boot: [], target: null })
  }
  {
    const wall: number[] = []
    for (let i = 0; i < reps; i++) wall.push(nodeProcess(['--input-type=module', '-e', "await import('./dist/kernel/app.js')"]).wall)
    record(bounds, { label: 'bound: node + import of the kernel code (no boot)', wall, boot: [], target: null })
  }
  {
    const first: number[] = []
    const firstInner: number[] = []
    const later: number[] = []
    const laterInner: number[] = []
    for (let i = 0; i < reps; i++) {
      const dir = tempDir('portcullis-bench-pglite-')
      const a = nodeProcess(['--input-type=module', '-e', PGLITE_INIT, path.join(dir, 'pgdata')])
      first.push(a.wall)
      firstInner.push((JSON.parse(a.out) as { initMs: number }).initMs)
      const b = nodeProcess(['--input-type=module', '-e', PGLITE_INIT, path.join(dir, 'pgdata')])
      later.push(b.wall)
      laterInner.push((JSON.parse(b.out) as { initMs: number }).initMs)
      removeDir(dir)
    }
    record(bounds, { label: 'bound: PGlite first init, new PGlite(dir)+waitReady', wall: firstInner, boot: [], target: null })
    record(bounds, { label: '  …the same as a whole process (node + import + init)', wall: first, boot: [], target: null })
    record(bounds, { label: 'bound: PGlite init on an existing folder', wall: laterInner, boot: [], target: null })
    record(bounds, { label: '  …the same as a whole process', wall: later, boot: [], target: null })
  }

  // (a), (b): embedded.
  {
    const wall: number[] = []
    const boot: number[] = []
    let keep = ''
    for (let i = 0; i < reps; i++) {
      const dir = tempDir('portcullis-bench-start-')
      const r = await startToReady({ DATA_DIR: dir })
      wall.push(r.wall)
      boot.push(r.boot)
      if (i === reps - 1) keep = dir
      else removeDir(dir)
    }
    record(series, { label: '(a) embedded, first run on an empty DATA_DIR', wall, boot, target: 3000 })
    const lw: number[] = []
    const lb: number[] = []
    for (let i = 0; i < reps; i++) {
      const r = await startToReady({ DATA_DIR: keep })
      lw.push(r.wall)
      lb.push(r.boot)
    }
    record(series, { label: '(b) embedded, later run on the same DATA_DIR', wall: lw, boot: lb, target: 1000 })
    removeDir(keep)
  }

  // (c): real PostgreSQL.
  const pg = await startPostgres()
  const stopPg = atExit(() => pg.destroy())
  try {
    const masterKey = randomBytes(32).toString('hex')
    const dataDir = tempDir('portcullis-bench-start-pg-')
    const wall: number[] = []
    const boot: number[] = []
    let url = ''
    for (let i = 0; i < reps; i++) {
      url = await pg.createDatabase('bench_start')
      const r = await startToReady({ DATABASE_URL: url, MASTER_KEY: masterKey, DATA_DIR: dataDir })
      wall.push(r.wall)
      boot.push(r.boot)
    }
    record(series, { label: '(c) PostgreSQL, first run on a fresh database', wall, boot, target: 1500 })
    const lw: number[] = []
    const lb: number[] = []
    for (let i = 0; i < reps; i++) {
      const r = await startToReady({ DATABASE_URL: url, MASTER_KEY: masterKey, DATA_DIR: dataDir })
      lw.push(r.wall)
      lb.push(r.boot)
    }
    record(series, { label: '(c) PostgreSQL, later run', wall: lw, boot: lb, target: 500 })
    removeDir(dataDir)
  } finally {
    stopPg()
  }
  return { machine: m.line, build, plugins: edition, reps, series, bounds }
}

if (isMain(import.meta.url)) {
  runStartup().then(
    () => process.exit(0),
    (e) => {
      console.error(e)
      process.exit(1)
    },
  )
}
