/**
 * Issue 13: FreeRADIUS with the rendered tree at production scale, against a
 * minimal tree that checks the same SHA-512-crypt hash, measured from outside.
 *
 * Setup. A throwaway PostgreSQL, the app in process (test kit), the data
 * seeded directly (bench/lib/scale-seed.ts: BENCH_RULES rules, BENCH_USERS
 * users all with a network password, BENCH_GROUPS groups, BENCH_DEVICES
 * devices, the NAS 127.0.0.1 among them). The tree is rendered through the
 * registered renderer `radius.freeradius` from one repeatable-read snapshot,
 * as the deploy does, BENCH_RENDER_REPS times (the full render is timed:
 * issue target under 2 s at 100,000 users), written, checked with
 * `freeradius -C`, and started (`freeradius -f`, threaded, no debug output).
 *
 * The minimal tree is a second render of the same data (its own ports, run
 * and log folders) with the site and the portcullis/* files replaced: one
 * `files` entry, `DEFAULT Crypt-Password := <the users' very hash>`, then
 * `pap`, and the same post-auth JSON log line (portcullis_log_auth); radiusd.conf,
 * clients.conf and every module file are the rendered ones. So the two trees
 * differ only by the policy and the user lookup. A third tree (BENCH_ONE_RULE=0
 * leaves it out) is the rendered tree of the same data with one rule: every
 * rule but the last (everyone-at-the-nas) and the default deleted in a
 * transaction that is rolled back after the render; it splits the difference
 * into the rules' share and the user lookup's. BENCH_CLEARTEXT=1 adds a
 * third tree, the same with `Cleartext-Password` (no hash): the bound of the
 * daemon and of this load generator on the machine.
 *
 * Load: bench/lib/udp-radius-load.ts from 127.0.0.1 (the NAS device), PAP,
 * BENCH_IN_FLIGHT (8) requests in flight, users taken in turn from 1,000
 * spread over the whole range. One warm-up round per tree (BENCH_WARMUP_SECONDS,
 * 2), then BENCH_ROUNDS (5) rounds of BENCH_ROUND_SECONDS (10) per tree,
 * interleaved (rendered, minimal, rendered, …) so that load from elsewhere hits
 * both alike. Daemon CPU: utime+stime of the daemon over the round (/proc) per
 * answered request. RSS: VmRSS after the rounds. Start: spawn until the first
 * answer to an Access-Request.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/radius-scale.ts
 * (BENCH_JSON=file writes the figures as JSON).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { RenderedFile } from '../sdk/index.js'
import { checkConfig, freeUdpPort, writeRelease } from '../plugins/radius/test/e2e-support.js'
import { f2, loadAvg, machine, median, runAsMain, stopChild, tempDir, track } from './lib.js'
import { rssKiB } from './lib/proc.js'
import { firstAnswerMs, radiusLoad, type RadiusLoadResult } from './lib/udp-radius-load.js'
import { LAST_RULE, loadRoundOptions, PASSWORD, RADIUS_SECRET, renderFiles, SEED_NOTE, sizeFromEnv, sizeLine, startScaleApp, type ScaleApp } from './lib/scale-app.js'

interface Tree {
  label: string
  dir: string
  port: number
}

interface Daemon {
  child: ChildProcess
  pid: number
  startMs: number
  output: () => string
}

const render = (s: ScaleApp, oneRule = false) => renderFiles(s, 'radius.freeradius', oneRule)

/** The ports of a tree: settings, set through the API before it is rendered. */
async function placeTree(s: ScaleApp, root: string, label: string): Promise<{ dir: string; port: number }> {
  const port = await freeUdpPort()
  await s.setting('radius.listen_address', '127.0.0.1')
  await s.setting('radius.auth_port', port)
  await s.setting('radius.acct_port', await freeUdpPort())
  return { dir: path.join(root, label), port }
}

