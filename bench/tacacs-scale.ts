/**
 * Issue 13, TACACS+: tac_plus-ng with the rendered configuration at scale,
 * against a one-rule configuration of the same data, measured from outside.
 *
 * Setup. As bench/radius-scale.ts: a throwaway PostgreSQL, the app in process,
 * the data seeded directly (bench/lib/scale-seed.ts; every user holds the same
 * SHA-512-crypt hash). The configuration is rendered through the registered
 * renderer `tacacs.tac_plus-ng` from one repeatable-read snapshot, as the deploy
 * does (BENCH_RENDER_REPS times, timed), checked with `tac_plus-ng -P`, and run
 * as the test kit runs it (`-f -1`: foreground, one process).
 *
 * The one-rule configuration is rendered by the same renderer from the same
 * data inside a transaction that first deletes every rule but the last one
 * (`everyone-at-the-nas`, the rule the load's users reach) and the default,
 * and is then rolled back: same users, hash, groups, devices, profiles and
 * logs, one rule. So the two differ only by the rules.
 *
 * Load: bench/lib/tacacs-load.ts through plugins/tacacs/client from 127.0.0.1
 * (the NAS device), one TCP connection per request, BENCH_IN_FLIGHT (8) in
 * flight, users in turn from 1,000 spread over the range. Kinds
 * (BENCH_TACACS_KINDS, default `pap,author`): PAP authentication, and shell
 * authorization (service=shell cmd*). Warm-up BENCH_WARMUP_SECONDS (2) per
 * configuration and kind, then BENCH_ROUNDS (5) × BENCH_ROUND_SECONDS (10),
 * interleaved. Daemon CPU per answered request, RSS (VmRSS), start (spawn
 * until the first PAP answer).
 *
 * Needs TAC_PLUS_NG (the binary). Figures only. Run:
 *   TAC_PLUS_NG=/root/.cache/portcullis/tac_plus-ng/sbin/tac_plus-ng node --import tsx bench/tacacs-scale.ts
 */
import path from 'node:path'
import type { RenderedFile } from '../sdk/index.js'
import { checkTacPlusNg, freePort, startTacPlusNg, tacPlusNgBinary, TAC_PLUS_NG_SKIP, writeRendered, type RunningTacPlusNg } from '../test/kit/tac-plus-ng.js'
import { f2, loadAvg, machine, median, runAsMain, tempDir } from './lib.js'
import { rssKiB } from './lib/proc.js'
import { tacacsLoad, type TacacsKind, type TacacsLoadResult } from './lib/tacacs-load.js'
import { LAST_RULE, loadRoundOptions, PASSWORD, renderFiles, SEED_NOTE, sizeFromEnv, sizeLine, startScaleApp, TACACS_KEY, type ScaleApp } from './lib/scale-app.js'

const render = (s: ScaleApp, oneRule = false) => renderFiles(s, 'tacacs.tac_plus-ng', oneRule)

interface Config {
  label: string
  file: string
  port: number
  daemon?: RunningTacPlusNg
  startMs?: number
}

export interface TacacsScaleResult {
  machine: string
  load: { start: string; end: string }
  size: ReturnType<typeof sizeFromEnv>
  seedMs: number
  renderMs: number[]
  configs: { label: string; startMs: number; rssMiB: number; kinds: Record<string, { rounds: TacacsLoadResult[]; rpsMedian: number; cpuPerRequestMedianMs: number }> }[]
}

