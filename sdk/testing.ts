/**
 * The test kit for plugin authors: `import { startTestApp } from '@portcullis/sdk/testing'`.
 *
 * It starts the real Portcullis server (every route, the permission gate,
 * migrations, response validation) with your plugin loaded, on a throwaway
 * database, and mints tokens for real users holding the permissions you name.
 * Your plugin is tested by the server it will run in, not by a stand-in.
 *
 * The server is a Portcullis checkout built with `npm run build`: set
 * PORTCULLIS_SERVER to its folder (or pass `server`). When this file runs
 * inside a server's own tree (in-tree plugins, the example plugin), that
 * server is used. This module imports nothing at load time, so the SDK
 * package carries no test-only dependency: the kit's code is the server's
 * (test/kit), loaded from the server folder when a test starts an app.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Knex } from 'knex'
import type { RenderedFile } from './renderer.js'

export type TestEngine = 'postgres' | 'embedded'

/**
 * The engines a suite runs on: the one TEST_ENGINE names, else both. A plugin behaves the
 * same on each, so its tests loop: `for (const engine of testEngines()) describe(engine, …)`;
 * a CI job per engine sets TEST_ENGINE (the server's own `npm test` does).
 */
export function testEngines(): TestEngine[] {
  const e = process.env.TEST_ENGINE
  if (!e) return ['postgres', 'embedded']
  if (e !== 'postgres' && e !== 'embedded') throw new Error(`TEST_ENGINE must be postgres or embedded, not "${e}"`)
  return [e]
}

export interface PluginTestOptions {
  /**
   * Plugin specifiers, as PLUGINS takes them: your plugin's entry (`./dist/index.js`, or
   * `./index.ts` when the tests run under tsx; relative to the working directory) and the
   * plugins it depends on (`inventory`).
   */
  plugins: string[]
  /**
   * `embedded`: PGlite in a temporary folder, nothing to install. `postgres`: a fresh
   * database in a throwaway cluster started from this machine's PostgreSQL binaries
   * (initdb, pg_ctl), or in the server named by TEST_DATABASE_URL.
   * Default: TEST_ENGINE, else `embedded`.
   */
  engine?: TestEngine
  /** Environment the server reads (configuration variables of the README). */
  env?: Record<string, string>
  /** Platform and plugin settings, as the configuration file's `settings` would give them. */
  settings?: Record<string, unknown>
  /** The Portcullis server folder (a built checkout). Default: PORTCULLIS_SERVER, else the server this SDK belongs to. */
  server?: string
}

export interface TestResponse<T> {
  status: number
  headers: Headers
  /** Parsed JSON when the answer is JSON, else the text. */
  body: T
  text: string
}

export interface TestRequestOptions {
  /** Sent as JSON. */
  body?: unknown
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string
  headers?: Record<string, string>
}

export interface PluginTestApp {
  /** Where the server listens (`http://127.0.0.1:<port>`). */
  url: string
  engine: TestEngine
  /** The app's database, to look at what a route wrote (your tables, your migration table). */
  knex: Knex
  /** A token for a new user holding a role with these permissions (or an administrator). */
  token(o?: { permissions?: string[]; admin?: boolean }): Promise<string>
  req<T = unknown>(method: string, path: string, o?: TestRequestOptions): Promise<TestResponse<T>>
  /** As an administrator. */
  admin<T = unknown>(method: string, path: string, o?: Omit<TestRequestOptions, 'token'>): Promise<TestResponse<T>>
  /** Run one of the loaded renderers (`<plugin-id>.<daemon>`) on one consistent snapshot, as a deploy does. */
  render(rendererId: string): Promise<RenderedFile[]>
  /** Stop the server and delete its database and data folder. */
  stop(): Promise<void>
}

interface ServerKit {
  startPluginTestApp(o: PluginTestOptions): Promise<PluginTestApp>
}

const isServerRoot = (dir: string): boolean => {
  try {
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'portcullis'
  } catch {
    return false
  }
}

function serverRoot(named: string | undefined): string {
  if (named) {
    const dir = path.resolve(named)
    if (!isServerRoot(dir)) throw new Error(`${dir} is not a Portcullis server folder (no package.json named "portcullis")`)
    return dir
  }
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (isServerRoot(dir)) return dir
    if (path.dirname(dir) === dir) break
  }
  throw new Error('@portcullis/sdk/testing runs your plugin in a Portcullis server: set PORTCULLIS_SERVER to a server folder built with `npm run build` (or pass { server })')
}

/** The server's kit: its source when this file runs from source (tsx), else the built one, which is what ships. */
async function serverKit(root: string): Promise<ServerKit> {
  const built = path.join(root, 'dist', 'test', 'kit', 'plugin.js')
  const source = path.join(root, 'test', 'kit', 'plugin.ts')
  const order = import.meta.url.endsWith('.ts') ? [source, built] : [built, source]
  const file = order.find((f) => existsSync(f))
  if (!file) throw new Error(`no test kit in ${root}: run \`npm run build\` there`)
  return (await import(pathToFileURL(file).href)) as ServerKit
}

/** Start the server with your plugin on a throwaway database; `stop()` it in `after`. */
export async function startTestApp(o: PluginTestOptions): Promise<PluginTestApp> {
  const kit = await serverKit(serverRoot(o.server ?? process.env.PORTCULLIS_SERVER))
  return kit.startPluginTestApp(o)
}
