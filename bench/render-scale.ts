/**
 * Issue 13: the full render at production scale. The target: under 2 s at 100,000 users.
 *
 * The data of the scale benches (bench/lib/scale-seed.ts, seeded directly), the app in process. Timed:
 * - the first render after the app started (`radius.freeradius`): the sealed verifiers are opened
 *   then (kernel/identity/network-users.ts keeps them opened for the renders that follow);
 * - each registered renderer alone, BENCH_RENDER_REPS times (median), from a repeatable-read snapshot;
 * - every renderer in one snapshot, as a deploy or a dry run renders (kernel/deploy/service.ts renderAll);
 * - the bound: the two statements the network users are read with, through a bare pg client, and the
 *   whole read (`identity.networkUsers`) that the renderers share.
 * Figures only: nothing fails on a timing. Run: BENCH_RULES=5000 BENCH_USERS=100000 node --import tsx bench/render-scale.ts
 */
import { envInt, f2, loadAvg, machine, median, runAsMain } from './lib.js'
import { renderFiles, SEED_NOTE, sizeFromEnv, sizeLine, startScaleApp, type ScaleApp } from './lib/scale-app.js'

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now()
  const value = await fn()
  return { value, ms: performance.now() - t0 }
}

const mib = (files: { content: string | Buffer }[]) => files.reduce((n, f) => n + Buffer.byteLength(f.content), 0) / 1024 / 1024

/** Every renderer in one repeatable-read snapshot, in registration order, as the deploy renders. */
async function renderAll(s: ScaleApp): Promise<number> {
  const renderers = s.t.app.registry.renderers.map((r) => r.renderer)
  const t0 = performance.now()
  await s.t.app.db.transaction(
    async (snapshot) => {
      for (const r of renderers) await r.render(snapshot)
    },
    { isolation: 'repeatable read' },
  )
  return performance.now() - t0
}

export async function run() {
  const size = sizeFromEnv()
  const reps = envInt('BENCH_RENDER_REPS', 3)
  const m = machine()
  const loadStart = loadAvg()
  console.log(`# Full render at scale: ${sizeLine(size)}\n${m.line}; load average ${loadStart}\n${SEED_NOTE}`)
  const s = await startScaleApp(size)
  try {
    const first = await renderFiles(s, 'radius.freeradius')
    console.log(`first render after start (radius.freeradius, verifiers opened): ${f2(first.ms)} ms, ${mib(first.files).toFixed(1)} MiB`)
    const bareSql = async () => {
      await s.db.query('select id, username, network_verifiers, expires_at, lockout_cleared_at from users where enabled and network_login order by username')
      await s.db.query('select user_id, group_id from user_group_members')
    }
    const sqlMs: number[] = []
    const readMs: number[] = []
    for (let i = 0; i < reps; i++) {
      sqlMs.push((await timed(bareSql)).ms)
      readMs.push((await timed(() => s.t.app.identity.networkUsers(s.t.app.db.knex))).ms)
    }
    console.log(`bound: the network users' two statements through a bare pg client ${f2(median(sqlMs))} ms; identity.networkUsers (read, grouped, verifiers from the memo) ${f2(median(readMs))} ms`)
    const rows: string[] = []
    for (const { renderer } of s.t.app.registry.renderers) {
      const times: number[] = []
      let out = 0
      for (let i = 0; i < reps; i++) {
        const r = await renderFiles(s, renderer.id)
        times.push(r.ms)
        out = mib(r.files)
      }
      rows.push(`| ${renderer.id} | ${f2(median(times))} ms | ${(median(times) / median(sqlMs)).toFixed(1)}× | ${out.toFixed(1)} MiB |`)
    }
    const all: number[] = []
    for (let i = 0; i < reps; i++) all.push(await renderAll(s))
    console.log('\n| Renderer | Median render | × the bare read | Output |\n|---|---|---|---|')
    for (const r of rows) console.log(r)
    console.log(`| every renderer in one snapshot (a deploy's render) | ${f2(median(all))} ms | ${(median(all) / median(sqlMs)).toFixed(1)}× | |`)
    console.log(`\nload average at the end ${loadAvg()}`)
    return { machine: m.line, size, firstMs: first.ms, sqlMs, readMs, allMs: all }
  } finally {
    await s.stop()
  }
}

runAsMain(import.meta.url, run)
