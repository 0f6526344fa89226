/**
 * Start the real application for a test: chosen plugins, a fresh database in
 * the shared throwaway PostgreSQL cluster (or the embedded engine), a random
 * port, responses validated against their schemas. Tokens for a test account
 * are minted with the app's own token service: the same gate as production.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { startApp, type App } from '../../kernel/app.js'
import { loadConfig } from '../../kernel/config.js'
import type { TokenPurpose } from '../../kernel/security/tokens.js'
import type { Logger } from '../../sdk/index.js'
import { request, type RequestOptions, type TestResponse } from './http.js'
import { sharedPostgres } from './shared.js'

export interface TestAppOptions {
  plugins?: string[]
  engine?: 'postgres' | 'embedded'
  /** Use this database instead of a fresh one (two nodes of one cluster). */
  databaseUrl?: string
  dataDir?: string
  masterKey?: string
  env?: Record<string, string>
  settings?: Record<string, unknown>
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

export const silentLogger = (): Logger => pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) as unknown as Logger

export async function startTestApp(o: TestAppOptions = {}): Promise<TestApp> {
  const engine = o.engine ?? 'postgres'
  const databaseUrl = engine === 'embedded' ? null : (o.databaseUrl ?? (await (await sharedPostgres()).createDatabase()))
  const ownDir = !o.dataDir
  const dataDir = o.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'portcullis-app-'))
  const masterKey = o.masterKey ?? randomBytes(32).toString('hex')
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    MASTER_KEY: masterKey,
    VALIDATE_RESPONSES: 'true',
    PLUGINS: (o.plugins ?? []).join(','),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(o.env ?? {}),
  })
  if (o.settings) config.settings = o.settings
  const app = await startApp(config, { log: silentLogger() })
  const token: TestApp['token'] = async (t = {}) => {
    if (!app.tokens) throw new Error('this app has no master key, so it cannot sign tokens')
    return (await app.tokens.issue({ sub: t.sub ?? randomUUID(), name: 'tester', purpose: t.purpose ?? 'session', ttlSeconds: t.ttlSeconds ?? 600, adm: t.admin ?? false, perms: t.permissions ?? [] })).token
  }
  const adminToken = app.tokens ? await token({ admin: true, sub: '00000000-0000-4000-8000-000000000001' }) : ''
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
