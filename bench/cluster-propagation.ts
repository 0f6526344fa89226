/**
 * Every node serves the active release (issue 27): the time from a deploy's
 * commit to the moment every OTHER node's `current` link names the new release,
 * beside what bounds it: the same files copied by hand onto each node and
 * checked there with the daemons' own checks.
 *
 * Setup. A throwaway PostgreSQL (test/kit startPostgres), one database, three
 * nodes on it, each its own DATA_DIR and NODE_ID, plugins inventory, tacacs,
 * radius, aaa-policy (the real renderers): node A in this process (it takes
 * every deploy through HTTP), nodes B and C as child processes
 * (bench/lib/cluster-node.ts: their own event loops, as on separate machines;
 * all share this machine's cores). Data seeded directly (bench/lib/scale-seed.ts):
 * BENCH_CLUSTER_USERS (2,000) users with a network password, 100 user groups,
 * BENCH_CLUSTER_DEVICES (200) devices, BENCH_CLUSTER_RULES (50) rules. Real
 * checks: `freeradius -C`, and `tac_plus-ng -P` when TAC_PLUS_NG names it.
 *
 * Measured, BENCH_CLUSTER_DEPLOYS (30) times after two warm-up deploys: one
 * device renamed through the API (a change both daemons' files show), then
 * POST /api/v1/deploys {} on node A. A worker thread (bench/lib/release-watch.ts,
 * its own event loop) reads every node's `current` links every
 * BENCH_CLUSTER_POLL_MS (5) ms and LISTENs for the release notification. Per
 * other node: the last of its two daemons' link switches, minus (1) the
 * deploy row's `activated_at` (database time: the start of the activating
 * transaction, so slightly BEFORE the commit: a conservative figure), and
 * (2) the notification heard by the watcher (just after the commit).
 * Where the time goes: when the agent's `<release>.partial` folder appears
 * (read and decrypted from the database), when the folder is complete
 * (written and fsynced) and when the link switches (checked), per daemon.
 *
 * The bound, after each deploy once both nodes serve it: for B and C at once,
 * the release's files read from node A's release folder, written into a fresh
 * folder of that node's DATA_DIR (fs, fsync per file and folder), then the
 * same checks, one daemon after the other as the agent does. Figures only:
 * nothing fails on a timing.
 * Run: TAC_PLUS_NG=/path/to/tac_plus-ng node --import tsx bench/cluster-propagation.ts
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { open, readFile } from 'node:fs/promises'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import pg from 'pg'
import { pino } from 'pino'
import { startApp, type App } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import { runCheck } from '../kernel/deploy/check.js'
import { parseMasterKey } from '../kernel/security/master-key.js'
import { createSecrets } from '../kernel/security/secrets.js'
import { deriveVerifiers, sealVerifiers } from '../kernel/identity/verifiers.js'
import { SEAL } from '../plugins/inventory/services/inventory.js'
import type { ConfigRenderer, Logger } from '../sdk/index.js'
import { startPostgres } from '../test/kit/postgres.js'
import { adminTokenFor } from '../test/kit/tokens.js'
import { tacPlusNgBinary } from '../test/kit/tac-plus-ng.js'
import { seedScale } from './lib/scale-seed.js'
import type { Watch, WatchEvent } from './lib/release-watch.js'
import { atExit, envInt, f2, firstMessage, loadAvg, machine, median, pct, removeDir, repoRoot, runAsMain, spawnTracked, stopChild, tempDir } from './lib.js'

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy']
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface Spread {
  n: number
  p50: number
  p95: number
  max: number
}
const spread = (xs: number[]): Spread => ({ n: xs.length, p50: median(xs), p95: pct(xs, 95), max: Math.max(...xs) })
const fmt = (s: Spread) => `p50 ${f2(s.p50)} ms, p95 ${f2(s.p95)} ms, max ${f2(s.max)} ms (n=${s.n})`

export interface ClusterPropagationResult {
  machine: string
  loadStart: string
  loadEnd: string
  setup: string
  sizes: Record<string, number>
  daemons: string[]
  releaseSize: Record<string, { files: number; bytes: number }>
  deployApi: Spread
  /** Per other node and deploy: commit (activated_at) → both links name the new release. */
  fromActivated: Spread
  /** The same from the notification heard by the watcher. */
  fromNotify: Spread
  perDaemon: Record<string, Spread>
  /** Medians, ms after the notification, per daemon: partial folder seen, folder complete, link switched. */
  timeline: Record<string, { partial: number | null; written: number | null; switched: number }>
  /** Per deploy in order: the slower other node (from activated_at), and how many release folders node B and node A hold per daemon then. */
  series: { ms: number; foldersB: number; foldersA: number }[]
  bound: Spread
  ratio: { p50: number; p95: number }
  targetMet: boolean
  notes: string[]
}

