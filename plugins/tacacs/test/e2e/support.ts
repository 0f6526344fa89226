/**
 * What the end-to-end tests share: the app with the AAA plugins, records made
 * through the public API, the tac_plus-ng configuration rendered from one
 * repeatable-read snapshot into a folder, checked with `-P` and run on a
 * loopback port, and a seeded random source.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../../test/kit/app.js'
import { checkTacPlusNg, freePort, startTacPlusNg, writeRendered, type RunningTacPlusNg } from '../../../../test/kit/tac-plus-ng.js'
import type { RenderedFile } from '../../../../sdk/index.js'

export const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy']
export const RULES = '/api/v1/aaa/policy/rules'

/** `logs`: with aaa-logs ingesting what the daemon writes (the change-impact differential replays it). */
export const startAaaApp = (o: { logs?: boolean } = {}) =>
  startTestApp(o.logs ? { plugins: [...PLUGINS, 'aaa-logs'], settings: { 'aaa-logs.poll_ms': 50 } } : { plugins: PLUGINS })

/** A password the platform's policy accepts (12+ characters, not common). */
export const strongPassword = () => `Tq-${randomBytes(9).toString('base64url')}-7z`

export async function created(t: TestApp, p: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.admin('POST', p, { body })
  expect(r.status, `POST ${p} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).to.equal(201)
  return r.body
}

export async function updated(t: TestApp, p: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.admin('PUT', p, { body })
  expect(r.status, `PUT ${p} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).to.equal(200)
  return r.body
}

export async function setSetting(t: TestApp, key: string, value: unknown): Promise<void> {
  const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
  expect(r.status, `setting ${key}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 204])
}

export async function listRules(t: TestApp): Promise<any[]> {
  const r = await t.admin('GET', RULES)
  expect(r.status).to.equal(200)
  return r.body
}

export const defaultRule = async (t: TestApp) => (await listRules(t)).find((r) => r.is_default)

/** The tac_plus-ng files, rendered from one repeatable-read snapshot, as the deploy will. */
export async function renderTacPlusNg(t: TestApp): Promise<RenderedFile[]> {
  const entry = t.app.registry.renderers.find((r) => r.renderer.id === 'tacacs.tac_plus-ng')
  expect(entry, 'the tacacs plugin registers renderer tacacs.tac_plus-ng').to.not.equal(undefined)
  return t.app.db.transaction((trx) => entry!.renderer.render(trx), { isolation: 'repeatable read' })
}

export interface DaemonRun {
  dir: string
  logDir: string
  configFile: string
  config: string
  daemon: RunningTacPlusNg
  stop(): Promise<void>
}

/**
 * Point the settings at a free loopback port, empty the log folder (the server
 * option's default, `logs/tacacs` in the app's data folder), render, write,
 * check with `-P` (stderr counts as failure), and start the daemon.
 */
export async function renderAndRun(t: TestApp): Promise<DaemonRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-tacplus-'))
  const logDir = path.join(t.dataDir, 'logs', 'tacacs')
  rmSync(logDir, { recursive: true, force: true })
  const port = await freePort()
  await setSetting(t, 'tacacs.listen_address', '127.0.0.1')
  await setSetting(t, 'tacacs.listen_port', port)
  const files = await renderTacPlusNg(t)
  const [configFile] = writeRendered(dir, files)
  const check = await checkTacPlusNg(configFile)
  expect(check.ok, `tac_plus-ng -P: exit ${check.code}\n${check.stderr}${check.stdout}`).to.equal(true)
  let daemon: RunningTacPlusNg
  try {
    daemon = await startTacPlusNg({ configFile, port, mkdirs: [logDir] })
  } catch (e) {
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
  const run: DaemonRun = {
    dir,
    logDir,
    configFile,
    config: files[0].content,
    daemon,
    async stop() {
      // The daemon running now: a test may have restarted it on another configuration.
      await run.daemon.stop()
      if (!process.env.KEEP_TAC_PLUS_NG_DIR) rmSync(dir, { recursive: true, force: true })
    },
  }
  return run
}

/** mulberry32: a small seeded generator, so a failing run can be replayed with its seed. */
export function seededRandom(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  return {
    next,
    int,
    bool: (p = 0.5) => next() < p,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)],
    /** `k` distinct items, in random order. */
    sample: <T>(xs: readonly T[], k: number): T[] => {
      const a = [...xs]
      for (let i = a.length - 1; i > 0; i--) {
        const j = int(i + 1)
        ;[a[i], a[j]] = [a[j], a[i]]
      }
      return a.slice(0, Math.min(k, a.length))
    },
  }
}
export type Random = ReturnType<typeof seededRandom>

const hhmm = (m: number) => {
  const x = ((m % 1440) + 1440) % 1440
  return `${String(Math.floor(x / 60)).padStart(2, '0')}:${String(x % 60).padStart(2, '0')}`
}
const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']

/**
 * Now and then a rule's conditions for the differentials (aaa-policy services/conditions.ts):
 * one or two client prefixes from `prefixes`, and a time window holding now or not, two hours or
 * more from its edges (every day), so a run of a few minutes cannot straddle one.
 */
export function randomRuleConditions(r: Random, prefixes: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (r.bool(0.25)) out.client_prefixes = r.sample(prefixes, 1 + r.int(2))
  if (r.bool(0.2)) {
    const now = new Date()
    const m = now.getHours() * 60 + now.getMinutes()
    out.time_window = r.bool(0.5) ? { days: ALL_DAYS, start: hhmm(m - 120), end: hhmm(m + 120) } : { days: ALL_DAYS, start: hhmm(m + 180), end: hhmm(m + 300) }
  }
  return out
}

/** Run `fn` over `items`, at most `n` at a time, results in order. */
export async function mapLimit<T, R>(items: readonly T[], n: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i], i)
      }
    }),
  )
  return out
}
