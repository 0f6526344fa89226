/**
 * What the two command-line entry points (ingest.ts, replay.ts) share: a
 * database from DATABASE_URL (PostgreSQL; the embedded engine has one
 * connection, owned by the running server), the node id the server uses
 * (NODE_ID, else <DATA_DIR>/node_id), and the settings read from the
 * settings table. Entry points, not plugin code: they may use pg/knex directly.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import knexFactory, { type Knex } from 'knex'
import type { DatabaseService, IdentityService, Logger, ServerOptionRef, ServerOptionsService, SettingRef, SettingsService } from '../../../sdk/index.js'
import type { LoadExclusions } from '../api.js'
import { exclusionLoader } from '../services/exclusions.js'

export function openDatabase(url = process.env.DATABASE_URL): DatabaseService {
  if (!url) throw new Error('DATABASE_URL is required (the CLI talks to PostgreSQL; stop the server to use the embedded engine)')
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } })
  return {
    knex,
    engine: 'postgres',
    transaction: (fn, o) => knex.transaction(fn, o?.isolation ? { isolationLevel: o.isolation } : undefined) as ReturnType<typeof fn>,
  }
}

export const dataDir = () => path.resolve(process.env.DATA_DIR ?? './var')

export function nodeId(dir = dataDir()): string {
  if (process.env.NODE_ID) return process.env.NODE_ID.toLowerCase()
  const file = path.join(dir, 'node_id')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dir, { recursive: true })
  const id = randomUUID()
  writeFileSync(file, id + '\n')
  return id
}

/** Settings from the settings table, with overrides (key → value) taking precedence. */
export function tableSettings(knex: Knex, overrides: Record<string, unknown> = {}): SettingsService {
  return {
    async get<T>(ref: SettingRef<T>): Promise<T> {
      if (ref.key in overrides) return overrides[ref.key] as T
      const row = (await knex('settings').where({ key: ref.key }).first('value')) as { value: T } | undefined
      return row ? row.value : ref.default
    },
    async set() {
      throw new Error('settings are read-only from the CLI')
    },
  }
}

/** Server options outside the server: the given values, else each option's environment variable, else its default. */
export function envOptions(values: Record<string, unknown> = {}, env = process.env): ServerOptionsService {
  return {
    get<T>(ref: ServerOptionRef<T>): T {
      if (ref.key in values) return values[ref.key] as T
      const raw = ref.env ? env[ref.env] : undefined
      return raw ? (raw as T) : ref.default
    },
  }
}

/**
 * The plugin's exclusion loader without the identity service (not available
 * outside the server): `user_group` rules cannot be resolved, and a load that
 * needs them fails (the ingester then keeps the rules it had, none at first).
 */
export function cliExclusions(): LoadExclusions {
  const noIdentity = new Proxy({}, { get: () => () => Promise.reject(new Error('identity is not available in the CLI')) }) as IdentityService
  return exclusionLoader(noIdentity)
}

export const stderrLogger = (level = process.env.LOG_LEVEL ?? 'info'): Logger => {
  const order = ['debug', 'info', 'warn', 'error']
  const mk = (bindings: Record<string, unknown>): Logger => {
    const at = (l: string) => (obj: object | string, msg?: string) => {
      if (order.indexOf(l) < order.indexOf(level)) return
      process.stderr.write(JSON.stringify({ level: l, time: new Date().toISOString(), ...bindings, ...(typeof obj === 'string' ? { msg: obj } : { ...obj, msg }) }) + '\n')
    }
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (b) => mk({ ...bindings, ...b }) }
  }
  return mk({})
}
