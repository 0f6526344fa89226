/**
 * Start the real application for a test: chosen plugins, a fresh database in
 * the shared throwaway PostgreSQL cluster (or the embedded engine), a random
 * port, responses validated against their schemas. Tokens for a test account
 * are minted with the app's own token service: the same gate as production.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { pino } from 'pino'
import { startApp, type App } from '../../kernel/app.js'
import { BootError } from '../../kernel/boot-error.js'
import { loadConfig } from '../../kernel/config.js'
import { packageEditions } from '../../kernel/version.js'
import type { TokenPurpose } from '../../kernel/security/tokens.js'
import { jsonText, type Logger } from '../../sdk/index.js'
import { request, type RequestOptions, type TestResponse } from './http.js'
import { sharedPostgres } from './shared.js'
import { migratedPostgresDatabase, migratedTemplatesOn, seedMigratedEmbedded } from './migrated-template.js'
import { isReadOnly } from '../../kernel/db/outage.js'
import { scratchRoot } from './scratch.js'

export type TestEngine = 'postgres' | 'embedded'

/**
 * The engines a test that loops over both runs on: the one TEST_ENGINE names,
 * else both (`npx mocha <file>` alone). `npm test` runs one mocha process per
 * engine, so each half of such a loop runs once, in its engine's process.
 */
export { testEngines } from '../../sdk/testing.js'
import { testEngines } from '../../sdk/testing.js'

/**
 * Whether this run covers the engine: a test that needs one engine itself
 * (PostgreSQL for two nodes on one database, an outage, COPY) is written
 * `(runsOn('postgres') ? describe : describe.skip)(…)`, so the embedded run of
 * `npm test` lists it as pending instead of repeating the PostgreSQL run's.
 */
export const runsOn = (engine: TestEngine): boolean => testEngines().includes(engine)

/**
 * The engine of a test that names none: TEST_ENGINE (`postgres` by default).
 * `npm test` runs the whole suite once with each; a test that pins an engine
 * (or passes `databaseUrl`) keeps it.
 */
export function defaultEngine(): TestEngine {
  const e = process.env.TEST_ENGINE || 'postgres'
  if (e !== 'postgres' && e !== 'embedded') throw new Error(`TEST_ENGINE must be postgres or embedded, not "${e}"`)
  return e
}

export interface TestAppOptions {
  /** Plugin specifiers; without them (and without `edition`) no plugin loads. */
  plugins?: string[]
  /** The edition (sets EDITION): without `plugins`, its whole list from package.json loads (a Pro path such as ./pro/reports from source). */
  edition?: 'community' | 'pro' | (string & {})
  /** Default: TEST_ENGINE, else postgres. A test that needs PostgreSQL itself (two nodes on one database, COPY, an outage) pins 'postgres'. */
  engine?: TestEngine
  /** Use this database instead of a fresh one (two nodes of one cluster); implies PostgreSQL. */
  databaseUrl?: string
  dataDir?: string
  masterKey?: string
  env?: Record<string, string>
  settings?: Record<string, unknown>
  /** The app's logger (default: silent, or TEST_LOG_LEVEL); a test that asserts on log lines passes its own. */
  log?: Logger
  /** Server options (programs, paths), as the config file's `options` would give them. */
  options?: Record<string, unknown>
}

export interface TestApp {
  app: App
  url: string
  databaseUrl: string | null
  dataDir: string
  masterKey: string
  adminToken: string
  token(o?: { permissions?: string[]; admin?: boolean; purpose?: TokenPurpose; ttlSeconds?: number; sub?: string }): Promise<string>
  req<T = any>(method: string, path: string, o?: RequestOptions): Promise<TestResponse<T>>
  /** As the administrator. */
  admin<T = any>(method: string, path: string, o?: Omit<RequestOptions, 'token'>): Promise<TestResponse<T>>
  stop(): Promise<void>
}

/** The bootstrap administrator's password in test apps (user `admin`, must change it at first sign-in). */
export const TEST_ADMIN_PASSWORD = 'Correct-Horse-Battery-9'

export const silentLogger = (): Logger => pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) as unknown as Logger

