'use strict'
/**
 * mocha's spec reporter, plus the wall time of each test file (its hooks included: the daemon starts are
 * where a suite's time goes). At the end of the run the slowest files are printed, so that a run that
 * grows slower says where (docs/testing.md, "The suite's time"); TEST_FILE_TIMES=<path> writes them all
 * as JSON lines.
 */
const Mocha = require('mocha')
const { appendFileSync } = require('node:fs')
const { relative } = require('node:path')

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants

class FileTimes extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options)
    const started = new Map()
    const times = new Map()
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent && suite.parent.root) started.set(suite, performance.now())
    })
    runner.on(EVENT_SUITE_END, (suite) => {
      const t0 = started.get(suite)
      if (t0 === undefined) return
      const file = relative(process.cwd(), suite.file)
      times.set(file, (times.get(file) ?? 0) + (performance.now() - t0))
    })
    runner.once(EVENT_RUN_END, () => {
      const sorted = [...times].sort((a, b) => b[1] - a[1])
      const out = process.env.TEST_FILE_TIMES
      if (out) appendFileSync(out, sorted.map(([file, ms]) => JSON.stringify({ engine: process.env.TEST_ENGINE, file, s: Math.round(ms / 100) / 10 })).join('\n') + '\n')
      const total = sorted.reduce((n, [, ms]) => n + ms, 0)
      process.stdout.write(`\n  the slowest files (${Math.round(total / 1000)} s in ${sorted.length} files):\n`)
      for (const [file, ms] of sorted.slice(0, 15)) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`)
      const a = globalThis.portcullisArgon2Calls
      if (a) process.stdout.write(`  argon2id: ${a.hashed} hashes and ${a.verified} verifications computed, ${a.hashesReused} and ${a.verdictsReused} reused (test/kit/argon2-memo.ts)\n`)
    })
  }
}
module.exports = FileTimes
