/**
 * Configuration tracking (issue 31): the line diff of two versions of a large configuration
 * (sdk/text-diff.ts, what GET /api/v1/ncm/devices/{id}/diff runs).
 *
 * Four pairs of 50,000-line configurations (interface blocks, as a large chassis prints them):
 *   1. 10 scattered edits;
 *   2. 1% of the lines changed (500), spread over the file;
 *   3. a 5,000-line block moved from near the top to near the bottom;
 *   4. entirely different (every line changed): past the cost limit, printed as one replaced block.
 * Each: p95 and median of 20 runs. Target: p95 < 200 ms for 1-3; 4 is reported.
 * Against, in the same run:
 *   - the floor: splitting both texts and interning their lines (a diff cannot do less);
 *   - jsdiff (the `diff` package, the tests' oracle): `diffLines` + `createPatch`, median of 3 runs,
 *     with its own 10 s timeout (it answers nothing past it).
 * The patch of each pair is checked once with jsdiff's applyPatch.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/ncm-diff.ts (BENCH_DIFF_LINES, default 50000;
 * BENCH_DIFF_RUNS, default 20).
 */
import { applyPatch, createPatch } from 'diff'
import { unifiedDiff } from '../sdk/text-diff.js'
import { envInt, f2, loadAvg, machine, median, runAsMain, stats, type Stats } from './lib.js'

export interface NcmDiffCase {
  name: string
  added: number
  removed: number
  minimal: boolean
  bytes: number
  ours: Stats
  floorMs: number
  jsdiffMs: number | null
}

/** A configuration of `n` lines: interface blocks of 8 lines with varied values. */
function config(n: number): string[] {
  const out: string[] = []
  for (let i = 0; out.length < n; i++) {
    out.push(`interface GigabitEthernet${Math.floor(i / 48)}/0/${i % 48}`, ` description port ${i} to rack ${i % 97}`, ` switchport access vlan ${100 + (i % 300)}`, ' switchport mode access', ` ip access-group acl-${i % 13} in`, ' spanning-tree portfast', ' no shutdown', '!')
  }
  return out.slice(0, n)
}

function pairs(n: number): { name: string; a: string[]; b: string[] }[] {
  const a = config(n)
  const scattered = a.slice()
  for (let k = 0; k < 10; k++) scattered[Math.floor(((k + 0.5) * n) / 10)] = ` description changed ${k}`
  const onePercent = a.slice()
  for (let k = 0; k < n / 100; k++) onePercent[(k * 7919) % n] = ` description changed ${k}`
  const block = Math.floor(n / 10)
  const from = Math.floor(n / 10)
  const moved = [...a.slice(0, from), ...a.slice(from + block, n - from), ...a.slice(from, from + block), ...a.slice(n - from)]
  const different = a.map((l, i) => `${l} #${i}`)
  return [
    { name: `10 scattered edits`, a, b: scattered },
    { name: `1% of lines changed (${n / 100})`, a, b: onePercent },
    { name: `a ${block.toLocaleString('en-US')}-line block moved`, a, b: moved },
    { name: `entirely different`, a, b: different },
  ]
}

function floor(a: string, b: string): number {
  const t0 = performance.now()
  const ids = new Map<string, number>()
  for (const s of [a, b]) for (const l of s.split('\n')) if (!ids.has(l)) ids.set(l, ids.size)
  return performance.now() - t0
}

export async function runNcmDiff(o: { printMachine?: boolean } = {}): Promise<NcmDiffCase[]> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average before: ${loadAvg()}`)
  const N = envInt('BENCH_DIFF_LINES', 50_000)
  const RUNS = envInt('BENCH_DIFF_RUNS', 20)
  console.log(`\nncm diff: ${N.toLocaleString('en-US')}-line pairs, ${RUNS} runs each (target: p95 < 200 ms for the first three)`)
  const out: NcmDiffCase[] = []
  for (const p of pairs(N)) {
    const a = p.a.join('\n') + '\n'
    const b = p.b.join('\n') + '\n'
    const first = unifiedDiff(a, b)
    if (applyPatch(a, first.unified) !== b) throw new Error(`${p.name}: the patch does not turn a into b`)
    const times: number[] = []
    for (let r = 0; r < RUNS; r++) {
      const t0 = performance.now()
      unifiedDiff(a, b)
      times.push(performance.now() - t0)
    }
    const floors: number[] = []
    for (let r = 0; r < 5; r++) floors.push(floor(a, b))
    const js: number[] = []
    let gaveUp = false
    for (let r = 0; r < 3 && !gaveUp; r++) {
      const t0 = performance.now()
      // jsdiff's timeout (ms): past it createPatch answers undefined.
      const patch = createPatch('f', a, b, '', '', { context: 3, timeout: 10_000 })
      if (patch === undefined) gaveUp = true
      else js.push(performance.now() - t0)
    }
    const c: NcmDiffCase = { name: p.name, added: first.added, removed: first.removed, minimal: first.minimal, bytes: Buffer.byteLength(first.unified), ours: stats(times), floorMs: median(floors), jsdiffMs: gaveUp ? null : median(js) }
    out.push(c)
    const jsText = c.jsdiffMs === null ? 'jsdiff gave up after 10 s' : `jsdiff median ${f2(c.jsdiffMs)} ms (ours ${(c.jsdiffMs / c.ours.median).toFixed(1)}× faster)`
    console.log(
      `  ${p.name}: +${c.added} -${c.removed}${c.minimal ? '' : ' (not minimal: past the cost limit)'}, ${(c.bytes / 1024).toFixed(0)} KiB; p95 ${f2(c.ours.p95)} ms, median ${f2(c.ours.median)} ms; floor (split + intern) ${f2(c.floorMs)} ms (ours ${(c.ours.median / c.floorMs).toFixed(1)}× it); ${jsText}`,
    )
  }
  console.log(`\nload average after: ${loadAvg()}`)
  return out
}

runAsMain(import.meta.url, () => runNcmDiff())