export async function runTacacsScale(): Promise<TacacsScaleResult> {
  if (!tacPlusNgBinary()) throw new Error(TAC_PLUS_NG_SKIP)
  const m = machine()
  console.log(m.line)
  const loadStart = loadAvg()
  console.log(`load average at start: ${loadStart} (figures are only comparable on an otherwise idle machine)`)
  const size = sizeFromEnv()
  const { rounds, roundMs, warmMs, inFlight, renderReps } = loadRoundOptions()
  const kinds = (process.env.BENCH_TACACS_KINDS || 'pap,author').split(',') as TacacsKind[]
  for (const k of kinds) if (k !== 'pap' && k !== 'author') throw new Error(`BENCH_TACACS_KINDS: pap or author, not "${k}"`)

  console.log(`\n== tac_plus-ng at scale: ${sizeLine(size)} ==`)
  console.log(SEED_NOTE)
  const s = await startScaleApp(size)
  const configs: Config[] = []
  try {
    console.log(`seeded in ${(s.seed.ms / 1000).toFixed(2)} s (with VACUUM ANALYZE): ${Object.entries(s.seed.counts).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ')}`)
    const root = tempDir('portcullis-bench-tacacs-scale-')
    const logDir = path.join(s.t.dataDir, 'logs', 'tacacs')
    await s.setting('tacacs.listen_address', '127.0.0.1')

    const onePort = await freePort()
    await s.setting('tacacs.listen_port', onePort)
    const one = await render(s, true)
    const renderedPort = await freePort()
    await s.setting('tacacs.listen_port', renderedPort)
    const renderMs: number[] = []
    let files: RenderedFile[] = []
    for (let i = 0; i < renderReps; i++) {
      const r = await render(s)
      renderMs.push(r.ms)
      files = r.files
    }
    const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0)
    console.log(`full render (tacacs.tac_plus-ng, repeatable-read snapshot): ${renderMs.map((x) => f2(x)).join(', ')} ms; median ${f2(median(renderMs))} ms; ${files.length} file(s), ${(bytes / 1024 / 1024).toFixed(2)} MiB`)
    configs.push({ label: 'rendered', file: writeRendered(path.join(root, 'rendered'), files)[0], port: renderedPort })
    configs.push({ label: `one rule (${LAST_RULE} + default)`, file: writeRendered(path.join(root, 'one-rule'), one.files)[0], port: onePort })
    for (const c of configs) {
      const c0 = performance.now()
      const check = await checkTacPlusNg(c.file)
      if (!check.ok) throw new Error(`tac_plus-ng -P ${c.file}: exit ${check.code}\n${check.stderr}${check.stdout}`.slice(0, 4000))
      console.log(`${c.label}: tac_plus-ng -P ${f2(performance.now() - c0)} ms`)
    }
    for (const c of configs) {
      const t0 = performance.now()
      c.daemon = await startTacPlusNg({ configFile: c.file, port: c.port, mkdirs: [logDir], readyTimeoutMs: 120_000 })
      const first = await tacacsLoad({ host: '127.0.0.1', port: c.port, key: TACACS_KEY, kind: 'pap', users: [s.seed.sample[0]], password: PASSWORD, inFlight: 1, durationMs: 1 })
      if (!first.pass) throw new Error(`${c.label}: the first PAP login did not pass (${JSON.stringify(first)})\n${c.daemon.output().slice(-2000)}`)
      c.startMs = performance.now() - t0
      console.log(`${c.label}: started, first PAP answer ${f2(c.startMs)} ms after spawn; RSS ${(rssKiB(c.daemon.pid) / 1024).toFixed(0)} MiB`)
    }

    const users = s.seed.sample
    const round = (c: Config, kind: TacacsKind, durationMs: number) =>
      tacacsLoad({ host: '127.0.0.1', port: c.port, key: TACACS_KEY, kind, users, password: PASSWORD, inFlight, durationMs, pid: c.daemon!.pid })
    console.log(`\nload: ${kinds.join(' and ')} from 127.0.0.1, one connection per request, ${inFlight} in flight, ${users.length} users in turn; warm-up ${warmMs / 1000} s, then ${rounds} × ${roundMs / 1000} s per configuration and kind, interleaved (load ${loadAvg()})`)
    for (const kind of kinds) for (const c of configs) await round(c, kind, warmMs)
    const results = configs.map(() => Object.fromEntries(kinds.map((k) => [k, [] as TacacsLoadResult[]])) as Record<string, TacacsLoadResult[]>)
    for (let i = 0; i < rounds; i++) {
      for (const kind of kinds) {
        for (const [k, c] of configs.entries()) {
          const r = await round(c, kind, roundMs)
          results[k][kind].push(r)
          console.log(
            `  round ${i + 1} ${kind.padEnd(6)} ${c.label.padEnd(42)} ${f2(r.rps).padStart(8)} req/s  CPU ${f2(r.cpuPerRequestMs ?? NaN).padStart(6)} ms/req  p50 ${f2(r.p50Ms)} ms p99 ${f2(r.p99Ms)} ms  pass ${r.pass}${r.fail || r.errors ? `  fail ${r.fail} errors ${r.errors}` : ''}`,
          )
        }
      }
    }
    const out = configs.map((c, k) => ({
      label: c.label,
      startMs: c.startMs!,
      rssMiB: rssKiB(c.daemon!.pid) / 1024,
      kinds: Object.fromEntries(
        kinds.map((kind) => [kind, { rounds: results[k][kind], rpsMedian: median(results[k][kind].map((r) => r.rps)), cpuPerRequestMedianMs: median(results[k][kind].map((r) => r.cpuPerRequestMs ?? NaN)) }]),
      ),
    }))
    const [rendered, oneRule] = out
    console.log(`\n| Configuration | Kind | Median req/s | Daemon CPU per request | RSS | Start (spawn → first answer) |`)
    console.log(`|---|---|---|---|---|---|`)
    for (const kind of kinds) {
      for (const x of out) console.log(`| ${x.label} | ${kind} | ${f2(x.kinds[kind].rpsMedian)} | ${f2(x.kinds[kind].cpuPerRequestMedianMs)} ms | ${x.rssMiB.toFixed(0)} MiB | ${f2(x.startMs)} ms |`)
      const a = rendered.kinds[kind]
      const b = oneRule.kinds[kind]
      console.log(`| ratio rendered/one rule | ${kind} | ${(a.rpsMedian / b.rpsMedian).toFixed(2)} (target ≥ 0.7) | ${(b.cpuPerRequestMedianMs / a.cpuPerRequestMedianMs).toFixed(2)} (one-rule/rendered CPU, target ≥ 0.7) | ${(rendered.rssMiB / oneRule.rssMiB).toFixed(2)} | ${(rendered.startMs / oneRule.startMs).toFixed(2)} |`)
    }
    const loadEnd = loadAvg()
    console.log(`render median ${f2(median(renderMs))} ms; load average at end: ${loadEnd}`)
    return { machine: m.line, load: { start: loadStart, end: loadEnd }, size, seedMs: s.seed.ms, renderMs, configs: out }
  } finally {
    for (const c of configs) await c.daemon?.stop()
    await s.stop()
  }
}

runAsMain(import.meta.url, runTacacsScale)
