/**
 * The console's time to interactive (issue 17) over a log table of
 * 10,000,000 rows, on the real PostgreSQL and on the embedded engine (PGlite),
 * in a real browser (playwright-core + Debian's chromium, headless), against
 * the real server (kernel/main.ts in a child process, the built console).
 *
 * Data. The 10M rows (BENCH_UI_ROWS) all go into TACACS+ authentication, the
 * kind the log list opens on (its first tab), through the same server-side
 * INSERT … SELECT generate_series as bench/aaa-logs.ts (20,000 users drawn
 * zipf-ish, 5,000 NAS, 90 days, 90% success; the migrations' indexes dropped
 * and re-created around the load, the rollup filled by its triggers, then
 * ANALYZE), in chunks of BENCH_UI_CHUNK rows (default 250,000; one transaction each: the
 * embedded engine runs in WebAssembly memory). The other kinds stay empty;
 * the dashboard reads none of them. The data lives in a temporary folder
 * (and a throwaway cluster for PostgreSQL), removed at the end.
 *
 * Measured, BENCH_UI_RUNS times (default 5) with a fresh browser profile each
 * (an empty cache, as a first visit), median and min:
 * 0. the bare page load: goto / until the sign-in form is shown;
 * a. sign-in: Enter in the password field until the dashboard's four cards
 *    have their content;
 * b. the log list: a click on "AAA logs" in the menu until its first page of
 *    50 rows and its total are shown (the screen's lazy chunk included);
 * c. a sort (the User header, over the whole 10M) and a search (a user name,
 *    free text, no date window; the screen waits 300 ms after the last key
 *    before it asks, included), each until the rows of the answer are shown;
 * d. an entry's drawer: a click on the first row until its fields are shown.
 * Bound of each: the very requests the page made in that step (captured in the
 * browser), replayed by node fetch right after it, with the page's own
 * concurrency (requests that overlapped run in parallel, the others in turn).
 * Replayed after the browser's, they find the database's cache warm: a bound.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/ui-interactive.ts
 * (BENCH_UI_ENGINES=postgres,embedded; BENCH_UI_ROWS=10000000, or
 * BENCH_UI_EMBEDDED_ROWS for the embedded engine alone; BENCH_JSON=file).
 */
import { execSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import type { Knex } from 'knex'
import pg from 'pg'
import { pino } from 'pino'
import type { Browser, Page, Request } from 'playwright-core'
import { startApp } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import { packageEditions } from '../kernel/version.js'
import type { Logger } from '../sdk/index.js'
import { startPostgres } from '../test/kit/postgres.js'
import { CHROMIUM, context, launch } from '../test/kit/browser.js'
import { uiIsStale } from '../ui/scripts/ensure-built.js'
import { generate, type Queryable } from './aaa-logs.js'
import { atExit, envInt, f2, loadAvg, machine, median, min, removeDir, repoRoot, runAsMain, spawnTracked, stopChild, tempDir } from './lib.js'

type Engine = 'postgres' | 'embedded'
const TABLE = 'aaa_log_tacacs_authn'
const BOOT_PASSWORD = 'Bench-Boot-Password-9'
const PASSWORD = 'Bench-Console-Password-9'
const USERS = 20_000
const STEPS = ['page load', 'sign-in → dashboard', 'log list, first page', 'sort by user', 'search a user', 'entry drawer'] as const
type Step = (typeof STEPS)[number]

export interface StepFigure {
  step: Step
  browser: { median: number; min: number; n: number }
  bound: { median: number; min: number; n: number }
  requests: string[]
}
export interface EngineResult {
  engine: Engine
  rows: number
  loadSeconds: number
  size: string
  steps: StepFigure[]
  loadAvg: string
}

/** The embedded engine's knex as generate() wants it: `$n` parameters become knex's `?`. */
const viaKnex = (knex: Knex): Queryable => ({
  async query<R>(sql: string, params?: unknown[]) {
    const r = (params?.length ? await knex.raw(sql.replace(/\$\d+/g, '?'), params as Knex.RawBinding[]) : await knex.raw(sql)) as { rows: R[]; rowCount: number | null }
    return { rows: r.rows, rowCount: r.rowCount }
  },
})

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

async function json(url: string, body: object, token?: string): Promise<Record<string, unknown>> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) })
  const b = (await r.json()) as Record<string, unknown>
  if (!r.ok) throw new Error(`${url}: ${r.status} ${JSON.stringify(b)}`)
  return b
}