/** The BootError a start refuses with; any other failure is rethrown, and a start that succeeds fails the test. */
export async function bootRefusal(o: TestAppOptions = {}): Promise<BootError> {
  let t: TestApp
  try {
    t = await startTestApp(o)
  } catch (e) {
    if (e instanceof BootError) return e
    throw e
  }
  await t.stop()
  throw new Error('the app booted but should have refused')
}

export async function startTestApp(o: TestAppOptions = {}): Promise<TestApp> {
  const engine = o.databaseUrl ? 'postgres' : (o.engine ?? defaultEngine())
  const ownDir = !o.dataDir
  const dataDir = o.dataDir ?? mkdtempSync(path.join(scratchRoot(), 'portcullis-app-'))
  const masterKey = o.masterKey ?? randomBytes(32).toString('hex')
  const configWith = (databaseUrl: string | null) => loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    MASTER_KEY: masterKey,
    VALIDATE_RESPONSES: 'true',
    // With an edition and no list, the edition's own list loads (PLUGINS unset).
    ...(o.edition !== undefined && !o.plugins ? {} : { PLUGINS: (o.plugins ?? []).join(',') }),
    ...(o.edition !== undefined ? { EDITION: o.edition } : {}),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    // The machine's tac_plus-ng (server option tacacs.binary), as an operator's environment would give it.
    ...(process.env.TAC_PLUS_NG ? { TAC_PLUS_NG: process.env.TAC_PLUS_NG } : {}),
    ...(o.env ?? {}),
  }, { editions: packageEditions() })
  // A fresh database starts migrated: a copy of one migrated per set of plugins (migrated-template.ts). The
  // plugin list is the configuration's; a configuration that does not load is left for the start to refuse.
  const plugins = (): string[] | null => {
    try {
      return configWith('postgres://kit@127.0.0.1/plugins').plugins
    } catch {
      return null
    }
  }
  let databaseUrl: string | null = null
  if (engine === 'postgres') {
    const list = o.databaseUrl || !migratedTemplatesOn() ? null : plugins()
    databaseUrl = o.databaseUrl ?? (list ? await migratedPostgresDatabase(await sharedPostgres(), list) : await (await sharedPostgres()).createDatabase())
  } else if (migratedTemplatesOn()) {
    const list = plugins()
    if (list) await seedMigratedEmbedded(dataDir, list)
  }
  const config = configWith(databaseUrl)
  if (o.settings) config.settings = o.settings
  if (o.options) config.options = o.options
  let app: App
  try {
    app = await startApp(config, { log: o.log ?? silentLogger() })
  } catch (e) {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true })
    throw e
  }
  /**
   * A token for a real test account: a user (admin, or holding a role with the
   * given permissions) created in the database, so the gate resolves it exactly
   * as it resolves a signed-in user.
   */
  const token: TestApp['token'] = async (t = {}) => {
    if (!app.tokens) throw new Error('this app has no master key, so it cannot sign tokens')
    const knex = app.db.knex
    const n = `kit-${randomUUID().slice(0, 8)}`
    const sub = t.sub ?? randomUUID()
    const existing = await knex('users').where({ id: sub }).first('id')
    if (!existing) {
      await knex('users').insert({ id: sub, username: n, display_name: 'tester', is_admin: t.admin ?? false, source: 'local' })
      if (t.permissions?.length) {
        const [role] = await knex('roles').insert({ name: n, permissions: jsonText(t.permissions) }).returning('id')
        await knex('user_roles').insert({ user_id: sub, role_id: role.id })
      }
    }
    return (await app.tokens.issue({ sub, name: 'tester', purpose: t.purpose ?? 'session', ttlSeconds: t.ttlSeconds ?? 600 })).token
  }
  // A node on a hot standby cannot create the account: its tests sign with `token({ sub })` of a user the primary made.
  const adminToken = app.tokens ? await token({ admin: true }).catch((e: unknown) => (isReadOnly(e) ? '' : Promise.reject(e))) : ''
  return {
    app,
    url: app.url,
    databaseUrl,
    dataDir,
    masterKey,
    adminToken,
    token,
    req: (method, p, ro) => request(app.url, method, p, ro),
    admin: (method, p, ro) => request(app.url, method, p, { ...ro, token: adminToken }),
    async stop() {
      await app.stop()
      if (ownDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