interface Node {
  name: string
  dataDir: string
  stop(): Promise<void>
}

/** Write `src`'s files into `dst` (created), each fsynced, then the folders: the hand copy of the bound. */
async function copyRelease(src: string, dst: string): Promise<void> {
  mkdirSync(dst, { recursive: true, mode: 0o700 })
  for (const e of readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, e.name)
    const to = path.join(dst, e.name)
    if (e.isDirectory()) {
      await copyRelease(from, to)
      continue
    }
    const fh = await open(to, 'w', statSync(from).mode & 0o777)
    try {
      await fh.writeFile(await readFile(from))
      await fh.sync()
    } finally {
      await fh.close()
    }
  }
  const dh = await open(dst, 'r')
  await dh.sync().finally(() => dh.close())
}

export async function runClusterPropagation(o: { printMachine?: boolean } = {}): Promise<ClusterPropagationResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  const loadStart = loadAvg()
  console.log(`\n== Every node serves the active release (issue 27): 3 nodes on one PostgreSQL ==`)
  console.log(`load average at start: ${loadStart} (a 2-core machine shared with other work: figures are only comparable on an otherwise idle machine)`)
  const size = { users: envInt('BENCH_CLUSTER_USERS', 2000), groups: 100, devices: envInt('BENCH_CLUSTER_DEVICES', 200), rules: envInt('BENCH_CLUSTER_RULES', 50) }
  const deploys = envInt('BENCH_CLUSTER_DEPLOYS', 30)
  const everyMs = envInt('BENCH_CLUSTER_POLL_MS', 5)
  const notes: string[] = []
  const tac = tacPlusNgBinary()
  if (!tac) notes.push('TAC_PLUS_NG unset (or no file): tac_plus-ng is not checked, by the deploy, the agents or the bound')

  const pgc = await startPostgres()
  const stopPg = atExit(() => pgc.destroy())
  const databaseUrl = await pgc.createDatabase('benchcluster')
  const masterKey = randomBytes(32).toString('hex')
  const daemonEnv = Object.fromEntries(['TAC_PLUS_NG', 'FREERADIUS_BINARY'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]))
  const envFor = (dataDir: string) => ({ ...daemonEnv, DATA_DIR: dataDir, MASTER_KEY: masterKey, DATABASE_URL: databaseUrl, NODE_ID: randomUUID(), PLUGINS: PLUGINS.join(','), LOG_LEVEL: 'silent' })
  const nodes: Node[] = []
  const db = new pg.Client({ connectionString: databaseUrl })
  let worker: Worker | null = null
  try {
    // Node A, in this process: it migrates the database, and takes the deploys.
    const dirA = tempDir('portcullis-bench-cluster-a-')
    const app: App = await startApp(loadConfig({ ...envFor(dirA), PORT: '0', HOST: '127.0.0.1' }), { log: pino({ level: 'silent' }) as unknown as Logger })
    nodes.push({ name: 'A', dataDir: dirA, stop: async () => (await app.stop(), removeDir(dirA)) })
    await db.connect()
    const secrets = createSecrets(parseMasterKey(masterKey, 'masterKey'))
    const seed = await seedScale(db, size, {
      verifiers: sealVerifiers(secrets, deriveVerifiers('Bench-Network-Pass-2026')),
      radiusSecret: secrets.encrypt(SEAL.radius_secret, 'bench-radius-secret'),
      tacacsKey: secrets.encrypt(SEAL.tacacs_key, 'bench-tacacs-key'),
    })
    const sizes = seed.counts
    console.log(`data seeded directly in ${(seed.ms / 1000).toFixed(1)} s: ${Object.entries(sizes).map(([t, k]) => `${t} ${k.toLocaleString('en-US')}`).join(', ')}`)
    // Nodes B and C: child processes on the same database.
    for (const name of ['B', 'C']) {
      const dir = tempDir(`portcullis-bench-cluster-${name.toLowerCase()}-`)
      // BENCH_CLUSTER_CPU_PROF=dir: node B writes a V8 CPU profile there when it stops (where its agent's time goes).
      const prof = name === 'B' && process.env.BENCH_CLUSTER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CLUSTER_CPU_PROF}`] : []
      const child = spawnTracked(process.execPath, [...prof, '--import', 'tsx', path.join(repoRoot, 'bench/lib/cluster-node.ts')], { cwd: repoRoot, env: { ...process.env, ...envFor(dir) }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
      await firstMessage(child, `node ${name}`, 120_000)
      nodes.push({ name, dataDir: dir, stop: async () => (await stopChild(child), removeDir(dir)) })
    }
    const setup = 'node A in the bench process (takes the deploys through HTTP); nodes B and C child processes (own event loops); one PostgreSQL database; each node its own DATA_DIR and NODE_ID'
    console.log(`nodes: ${setup}`)

    const token = await adminTokenFor({ databaseUrl, masterKey })
    const call = async (method: string, p: string, body?: unknown) => {
      const t0 = performance.now()
      const r = await fetch(app.url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
      const text = await r.text()
      return { status: r.status, text, ms: performance.now() - t0 }
    }
    const renderers: ConfigRenderer[] = app.registry.renderers.map((r) => r.renderer)
    const daemons = [...new Set(renderers.map((r) => r.daemon))].sort()
    const releasesOf = (n: Node, d: string) => path.join(n.dataDir, 'releases', d)
    const others = nodes.filter((n) => n.name !== 'A')

    const events: WatchEvent[] = []
    const watches: Watch[] = nodes.flatMap((n) => daemons.map((d) => ({ node: n.name, daemon: d, dir: releasesOf(n, d), folders: n.name !== 'A' })))
    // A thread of its own; tsx registered there first (Node 20 does not hand `--import tsx` to a worker's loader).
    const boot = `import('tsx/esm/api').then((t) => t.register()).then(() => import(${JSON.stringify(new URL('./lib/release-watch.ts', import.meta.url).href)}))`
    worker = new Worker(boot, { eval: true, workerData: { watches, databaseUrl, everyMs } })
    await new Promise<void>((resolve, reject) => {
      worker!.once('message', () => resolve())
      worker!.once('error', reject)
    })
    worker.on('error', (e) => console.error('release watcher:', e))
    worker.on('message', (e: WatchEvent) => events.push(e))

    const [{ id: deviceId }] = (await db.query<{ id: string }>(`SELECT id FROM inventory_devices WHERE name = 'sw-000001'`)).rows
    const waitServed = async (releases: Map<string, string>, who: Node[], ms = 120_000) => {
      const end = Date.now() + ms
      const served = () => who.every((n) => daemons.every((d) => events.some((e) => e.kind === 'link' && e.node === n.name && e.daemon === d && e.release === releases.get(d))))
      while (!served()) {
        if (Date.now() > end) {
          const state = (await db.query('SELECT node_id, daemon, release, error FROM cluster_node_daemons')).rows
          throw new Error(`not every node served ${[...releases.values()].join(', ')} within ${ms} ms: ${JSON.stringify(state)}`)
        }
        await sleep(20)
      }
    }
    const deployOnce = async (i: number) => {
      const ren = await call('PUT', `/api/v1/devices/${deviceId}`, { name: `sw-000001-r${i}` })
      if (ren.status !== 200) throw new Error(`rename: ${ren.status} ${ren.text.slice(0, 500)}`)
      const t0 = Date.now()
      const r = await call('POST', '/api/v1/deploys', {})
      const answered = Date.now()
      if (r.status !== 201) throw new Error(`deploy: ${r.status} ${r.text.slice(0, 2000)}`)
      const rows = (JSON.parse(r.text) as { deploys: { id: string; daemon: string; release: string }[] }).deploys
      return { t0, answered, ms: r.ms, rows, releases: new Map(rows.map((x) => [x.daemon, x.release])) }
    }

    let warm = await deployOnce(-1)
    await waitServed(warm.releases, nodes)
    warm = await deployOnce(-2)
    await waitServed(warm.releases, nodes)
    const releaseSize: Record<string, { files: number; bytes: number }> = {}
    const walk = (dir: string, into: { files: number; bytes: number }) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(dir, e.name), into)
        else (into.files++, (into.bytes += statSync(path.join(dir, e.name)).size))
      }
    }
    for (const dm of daemons) walk(path.join(releasesOf(nodes[0], dm), warm.releases.get(dm)!), (releaseSize[dm] = { files: 0, bytes: 0 }))
    console.log(`release size: ${daemons.map((dm) => `${dm} ${releaseSize[dm].files} files, ${(releaseSize[dm].bytes / 1024).toFixed(0)} KiB`).join('; ')}`)
    console.log(`daemons: ${daemons.join(', ')}; ${deploys} deploys after 2 warm-up ones; links read every ${everyMs} ms (load ${loadAvg()})`)

    const deployMs: number[] = []
    const fromActivated: number[] = []
    const fromNotify: number[] = []
    const perDaemon: Record<string, number[]> = {}
    const phases: Record<string, { partial: number[]; written: number[]; switched: number[] }> = {}
    const bound: number[] = []
    const answerAfterCommit: number[] = []
    const series: ClusterPropagationResult['series'] = []
    const folders = (n: Node) => readdirSync(releasesOf(n, daemons[0])).filter((x) => /^\d{8}T\d{9}Z-[0-9a-f]{8}$/.test(x)).length
    for (let i = 0; i < deploys; i++) {
      const d = await deployOnce(i)
      deployMs.push(d.ms)
      await waitServed(d.releases, others)
      const { rows: act } = await db.query<{ at: number }>('SELECT (extract(epoch FROM activated_at) * 1000)::float8 AS at FROM deploys WHERE id = ANY($1)', [d.rows.map((x) => x.id)])
      const activated = Math.min(...act.map((x) => Number(x.at)))
      const notify = Math.min(...events.filter((e) => e.kind === 'notify' && e.at >= d.t0).map((e) => e.at))
      answerAfterCommit.push(d.answered - notify)
      const at = (kind: WatchEvent['kind'], n: Node, daemon: string) => events.find((e) => e.kind === kind && e.node === n.name && e.daemon === daemon && e.release === d.releases.get(daemon))?.at ?? null
      series.push({ ms: Math.max(...others.flatMap((n) => daemons.map((dm) => at('link', n, dm)!))) - activated, foldersB: folders(others[0]), foldersA: folders(nodes[0]) })
      for (const n of others) {
        const links = daemons.map((dm) => at('link', n, dm)!)
        fromActivated.push(Math.max(...links) - activated)
        fromNotify.push(Math.max(...links) - notify)
        for (const dm of daemons) {
          const link = at('link', n, dm)!
          ;(perDaemon[dm] ??= []).push(link - activated)
          const ph = (phases[dm] ??= { partial: [], written: [], switched: [] })
          const partial = at('partial', n, dm)
          const written = at('folder', n, dm)
          if (partial !== null) ph.partial.push(partial - notify)
          if (written !== null) ph.written.push(written - notify)
          ph.switched.push(link - notify)
        }
      }
      // The bound: the same files by hand onto B and C at once, then the same checks.
      await sleep(200) // the agents record their state meanwhile
      const times = await Promise.all(
        others.map(async (n) => {
          const t0 = performance.now()
          for (const dm of daemons) {
            const dst = path.join(n.dataDir, 'bound', `${i}`, dm)
            await copyRelease(path.join(releasesOf(nodes[0], dm), d.releases.get(dm)!), dst)
            for (const r of renderers.filter((x) => x.daemon === dm)) {
              const c = await runCheck((await r.check?.()) ?? null, dst)
              if (!c.ok) throw new Error(`bound: ${dm} check failed on node ${n.name}: ${c.output.slice(0, 1000)}`)
            }
          }
          const ms = performance.now() - t0
          rmSync(path.join(n.dataDir, 'bound'), { recursive: true, force: true })
          return ms
        }),
      )
      bound.push(...times)
      events.splice(0, events.length, ...events.filter((e) => e.at >= d.t0 - 60_000).slice(-2000))
    }

    const result: ClusterPropagationResult = {
      machine: m.line,
      loadStart,
      loadEnd: loadAvg(),
      setup,
      sizes,
      daemons,
      releaseSize,
      deployApi: spread(deployMs),
      fromActivated: spread(fromActivated),
      fromNotify: spread(fromNotify),
      perDaemon: Object.fromEntries(Object.entries(perDaemon).map(([k, xs]) => [k, spread(xs)])),
      timeline: Object.fromEntries(
        Object.entries(phases).map(([k, p]) => [k, { partial: p.partial.length ? median(p.partial) : null, written: p.written.length ? median(p.written) : null, switched: median(p.switched) }]),
      ),
      series,
      bound: spread(bound),
      ratio: { p50: 0, p95: 0 },
      targetMet: false,
      notes,
    }
    result.ratio = { p50: result.fromActivated.p50 / result.bound.p50, p95: result.fromActivated.p95 / result.bound.p95 }
    result.targetMet = result.fromActivated.p95 < 3000
    console.log(`  POST /api/v1/deploys on node A (render, write, both checks, commit): ${fmt(result.deployApi)}; it answered a median ${f2(median(answerAfterCommit))} ms after the commit's notification`)
    console.log(`  commit (activated_at) → every daemon's current on the other node names the release: ${fmt(result.fromActivated)}`)
    console.log(`  the same from the notification (heard just after the commit):                     ${fmt(result.fromNotify)}`)
    for (const [dm, s] of Object.entries(result.perDaemon)) console.log(`    ${dm.padEnd(12)} link switched, from activated_at: ${fmt(s)}`)
    for (const [dm, t] of Object.entries(result.timeline)) {
      const ms = (x: number | null) => (x === null ? 'not seen' : `+${f2(x)} ms`)
      console.log(`    ${dm.padEnd(12)} medians after the notification: writing begins ${ms(t.partial)}, written ${ms(t.written)}, checked and switched ${ms(t.switched)}`)
    }
    const tenth = Math.max(1, Math.floor(series.length / 3))
    const p50Of = (xs: typeof series) => f2(median(xs.map((x) => x.ms)))
    console.log(`    over the run: the slower node's p50 ${p50Of(series.slice(0, tenth))} ms in the first ${tenth} deploys, ${p50Of(series.slice(-tenth))} ms in the last ${tenth}; release folders per daemon at the end: node B ${series.at(-1)!.foldersB}, node A ${series.at(-1)!.foldersA} (deploy.keep_releases)`)
    console.log(`  bound: the files copied by hand (fsync) onto B and C at once and checked there: ${fmt(result.bound)}`)
    console.log(`  agent/bound: ${result.ratio.p50.toFixed(2)}× at p50, ${result.ratio.p95.toFixed(2)}× at p95; target p95 < 3000 ms: ${result.targetMet ? 'met' : `NOT met (by ${f2(result.fromActivated.p95 - 3000)} ms)`}`)
    console.log(`load average at the end: ${result.loadEnd}`)
    for (const n of notes) console.log(`note: ${n}`)
    return result
  } finally {
    if (worker) {
      worker.postMessage('stop')
      await new Promise((r) => setTimeout(r, 200))
      await worker.terminate()
    }
    await db.end().catch(() => undefined)
    for (const n of [...nodes].reverse()) await n.stop().catch(() => undefined)
    stopPg()
  }
}

runAsMain(import.meta.url, runClusterPropagation)