/**
 * Makes the database (migrations, the administrator, the 10M rows) with the app in this process,
 * then stops it: the measured server is a separate process on the same data.
 */
async function prepare(engine: Engine, rows: number, chunk: number) {
  const dataDir = tempDir(`portcullis-bench-ui-${engine}-`)
  let databaseUrl: string | null = null
  // The throwaway cluster goes when the engine's figures are taken (or at exit, whatever happens).
  let destroy = () => removeDir(dataDir)
  if (engine === 'postgres') {
    const pgc = await startPostgres()
    const stopPg = atExit(() => pgc.destroy())
    destroy = () => {
      stopPg()
      removeDir(dataDir)
    }
    databaseUrl = await pgc.createDatabase('benchui')
  }
  const masterKey = randomBytes(32).toString('hex')
  const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, MASTER_KEY: masterKey, LOG_LEVEL: 'silent', ADMIN_PASSWORD: BOOT_PASSWORD, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }
  const config = loadConfig(env, { editions: packageEditions() })
  const app = await startApp(config, { log: pino({ level: 'silent' }) as unknown as Logger })
  let client: pg.Client | null = null
  try {
    // The first sign-in must change the password: done here, so the browser signs in as an operator does every day.
    const first = await json(`${app.url}/api/v1/auth/login`, { username: 'admin', password: BOOT_PASSWORD })
    await json(`${app.url}/api/v1/auth/change-password`, { current_password: BOOT_PASSWORD, new_password: PASSWORD }, String(first.password_change_token))
    let q: Queryable
    if (databaseUrl) {
      client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      q = client as unknown as Queryable
    } else q = viaKnex(app.db.knex)
    const t0 = performance.now()
    // Chunks: one transaction each (the embedded engine keeps a whole statement's work in WebAssembly memory).
    const chunked: Queryable = {
      query: async <R,>(sql: string, params?: unknown[]) => {
        if (!sql.startsWith(`INSERT INTO ${TABLE}`)) return q.query<R & Record<string, unknown>>(sql, params)
        let done = 0
        for (let at = 1; at <= rows; at += chunk) {
          const n = Math.min(chunk, rows - at + 1)
          const t = performance.now()
          await q.query(sql.replace(`generate_series(1, ${rows})`, `generate_series(${at}, ${at + n - 1})`))
          done += n
          if (rows > chunk) console.log(`    ${done.toLocaleString('en-US')} rows (${((performance.now() - t) / 1000).toFixed(1)} s for this chunk)`)
        }
        return { rows: [], rowCount: done }
      },
    }
    const data = await generate(chunked, { [TABLE]: rows }, { maintenanceWorkMem: engine === 'embedded' ? '128MB' : '512MB' })
    const loadSeconds = (performance.now() - t0) / 1000
    const size = data.tables[0].total
    console.log(`  ${engine}: ${rows.toLocaleString('en-US')} rows in ${TABLE} in ${loadSeconds.toFixed(0)} s, ${size} with its indexes`)
    return { dataDir, databaseUrl, masterKey, loadSeconds, size, destroy }
  } finally {
    await client?.end().catch(() => undefined)
    await app.stop()
  }
}

