/**
 * `npm run bench`: every benchmark, one after the other, with the machine
 * line once. Figures only: nothing here fails on a timing. BENCH_JSON=file
 * also writes the results as JSON (for docs/benchmarks.md). BENCH_LOG_ROWS=factor
 * adds bench/aaa-logs.ts (opt-in: its data takes minutes to generate); BENCH_UI_ROWS=n adds
 * bench/ui-interactive.ts (the console in chromium over n log rows, both engines; opt-in likewise);
 * BENCH_REPORT_ROWS=n adds bench/reports.ts (a month of n TACACS+ rows summarized by a report source; opt-in likewise).
 */
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { runFramework } from './framework.js'
import { runStartup } from './startup.js'
import { runIdentity } from './identity.js'
import { runAaaLogs } from './aaa-logs.js'
import { runAaaPolicy } from './aaa-policy.js'
import { runDeployBench } from './deploy.js'
import { runClusterPropagation } from './cluster-propagation.js'
import { runUiBundle } from './ui-bundle.js'
import { runUiInteractive } from './ui-interactive.js'
import { runReports } from './reports.js'
import { machine } from './lib.js'

async function main() {
  const m = machine()
  console.log(m.line)
  console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (figures are only comparable on an otherwise idle machine)`)
  const framework = await runFramework({ printMachine: false })
  const startup = await runStartup({ printMachine: false })
  const identity = await runIdentity({ printMachine: false })
  // AAA logs generates 26 million rows at full size (several minutes of loading and
  // indexing): opt-in here with BENCH_LOG_ROWS (a factor of the sizes, e.g. 0.2).
  const aaaLogs = process.env.BENCH_LOG_ROWS ? await runAaaLogs({ printMachine: false }) : (console.log('\naaa-logs: skipped (set BENCH_LOG_ROWS, e.g. 1 for the full 10M/2M rows, 0.2 for a fifth)'), null)
  const aaaPolicy = await runAaaPolicy({ printMachine: false })
  const deploy = await runDeployBench({ printMachine: false })
  const clusterPropagation = await runClusterPropagation({ printMachine: false })
  const uiBundle = await runUiBundle({ printMachine: false })
  const uiInteractive = process.env.BENCH_UI_ROWS ? await runUiInteractive({ printMachine: false }) : (console.log('\nui-interactive: skipped (set BENCH_UI_ROWS, e.g. 10000000)'), null)
  const reports = process.env.BENCH_REPORT_ROWS ? await runReports({ printMachine: false }) : (console.log('\nreports: skipped (set BENCH_REPORT_ROWS, e.g. 10000000)'), null)
  console.log(`\nload average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ machine: m, framework, startup, identity, aaaPolicy, aaaLogs, deploy, clusterPropagation, uiBundle, uiInteractive, reports }, null, 2) + '\n')
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  },
)