const MINIMAL_SITE = (usersFile: string) => ({
  files: `# bench: the minimal tree's one entry (the users' very SHA-512-crypt hash), read by rlm_files.
files {
\tfilename = "${usersFile}"
}
`,
  site: `# bench: the minimal tree: one files entry, PAP, the same JSON log line as the rendered site.
authorize {
\tupdate reply {
\t\t&Message-Authenticator := 0x00
\t}
\tfiles
\tpap
}
authenticate {
\tAuth-Type PAP {
\t\tpap
\t}
}
preacct {
}
accounting {
\tok
}
post-auth {
\tportcullis_log_auth
\tPost-Auth-Type REJECT {
\t\tportcullis_log_auth
\t}
}
`,
})

/**
 * A rendered tree written with a run folder of its own (the pid file): the run folder is a server
 * option, fixed while the app runs, and every daemon of the bench runs at the same time.
 */
function writeOwnRunDir(dir: string, files: RenderedFile[]): void {
  const runDir = `${dir}-run`
  mkdirSync(runDir, { recursive: true })
  writeRelease(dir, files.map((f) => (f.path === 'radiusd.conf' ? { ...f, content: f.content.replace(/^run_dir = .*$/m, `run_dir = "${runDir}"`) } : f)))
}

/** `check`: the one entry's check item, e.g. `Crypt-Password := '$6$…'`. */
function writeMinimal(dir: string, files: RenderedFile[], check: string): void {
  // The rendered tree without its policy and user files, then the minimal site.
  // mods-enabled/portcullis_lookup reads portcullis/* files: it goes with them.
  writeOwnRunDir(dir, files.filter((f) => !f.path.startsWith('portcullis/') && f.path !== 'mods-enabled/portcullis_lookup' && f.path !== 'sites-enabled/default'))
  const usersFile = path.join(dir, 'bench-users')
  writeFileSync(usersFile, `DEFAULT ${check}\n`)
  const m = MINIMAL_SITE(usersFile)
  mkdirSync(path.join(dir, 'sites-enabled'), { recursive: true })
  writeFileSync(path.join(dir, 'mods-enabled/files'), m.files)
  writeFileSync(path.join(dir, 'sites-enabled/default'), m.site)
}

async function startDaemon(tree: Tree): Promise<Daemon> {
  const spawnedAt = performance.now()
  const child = track(spawn('freeradius', ['-f', '-l', 'stdout', '-d', tree.dir], { stdio: ['ignore', 'pipe', 'pipe'] }))
  let out = ''
  child.stdout!.on('data', (d) => (out = (out + d).slice(-20_000)))
  child.stderr!.on('data', (d) => (out = (out + d).slice(-20_000)))
  try {
    const startMs = await firstAnswerMs({
      host: '127.0.0.1',
      port: tree.port,
      secret: RADIUS_SECRET,
      credential: { user: 'u000001', password: PASSWORD },
      spawnedAt,
      everyMs: 20,
      alive: () => child.exitCode === null && child.signalCode === null,
    })
    return { child, pid: child.pid!, startMs, output: () => out }
  } catch (e) {
    throw new Error(`${tree.label}: ${(e as Error).message}\n${out.slice(-3000)}`)
  }
}

export interface RadiusScaleResult {
  machine: string
  load: { start: string; end: string }
  size: ReturnType<typeof sizeFromEnv>
  seedMs: number
  renderMs: number[]
  checkMs: number
  trees: { label: string; startMs: number; rssMiB: number; rounds: RadiusLoadResult[]; rpsMedian: number; cpuPerRequestMedianMs: number }[]
}