/** The real server (kernel/main.ts) on the prepared data, in its own process. */
async function serve(p: { dataDir: string; databaseUrl: string | null; masterKey: string }) {
  const port = await freePort()
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: p.dataDir, MASTER_KEY: p.masterKey, LOG_LEVEL: 'warn', ...(p.databaseUrl ? { DATABASE_URL: p.databaseUrl } : {}) }
  if (!p.databaseUrl) delete env.DATABASE_URL
  const child = spawnTracked(process.execPath, ['--import', 'tsx', 'kernel/main.ts'], { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'] })
  const url = await new Promise<string>((resolve, reject) => {
    let err = ''
    const timer = setTimeout(() => reject(new Error(`the server did not start in 5 min\n${err}`)), 300_000)
    child.stderr!.on('data', (b: Buffer) => {
      err = (err + b.toString()).slice(-4000)
      const m = /is listening on (http:\/\/\S+)/.exec(err)
      if (m) {
        clearTimeout(timer)
        resolve(m[1].replace(/\/$/, ''))
      }
    })
    child.once('exit', (c) => reject(new Error(`the server exited (${c})\n${err}`)))
  })
  return { url, stop: () => stopChild(child) }
}

interface Seen {
  method: string
  url: string
  headers: Record<string, string>
  body: string | null
  start: number
  end: number
}

/** The requests a page makes, each with when it started and finished (for the replay's concurrency). */
function recorder(page: Page) {
  let seen: Seen[] = []
  const open = new Map<Request, Seen>()
  page.on('request', (r) => {
    const s: Seen = { method: r.method(), url: r.url(), headers: r.headers(), body: r.postData(), start: performance.now(), end: Infinity }
    open.set(r, s)
    seen.push(s)
  })
  const done = (r: Request) => {
    const s = open.get(r)
    if (s) s.end = performance.now()
    open.delete(r)
  }
  page.on('requestfinished', done)
  page.on('requestfailed', done)
  return { take: () => [seen, (seen = [])][0] }
}

/** Replays requests with the page's concurrency: a request that started before the earlier ones ended runs beside them. */
async function replay(reqs: Seen[]): Promise<number> {
  const waves: Seen[][] = []
  let end = -Infinity
  for (const r of [...reqs].sort((a, b) => a.start - b.start)) {
    if (waves.length && r.start < end) waves[waves.length - 1].push(r)
    else waves.push([r])
    end = Math.max(end, r.end)
  }
  const keep = ['authorization', 'content-type', 'accept', 'accept-language']
  const t0 = performance.now()
  for (const w of waves) {
    await Promise.all(
      w.map(async (r) => {
        const headers = Object.fromEntries(Object.entries(r.headers).filter(([k]) => keep.includes(k)))
        const res = await fetch(r.url, { method: r.method, headers, body: r.body ?? undefined })
        await res.arrayBuffer()
      }),
    )
  }
  return performance.now() - t0
}

const rowsShown = (page: Page) =>
  page.waitForFunction(() => {
    const total = document.querySelector('[data-testid="logs-total"]')
    return !!total && document.querySelectorAll('[data-testid="logs-table"] tbody tr').length > 0
  })

/** Until the list shows the first row of the answer to the request `match` picks. */
async function answerShown(page: Page, match: (u: URL) => boolean, act: () => Promise<void>) {
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().includes('/api/v1/aaa/logs/') && match(new URL(r.url())), { timeout: 120_000 }), act()])
  const body = (await res.json()) as { items: { username: string }[] }
  // An empty answer (a rare user on a small table) shows no rows.
  await page.waitForFunction((u) => (document.querySelector('[data-testid="logs-table"] tbody tr')?.getAttribute('data-username') ?? null) === u, body.items[0]?.username ?? null, { timeout: 120_000 })
}

