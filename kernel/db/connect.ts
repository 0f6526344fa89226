/**
 * One knex for the whole process. DATABASE_URL selects a real PostgreSQL;
 * without it the embedded engine (PGlite) keeps its files in <DATA_DIR>/pgdata.
 * PGlite has exactly one connection, so the pool is 1 and every query inside a
 * transaction must go through that transaction (see sdk DatabaseService).
 */
import path from 'node:path'
import { mkdirSync } from 'node:fs'
import knexPkg, { type Knex } from 'knex'
import pg from 'pg'
import type { DatabaseService, Logger } from '../../sdk/index.js'
import { parseDatabaseHosts } from './hosts.js'
import { multiHostClient } from './multi-host-client.js'
import { primaryReads } from './read-replica.js'

// bigint (count(*)) and numeric as JS numbers: counts here stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v))
pg.types.setTypeParser(1700, (v) => Number(v))

/** knex's messages for a connection that could not be made or was lost. */
const CONNECTION_NOISE = /^(Acquire connection error|Connection Error)\b/

/**
 * The database the configuration names. Async because the embedded engine's
 * code (PGlite and its knex client, ~40 ms of module loading) is imported only
 * when it is the engine: a server on PostgreSQL never loads it.
 */
export async function connect(opts: {
  databaseUrl: string | null
  dataDir: string
  log?: Logger
  dbStatementTimeoutMs?: number
  /** Where a pristine embedded cluster is kept for new data folders (embedded.ts); null: initdb in each new folder. */
  embeddedTemplateDir?: string | null
}): Promise<DatabaseService> {
  // knex writes its own warnings to the console; route them to the log. Its connection errors come once per
  // failed connection attempt, so during an outage once per request: they go to debug, and the outage
  // itself is logged once, then summarised, by the HTTP layer (OutageLog in outage.ts).
  const knexSays = (level: 'warn' | 'error') => (m: unknown) => {
    const text = String(m)
    opts.log![CONNECTION_NOISE.test(text) ? 'debug' : level]({ knex: text }, 'knex')
  }
  const log = opts.log && { warn: knexSays('warn'), error: knexSays('error'), deprecate: () => undefined, debug: () => undefined }
  let knex: Knex
  let engine: DatabaseService['engine']
  if (opts.databaseUrl) {
    engine = 'postgres'
    // Several hosts (a Patroni cluster) or target_session_attrs: each new connection finds the host that fits.
    const hosts = parseDatabaseHosts(opts.databaseUrl)
    const onSwitch = (e: { from: string | null; to: string; why: string }) => opts.log?.warn(e, 'database: connections move to another host')
    knex = knexPkg.knex({
      client: hosts.probed ? (multiHostClient(hosts, onSwitch) as unknown as typeof knexPkg.Client) : 'pg',
      connection: {
        connectionString: opts.databaseUrl,
        connectionTimeoutMillis: 2000,
        application_name: 'portcullis',
        // Sent in each connection's startup packet, so every pooled connection has it from its first
        // statement: a runaway query (or one stuck behind a lock) is cut and its request answers 503
        // DATABASE_TIMEOUT instead of holding a connection of the pool. Work that may legitimately run
        // longer (migrations, log ingestion batches) lifts it with SET LOCAL inside its transaction.
        ...(opts.dbStatementTimeoutMs ? { statement_timeout: opts.dbStatementTimeoutMs } : {}),
      },
      // A short acquire timeout turns a database outage into a quick 503 instead of a hung request.
      acquireConnectionTimeout: 3000,
      log,
      pool: { min: 0, max: 10, idleTimeoutMillis: 10_000 },
    })
  } else {
    engine = 'embedded'
    // No statement timeout here: PGlite accepts `SET statement_timeout` but never cuts a statement (its
    // single-threaded WebAssembly build has no timer signal), and with its one connection no other
    // session can hold a lock a request would wait on.
    // The embedded client answers as pg does (counts, value types, parameters, errors): embedded.ts says
    // what differs in knex-pglite and how each difference is removed.
    const { defaultTemplateDir, EmbeddedClient } = await import('./embedded.js')
    const dir = path.join(opts.dataDir, 'pgdata')
    // PGlite itself writes its initial files 0666 whatever the umask: app.ts repairs them (security/data-dir.ts).
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const templateDir = opts.embeddedTemplateDir === undefined ? defaultTemplateDir() : opts.embeddedTemplateDir
    knex = knexPkg.knex({
      client: EmbeddedClient as unknown as typeof knexPkg.Client,
      dialect: 'postgres',
      connection: { filename: dir, templateDir, log: opts.log },
      acquireConnectionTimeout: 60_000,
      log,
    } as Knex.Config)
  }
  return {
    knex,
    engine,
    ...primaryReads(knex),
    transaction(fn, o) {
      return knex.transaction(fn, o?.isolation ? { isolationLevel: o.isolation } : undefined) as ReturnType<typeof fn>
    },
  }
}