export async function runRadiusScale(): Promise<RadiusScaleResult> {
  const m = machine()
  console.log(m.line)
  const loadStart = loadAvg()
  console.log(`load average at start: ${loadStart} (figures are only comparable on an otherwise idle machine)`)
  const size = sizeFromEnv()
  const { rounds, roundMs, warmMs, inFlight, renderReps } = loadRoundOptions()

  console.log(`\n== FreeRADIUS at scale: ${sizeLine(size)} ==`)
  console.log(SEED_NOTE)
  const s = await startScaleApp(size)
  const daemons: Daemon[] = []
  try {
    console.log(`seeded in ${(s.seed.ms / 1000).toFixed(2)} s (with VACUUM ANALYZE): ${Object.entries(s.seed.counts).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ')}`)
    const root = tempDir('portcullis-bench-radius-scale-')

    // BENCH_CLEARTEXT=1: also the minimal tree with the password in clear (the bound without the hash).
    const cleartext = process.env.BENCH_CLEARTEXT === '1'
    // BENCH_ONE_RULE=0: without the rendered tree of the same data with one rule (the rules' share).
    const oneRule = process.env.BENCH_ONE_RULE !== '0'
    const onePlace = oneRule ? await placeTree(s, root, 'rendered-one-rule') : null
    const oneFiles = oneRule ? (await render(s, true)).files : []
    const minimalPlace = await placeTree(s, root, 'minimal')
    const minimalFiles = (await render(s)).files
    const clearPlace = cleartext ? await placeTree(s, root, 'minimal-cleartext') : null
    const clearFiles = cleartext ? (await render(s)).files : []
    const renderedPlace = await placeTree(s, root, 'rendered')
    const renderMs: number[] = []
    let files: RenderedFile[] = []
    for (let i = 0; i < renderReps; i++) {
      const r = await render(s)
      renderMs.push(r.ms)
      files = r.files
    }
    const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0)
    console.log(`full render (radius.freeradius, repeatable-read snapshot): ${renderMs.map((x) => f2(x)).join(', ')} ms; median ${f2(median(renderMs))} ms (issue target: under 2 s at 100,000 users); ${files.length} files, ${(bytes / 1024 / 1024).toFixed(2)} MiB`)
    for (const f of [...files].sort((a, b) => b.content.length - a.content.length).slice(0, 4)) console.log(`  ${f.path.padEnd(28)} ${(Buffer.byteLength(f.content) / 1024).toFixed(0).padStart(8)} KiB`)

    writeRelease(renderedPlace.dir, files)
    if (!/^\$6\$[^'\\\s]+$/.test(s.verifiers.sha512_crypt)) throw new Error('unexpected SHA-512-crypt text')
    writeMinimal(minimalPlace.dir, minimalFiles, `Crypt-Password := '${s.verifiers.sha512_crypt}'`)
    if (clearPlace) writeMinimal(clearPlace.dir, clearFiles, `Cleartext-Password := '${PASSWORD}'`)
    if (onePlace) writeOwnRunDir(onePlace.dir, oneFiles)
    for (const place of [onePlace, clearPlace]) {
      const check = place ? checkConfig(place.dir) : { ok: true, output: '' }
      if (!check.ok) throw new Error(`freeradius -C ${place!.dir}:\n${check.output}`)
    }
    const c0 = performance.now()
    for (const dir of [renderedPlace.dir, minimalPlace.dir]) {
      const check = checkConfig(dir)
      if (!check.ok) throw new Error(`freeradius -C ${dir}:\n${check.output}`)
    }
    const checkMs = (performance.now() - c0) / 2
    const trees: Tree[] = [
      { label: 'rendered', ...renderedPlace },
      { label: 'minimal (one files entry, same hash)', ...minimalPlace },
      ...(onePlace ? [{ label: `rendered, one rule (${LAST_RULE} + default)`, ...onePlace }] : []),
      ...(clearPlace ? [{ label: 'minimal, cleartext (no hash: the bound)', ...clearPlace }] : []),
    ]
    for (const tree of trees) {
      const d = await startDaemon(tree)
      daemons.push(d)
      console.log(`${tree.label}: started, first answer ${f2(d.startMs)} ms after spawn; RSS ${(rssKiB(d.pid) / 1024).toFixed(0)} MiB`)
    }

    const credentials = s.seed.sample.map((user) => ({ user, password: PASSWORD }))
    const round = (k: number, durationMs: number) => radiusLoad({ host: '127.0.0.1', port: trees[k].port, secret: RADIUS_SECRET, credentials, inFlight, durationMs, pid: daemons[k].pid })
    const results: RadiusLoadResult[][] = trees.map(() => [])
    console.log(`\nload: PAP from 127.0.0.1, ${inFlight} in flight, ${credentials.length} users in turn; warm-up ${warmMs / 1000} s, then ${rounds} × ${roundMs / 1000} s per tree, interleaved (load ${loadAvg()})`)
    for (const k of trees.keys()) await round(k, warmMs)
    for (let i = 0; i < rounds; i++) {
      for (const k of trees.keys()) {
        const r = await round(k, roundMs)
        results[k].push(r)
        const odd = r.reject + r.bad + r.timeouts + r.challenge
        console.log(
          `  round ${i + 1} ${trees[k].label.padEnd(48)} ${f2(r.rps).padStart(8)} req/s  CPU ${f2(r.cpuPerRequestMs ?? NaN).padStart(6)} ms/req  p50 ${f2(r.p50Ms)} ms p99 ${f2(r.p99Ms)} ms  accept ${r.accept}${odd ? `  reject ${r.reject} bad ${r.bad} timeouts ${r.timeouts}` : ''}`,
        )
      }
    }
    const out = trees.map((tree, k) => ({
      label: tree.label,
      startMs: daemons[k].startMs,
      rssMiB: rssKiB(daemons[k].pid) / 1024,
      rounds: results[k],
      rpsMedian: median(results[k].map((r) => r.rps)),
      cpuPerRequestMedianMs: median(results[k].map((r) => r.cpuPerRequestMs ?? NaN)),
    }))
    const [rendered, minimal] = out
    console.log(`\n| Tree | Median req/s | Daemon CPU per request | RSS | Start (spawn → first answer) |`)
    console.log(`|---|---|---|---|---|`)
    for (const x of out) console.log(`| ${x.label} | ${f2(x.rpsMedian)} | ${f2(x.cpuPerRequestMedianMs)} ms | ${x.rssMiB.toFixed(0)} MiB | ${f2(x.startMs)} ms |`)
    console.log(`| ratio rendered/minimal | ${(rendered.rpsMedian / minimal.rpsMedian).toFixed(2)} (target ≥ 0.7) | ${(minimal.cpuPerRequestMedianMs / rendered.cpuPerRequestMedianMs).toFixed(2)} (minimal/rendered CPU, target ≥ 0.7) | ${(rendered.rssMiB / minimal.rssMiB).toFixed(2)} | ${(rendered.startMs / minimal.startMs).toFixed(2)} |`)
    console.log(`policy + lookup, daemon CPU per request (rendered − minimal): ${f2(rendered.cpuPerRequestMedianMs - minimal.cpuPerRequestMedianMs)} ms (target under 0.5 ms)`)
    const one = onePlace ? out[2] : null
    if (one) {
      console.log(
        `  of which the rules (rendered − rendered with one rule): ${f2(rendered.cpuPerRequestMedianMs - one.cpuPerRequestMedianMs)} ms; the user lookup and the rest (one rule − minimal): ${f2(one.cpuPerRequestMedianMs - minimal.cpuPerRequestMedianMs)} ms`,
      )
    }
    console.log(`render median ${f2(median(renderMs))} ms; freeradius -C ${f2(checkMs)} ms per tree`)
    const loadEnd = loadAvg()
    console.log(`load average at end: ${loadEnd}`)
    return { machine: m.line, load: { start: loadStart, end: loadEnd }, size, seedMs: s.seed.ms, renderMs, checkMs, trees: out }
  } finally {
    for (const d of daemons) await stopChild(d.child, 5000)
    await s.stop()
  }
}

runAsMain(import.meta.url, runRadiusScale)