async function oneRun(browser: Browser, url: string): Promise<Record<Step, { ms: number; bound: number; requests: string[] }>> {
  const ctx = await context(browser, { locale: 'en-US' })
  ctx.setDefaultTimeout(120_000)
  const page = await ctx.newPage()
  const rec = recorder(page)
  const out = {} as Record<Step, { ms: number; bound: number; requests: string[] }>
  const step = async (name: Step, fn: () => Promise<void>) => {
    const t0 = performance.now()
    await fn()
    const ms = performance.now() - t0
    // The step's last requests may finish after what it waited for (a refetch): only what it made until now.
    await page.waitForTimeout(50)
    const reqs = rec.take()
    const bound = await replay(reqs)
    out[name] = { ms, bound, requests: reqs.map((r) => `${r.method} ${new URL(r.url).pathname}${new URL(r.url).search}`) }
  }
  await step('page load', async () => {
    await page.goto(url + '/')
    await page.locator('input[name="username"]').waitFor()
  })
  await page.locator('input[name="username"]').fill('admin')
  await page.locator('input[name="password"]').fill(PASSWORD)
  await step('sign-in → dashboard', async () => {
    await page.locator('input[name="password"]').press('Enter')
    // Each card has content: its table, or its sentence (no daemons, no failures).
    for (const id of ['readiness', 'system-info', 'deploy-status', 'failures']) await page.getByTestId(id).locator('table, p').first().waitFor()
  })
  await step('log list, first page', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'AAA logs' }).click()
    await rowsShown(page)
  })
  const table = page.getByTestId('logs-table')
  await step('sort by user', () => answerShown(page, (u) => u.searchParams.get('sort_by') === 'username', () => table.getByRole('button', { name: /^User/ }).click()))
  const user = `user${String(Math.floor(USERS * Math.random() ** 3)).padStart(5, '0')}`
  await step('search a user', () => answerShown(page, (u) => u.searchParams.get('search') === user, () => page.locator('input[name="search"]').fill(user)))
  await step('entry drawer', async () => {
    await table.getByRole('button', { name: /^Details of/ }).first().click()
    await page.getByTestId('log-entry').waitFor()
  })
  await ctx.close()
  return out
}

async function measureEngine(browser: Browser, engine: Engine, rows: number, runs: number): Promise<EngineResult> {
  console.log(`\n== ${engine}: loading ${rows.toLocaleString('en-US')} rows ==`)
  const p = await prepare(engine, rows, envInt('BENCH_UI_CHUNK', 250_000))
  const server = await serve(p)
  try {
    // One run unmeasured: the server's first queries, the OS's file cache.
    await oneRun(browser, server.url)
    const all: Record<Step, { ms: number; bound: number; requests: string[] }>[] = []
    for (let i = 0; i < runs; i++) all.push(await oneRun(browser, server.url))
    const la = loadAvg()
    const steps = STEPS.map((s): StepFigure => {
      const b = all.map((r) => r[s].ms)
      const d = all.map((r) => r[s].bound)
      return { step: s, browser: { median: median(b), min: min(b), n: b.length }, bound: { median: median(d), min: min(d), n: d.length }, requests: all[0][s].requests }
    })
    console.log(`  ${engine}, ${rows.toLocaleString('en-US')} rows in ${TABLE} (${p.size}); load average ${la}; ${runs} runs, fresh browser profile each`)
    for (const s of steps) {
      console.log(`  ${s.step.padEnd(22)} browser median ${f2(s.browser.median).padStart(6)} ms (min ${f2(s.browser.min)})  bound ${f2(s.bound.median).padStart(6)} ms (min ${f2(s.bound.min)})  ${(s.browser.median / s.bound.median).toFixed(1)}× the bound`)
      console.log(`  ${''.padEnd(22)} ${s.requests.filter((r) => r.includes('/api/')).join(' | ').slice(0, 400) || `${s.requests.length} static requests`}`)
    }
    return { engine, rows, loadSeconds: p.loadSeconds, size: p.size, steps, loadAvg: la }
  } finally {
    await server.stop()
    p.destroy()
  }
}

export async function runUiInteractive(o: { printMachine?: boolean } = {}): Promise<EngineResult[]> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average at start: ${loadAvg()}`)
  if (!CHROMIUM) {
    console.log('ui-interactive: skipped, chromium is not installed (Debian package `chromium`)')
    return []
  }
  if (uiIsStale()) execSync('npm run --silent build:ui', { cwd: repoRoot, stdio: 'inherit' })
  const engines = (process.env.BENCH_UI_ENGINES ?? 'postgres,embedded').split(',').filter(Boolean) as Engine[]
  const rows = envInt('BENCH_UI_ROWS', 10_000_000)
  const runs = envInt('BENCH_UI_RUNS', 5)
  const browser = await launch()
  try {
    const out: EngineResult[] = []
    for (const e of engines) out.push(await measureEngine(browser, e, e === 'embedded' ? envInt('BENCH_UI_EMBEDDED_ROWS', rows) : rows, runs))
    return out
  } finally {
    await browser.close()
  }
}

runAsMain(import.meta.url, () => runUiInteractive())
