/**
 * `npm test`: the whole suite once on each engine, PostgreSQL and the
 * embedded one (PGlite), in two mocha processes side by side (TEST_ENGINE
 * sets the test kit's default engine; a test that pins one keeps it). Each
 * line of output is prefixed with its engine; the exit status fails when
 * either run fails. TEST_ENGINES=postgres (or embedded) runs one; extra
 * arguments go to mocha (`npm test -- --bail`).
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { makeScratchFolder, memoryFileSystem } from './kit/scratch.js'

const SPECS = ['test/**/*.test.ts', 'plugins/*/test/**/*.test.ts', 'pro/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts']
const engines = (process.env.TEST_ENGINES ?? 'postgres,embedded').split(',').map((e) => e.trim()).filter(Boolean)
for (const e of engines) if (e !== 'postgres' && e !== 'embedded') throw new Error(`TEST_ENGINES: unknown engine "${e}"`)

function run(engine: string): Promise<{ engine: string; code: number; ms: number; summary: string[]; failures: string[] }> {
  const t0 = performance.now()
  // The kit's throwaway files in memory when the machine has room (test/kit/scratch.ts): one folder per
  // engine, made here so that it goes even when the run is killed half-way.
  const memory = process.env.TEST_SCRATCH_DIR ? null : memoryFileSystem()
  const scratch = memory ? makeScratchFolder(memory) : null
  const child = spawn(process.execPath, ['node_modules/mocha/bin/mocha.js', ...SPECS, ...(process.stdout.isTTY ? [] : ['--no-color']), ...process.argv.slice(2)], {
    env: { ...process.env, TEST_ENGINE: engine, FORCE_COLOR: process.stdout.isTTY ? '1' : '0', ...(scratch ? { TEST_SCRATCH_DIR: scratch.path } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const summary: string[] = []
  // mocha's report of each failure follows its "N failing" line. The other engine's run is usually still
  // printing then, so CI's tail would show only passing lines: the report is printed again at the very end.
  const failures: string[] = []
  let inFailures = false
  const tag = `[${engine}]`.padEnd(11)
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      // mocha's closing lines ("N passing", "N failing", "N pending"), repeated at the very end.
      // eslint-disable-next-line no-control-regex -- colour codes, when a terminal asked for them
      const plain = line.replace(/\x1b\[[0-9;]*m/g, '')
      if (/^\s+\d+ (passing|failing|pending)\b/.test(plain)) summary.push(plain.trim())
      if (/^\s+\d+ failing\b/.test(plain)) inFailures = true
      else if (inFailures) failures.push(`${tag}${plain}`)
      process.stdout.write(`${tag}${line}\n`)
    })
  }
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      scratch?.remove()
      resolve({ engine, code: code ?? (signal ? 1 : 0), ms: performance.now() - t0, summary, failures })
    }),
  )
}

const results = await Promise.all(engines.map(run))
process.stdout.write('\n')
for (const r of results) {
  if (r.failures.length === 0) continue
  process.stdout.write(`what failed on ${r.engine} (mocha's report, again):\n${r.failures.join('\n')}\n\n`)
}
for (const r of results) process.stdout.write(`${r.engine.padEnd(9)} ${r.code === 0 ? 'ok    ' : 'FAILED'} in ${Math.round(r.ms / 1000)} s: ${r.summary.join(', ')}\n`)
if (engines.length > 1) {
  // Why tests are pending: a test pinned to one engine (runsOn / testEngines) is pending in the other
  // engine's run and runs in its own; a test needing a binary the machine lacks says so where it skips.
  process.stdout.write('pending: tests that need one engine run in that engine\'s process only (pending in the other); a missing daemon binary is named where its tests skip\n')
}
// One plain closing line over both engines, in the form CI reads ("N passed, N failed, N skipped").
const total = (kind: string) => results.reduce((n, r) => n + r.summary.filter((l) => l.includes(kind)).reduce((m, l) => m + Number(/^(\d+)/.exec(l)?.[1] ?? 0), 0), 0)
process.stdout.write(`${total('passing')} passed, ${total('failing')} failed, ${total('pending')} skipped\n`)
process.exit(results.some((r) => r.code !== 0) ? 1 : 0)
