/**
 * Configuration: environment variables, optionally a JSON config file
 * (PORTCULLIS_CONFIG) underneath them. Every key is documented in README.md.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { BootError } from './boot-error.js'
import { EDITIONS, type EditionId } from './version.js'

export interface Config {
  port: number
  host: string
  databaseUrl: string | null
  /** A hot standby for reads that may be a little stale (log searches, exports): kernel/db/read-replica.ts. */
  databaseReadUrl: string | null
  /** Beyond this replay lag (ms) the standby is not read: those reads go to the primary. */
  databaseReadMaxLagMs: number
  dataDir: string
  masterKey: string | null
  masterKeyFile: string | null
  docsEnabled: boolean
  serviceVersion: string | null
  /** The edition (EDITION or the config file's `edition`): its plugin list is the default of `plugins`, and it is shown in /ready and system info. */
  edition: EditionId
  /** Plugin specifiers: a built-in id (`inventory`), a path, or a package name. PLUGINS (or the file's `plugins`) overrides the edition's list. */
  plugins: string[]
  logLevel: string
  adminPassword: string | null
  nodeId: string | null
  role: 'primary' | 'replica'
  /** Largest request body accepted, in bytes. */
  bodyLimit: number
  /** Time allowed for in-flight requests on shutdown. */
  shutdownTimeoutMs: number
  /** PostgreSQL statement_timeout of every pooled connection, in ms; 0: none. Long jobs lift it for their own transactions. */
  dbStatementTimeoutMs: number
  /** Validate handler output against response schemas (on in tests). */
  validateResponses: boolean
  /** Trust X-Forwarded-For for the client IP (behind the bundled front end). */
  trustProxy: boolean
  /** Initial values for plugin settings, validated at boot. */
  settings: Record<string, unknown>
  /** Server options (programs, paths, command lines) from the config file's `options`; each option's own variable in `env` wins. */
  options: Record<string, unknown>
  /** The environment the configuration was read from: server options name their own variables. */
  env: Env
}

type Env = Record<string, string | undefined>

const bool = (v: string | undefined, name: string): boolean | undefined => {
  if (v === undefined || v === '') return undefined
  if (/^(1|true|yes|on)$/i.test(v)) return true
  if (/^(0|false|no|off)$/i.test(v)) return false
  throw new BootError('CONFIG_INVALID', `${name} must be true or false, got "${v}"`)
}

const int = (v: string | undefined, name: string, min: number, max: number): number | undefined => {
  if (v === undefined || v === '') return undefined
  const n = Number(v)
  if (!Number.isInteger(n) || n < min || n > max) throw new BootError('CONFIG_INVALID', `${name} must be an integer from ${min} to ${max}, got "${v}"`)
  return n
}

function readConfigFile(file: string | undefined): Partial<Record<string, unknown>> {
  if (!file) return {}
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch (e) {
    throw new BootError('CONFIG_INVALID', `cannot read config file ${file}: ${(e as Error).message}`)
  }
}

/**
 * `defaults.editions`: each edition's plugin list (package.json `portcullis.editions`, see
 * packageEditions()); without them, `defaults.plugins` (or none) is the list of every edition.
 */
export function loadConfig(env: Env = process.env, defaults: { plugins?: string[]; editions?: Partial<Record<EditionId, string[]>> } = {}): Config {
  const file = readConfigFile(env.PORTCULLIS_CONFIG)
  const f = (k: string) => (file[k] === undefined ? undefined : String(file[k]))
  // An empty variable counts as unset: `HOST=` must not mean "every interface".
  const pick = (envName: string, fileKey: string) => (env[envName] === '' ? undefined : env[envName]) ?? f(fileKey)

  const role = pick('ROLE', 'role') ?? 'primary'
  if (role !== 'primary' && role !== 'replica') throw new BootError('CONFIG_INVALID', `ROLE must be primary or replica, got "${role}"`)
  const edition = pick('EDITION', 'edition') ?? 'community'
  if (!Object.hasOwn(EDITIONS, edition)) throw new BootError('EDITION_UNKNOWN', `EDITION must be community or pro, got "${edition}"`)
  const pluginsRaw = env.PLUGINS ?? (Array.isArray(file.plugins) ? (file.plugins as string[]).join(',') : f('plugins'))
  const settings = (file.settings ?? {}) as Record<string, unknown>
  if (typeof settings !== 'object' || Array.isArray(settings)) throw new BootError('CONFIG_INVALID', 'config file "settings" must be an object')
  const options = (file.options ?? {}) as Record<string, unknown>
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new BootError('CONFIG_INVALID', 'config file "options" must be an object')

  const databaseUrl = pick('DATABASE_URL', 'database_url') || null
  const databaseReadUrl = pick('DATABASE_READ_URL', 'database_read_url') || null
  if (databaseReadUrl && !databaseUrl) throw new BootError('CONFIG_INVALID', 'DATABASE_READ_URL needs DATABASE_URL: the embedded engine has no standby to read from')
  const logLevel = pick('LOG_LEVEL', 'log_level') ?? 'info'
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) throw new BootError('CONFIG_INVALID', `LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`)
  return {
    port: int(pick('PORT', 'port'), 'PORT', 0, 65535) ?? 8080,
    host: pick('HOST', 'host') ?? '127.0.0.1',
    databaseUrl,
    databaseReadUrl,
    databaseReadMaxLagMs: int(pick('DATABASE_READ_MAX_LAG_MS', 'database_read_max_lag_ms'), 'DATABASE_READ_MAX_LAG_MS', 0, 86_400_000) ?? 30_000,
    dataDir: path.resolve(pick('DATA_DIR', 'data_dir') ?? './var'),
    masterKey: pick('MASTER_KEY', 'master_key') || null,
    masterKeyFile: pick('MASTER_KEY_FILE', 'master_key_file') || null,
    docsEnabled: bool(pick('DOCS_ENABLED', 'docs_enabled'), 'DOCS_ENABLED') ?? false,
    serviceVersion: pick('SERVICE_VERSION', 'service_version') || null,
    edition: edition as EditionId,
    plugins: pluginsRaw === undefined ? (defaults.editions?.[edition as EditionId] ?? defaults.plugins ?? []) : pluginsRaw.split(',').map((s) => s.trim()).filter(Boolean),
    logLevel,
    adminPassword: pick('ADMIN_PASSWORD', 'admin_password') || null,
    nodeId: pick('NODE_ID', 'node_id') || null,
    role,
    bodyLimit: int(pick('BODY_LIMIT', 'body_limit'), 'BODY_LIMIT', 1024, 64 * 1024 * 1024) ?? 1024 * 1024,
    shutdownTimeoutMs: int(pick('SHUTDOWN_TIMEOUT_MS', 'shutdown_timeout_ms'), 'SHUTDOWN_TIMEOUT_MS', 0, 600_000) ?? 10_000,
    dbStatementTimeoutMs: int(pick('DB_STATEMENT_TIMEOUT_MS', 'db_statement_timeout_ms'), 'DB_STATEMENT_TIMEOUT_MS', 0, 86_400_000) ?? 5000,
    validateResponses: bool(pick('VALIDATE_RESPONSES', 'validate_responses'), 'VALIDATE_RESPONSES') ?? false,
    trustProxy: bool(pick('TRUST_PROXY', 'trust_proxy'), 'TRUST_PROXY') ?? false,
    settings,
    options,
    env,
  }
}
