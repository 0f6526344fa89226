/**
 * The kernel's services, as a plugin sees them. Plugins name these refs in
 * their `deps`; the kernel provides the implementations.
 */
import type { Knex } from 'knex'
import type { Static, TSchema } from './schema.js'
import { createServiceRef } from './service-ref.js'
import type { DeploysService } from './renderer.js'
import type { ReportSourcesService } from './report-sources.js'
import type { Actor } from './actor.js'
import type { DatabaseReader } from './database-reader.js'

export type { Actor } from './actor.js'
export type { DatabaseReader } from './database-reader.js'

export interface Logger {
  debug(obj: object | string, msg?: string): void
  info(obj: object | string, msg?: string): void
  warn(obj: object | string, msg?: string): void
  error(obj: object | string, msg?: string): void
  child(bindings: Record<string, unknown>): Logger
}

/** Database access. Under the embedded engine there is one connection: inside a
 * transaction, use the transaction object for every query, never `knex`. */
export interface DatabaseService {
  knex: Knex
  /** 'postgres' (a real server) or 'embedded' (PGlite). */
  engine: 'postgres' | 'embedded'
  /** Run `fn` in one transaction; `isolation: 'repeatable read'` gives a consistent snapshot for renderers. */
  transaction<T>(fn: (trx: Knex.Transaction) => Promise<T>, opts?: { isolation?: 'read committed' | 'repeatable read' | 'serializable' }): Promise<T>
  /**
   * Where to read what may be a little stale (log searches, exports, reports): the hot standby of
   * DATABASE_READ_URL while it is reachable and within DATABASE_READ_MAX_LAG_MS of the primary, else
   * the primary. Never write through it. Prefer `read`, which also survives the standby failing midway.
   */
  reader(): Promise<DatabaseReader>
  /**
   * `fn` on the reader; when the standby fails under it (connection lost, a query cancelled by
   * replay), `fn` runs again on the primary (`lagMs` null), so an answer never fails because of the
   * standby. `fn` must only read.
   */
  read<T>(fn: (r: DatabaseReader) => Promise<T>): Promise<T>
}


/** Encrypts secrets at rest (AES-256-GCM) with a key derived from the master key per purpose. */
export interface SecretsService {
  encrypt(purpose: string, plaintext: string): string
  decrypt(purpose: string, sealed: string): string
  /** Many at once, in order: a large batch is opened on two cores (a render of 100,000 users' verifiers). */
  decryptMany(purpose: string, sealed: readonly string[]): Promise<string[]>
  readonly loaded: boolean
}

export interface SettingRef<T> {
  /** Stored sealed with the master key and never returned by the API. */
  readonly secret?: boolean
  /**
   * Security-relevant: the value decides where credentials or links go, or how
   * long a credential lives (mail server, public URL, session lifetime, a shared
   * key). Only an administrator may change it, whatever `settings.write` holds;
   * the change is audited as `security_setting.update` and shown in system info.
   */
  readonly security?: boolean
  readonly key: string
  readonly schema: TSchema
  readonly default: T
  readonly description: string
  /**
   * What the schema cannot say: a value that names a row (a CA, a group) must name one that exists.
   * Run by `set` inside its transaction, after the schema; throw a 422 coded error at the field
   * (`value`, `value[1]`) to refuse, and nothing is changed.
   */
  check?(value: T, db: Knex.Transaction): Promise<void>
}

const KEY = /^[a-z][a-z0-9_-]*\.[a-z0-9_.]+$/

export function defineSetting<S extends TSchema>(
  key: string,
  schema: S,
  def: Static<S>,
  description = '',
  opts: { secret?: boolean; security?: boolean; check?: (value: Static<S>, db: Knex.Transaction) => Promise<void> } = {},
): SettingRef<Static<S>> {
  if (!KEY.test(key)) throw new Error(`setting key "${key}" must be "<plugin-id>.<name>"`)
  return Object.freeze({ key, schema, default: def, description, secret: opts.secret === true, security: opts.security === true || opts.secret === true, check: opts.check })
}

/**
 * A server option: a value that names a program, a path or a command line
 * (the daemon binaries, reload commands, log folders). It comes only from the
 * server's own configuration (its environment variable, or `options` in the
 * config file), is read once at boot, and is never stored in the database nor
 * reachable through the API: whoever could change it there could make the
 * server run any program, or a root daemon write any file.
 */
export interface ServerOptionRef<T> {
  readonly key: string
  readonly schema: TSchema
  readonly default: T
  readonly description: string
  /** Environment variable that sets it (wins over the config file). A string option takes the text as is; any other type, JSON. */
  readonly env?: string
  /** No longer read: a value given (variable or config file) refuses the boot, naming this option to set instead. */
  readonly replacedBy?: string
}

