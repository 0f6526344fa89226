/**
 * `npm run bench`: every benchmark, one after the other, with the machine
 * line once. Figures only: nothing here fails on a timing. BENCH_JSON=file
 * also writes the results as JSON (for docs/benchmarks.md).
 */
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { runFramework } from './framework.js'
import { runStartup } from './startup.js'
import { runIdentity } from './identity.js'
import { machine } from './lib.js'

async function main() {
  const m = machine()
  console.log(m.line)
  console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (figures are only comparable on an otherwise idle machine)`)
  const framework = await runFramework({ printMachine: false })
  const startup = await runStartup({ printMachine: false })
  const identity = await runIdentity({ printMachine: false })
  console.log(`\nload average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ machine: m, framework, startup, identity }, null, 2) + '\n')
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  },
)