export function defineServerOption<S extends TSchema>(key: string, schema: S, def: Static<S>, description: string, opts: { env?: string; replacedBy?: string } = {}): ServerOptionRef<Static<S>> {
  if (!KEY.test(key)) throw new Error(`server option key "${key}" must be "<plugin-id>.<name>"`)
  if (opts.env !== undefined && !/^[A-Z][A-Z0-9_]*$/.test(opts.env)) throw new Error(`server option ${key}: environment variable "${opts.env}" must be UPPER_SNAKE_CASE`)
  return Object.freeze({ key, schema, default: def, description, env: opts.env, replacedBy: opts.replacedBy })
}

/** The values of the server options, fixed at boot. */
export interface ServerOptionsService {
  get<T>(ref: ServerOptionRef<T>): T
}

export interface SettingsService {
  /** Pass the transaction you are in (a renderer's snapshot): the embedded engine has one connection. */
  get<T>(ref: SettingRef<T>, db?: Knex | Knex.Transaction): Promise<T>
  /** Validates against the setting's schema; throws a 422 PortcullisError on a bad value. */
  set<T>(ref: SettingRef<T>, value: T, ctx?: { actor?: Actor | null; trx?: Knex.Transaction; requestId?: string }): Promise<void>
}

export interface AuditEntry {
  action: string
  resourceType: string
  resourceId?: string | null
  /**
   * The object's name as the trail keeps it, when its snapshots name nothing (a setting: its key; a
   * deploy: its daemon and release). Without it the trail takes the snapshots' `name`, `username`, `mac`…
   */
  resourceName?: string | null
  before?: unknown
  after?: unknown
  /** `failure` for an attempt that was refused (a deploy whose check failed); `success` when absent. */
  outcome?: 'success' | 'failure'
  /** For a failure: a short code (at most 32 characters), e.g. `check_failed`. */
  reason?: string | null
}

export interface AuditService {
  record(entry: AuditEntry, ctx: { actor: Actor | null; requestId?: string; trx?: Knex.Transaction }): Promise<void>
}

export interface ClusterInfo {
  nodeId: string
  role: 'primary' | 'replica'
}

/** An edition: a named list of plugins (docs/editions.md). */
export interface EditionInfo {
  /** `community` or `pro`. */
  id: 'community' | 'pro'
  /** As shown and as sent to the update feed: `Community`, `Pro`. */
  name: 'Community' | 'Pro'
}

export interface PlatformInfo {
  version: string
  dataDir: string
  startedAt: Date
  edition: EditionInfo
  /** Random, created once and stored in the database, for the Pro edition; null in the Community edition. */
  installationId: string | null
}


export const coreServices = {
  logger: createServiceRef<Logger>({ id: 'core.logger' }),
  database: createServiceRef<DatabaseService>({ id: 'core.database' }),
  secrets: createServiceRef<SecretsService>({ id: 'core.secrets' }),
  settings: createServiceRef<SettingsService>({ id: 'core.settings' }),
  /** Programs, paths and command lines, from the server's configuration only. */
  serverOptions: createServiceRef<ServerOptionsService>({ id: 'core.serverOptions' }),
  audit: createServiceRef<AuditService>({ id: 'core.audit' }),
  cluster: createServiceRef<ClusterInfo>({ id: 'core.cluster' }),
  platform: createServiceRef<PlatformInfo>({ id: 'core.platform' }),
  /** The deploy pipeline's read side: what is deployed on disk for a daemon. */
  deploys: createServiceRef<DeploysService>({ id: 'core.deploys' }),
  /** Report sources: each plugin adds those over its own data; a report plugin lists them (sdk/report-sources.ts). */
  reportSources: createServiceRef<ReportSourcesService>({ id: 'core.reportSources' }),
} as const

/** The request's transaction, as `req.transaction`: opened on first use, shared by nested calls. */
export type RequestTransaction = <T>(fn: (trx: Knex.Transaction) => Promise<T>) => Promise<T>

/**
 * Services of one request, registered in the request's own Awilix scope and
 * resolved with `req.resolve(ref)`; any plugin may resolve them without naming
 * them in `deps`. They are what `req.actor`, `req.requestId`, `req.log` and
 * `req.transaction` give, for code that receives a resolver rather than `req`.
 */
export const requestServices = {
  actor: createServiceRef<Actor | null>({ id: 'core.actor' }),
  requestId: createServiceRef<string>({ id: 'core.requestId' }),
  /** The logger bound to the request id. */
  logger: createServiceRef<Logger>({ id: 'core.requestLogger' }),
  transaction: createServiceRef<RequestTransaction>({ id: 'core.transaction' }),
} as const
