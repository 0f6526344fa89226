/**
 * One knex for the whole process. DATABASE_URL selects a real PostgreSQL;
 * without it the embedded engine (PGlite) keeps its files in <DATA_DIR>/pgdata.
 * PGlite has exactly one connection, so the pool is 1 and every query inside a
 * transaction must go through that transaction (see sdk DatabaseService).
 */
import path from 'node:path'
import { mkdirSync } from 'node:fs'
import knexPkg, { type Knex } from 'knex'
import ClientPgLite from 'knex-pglite'
import pg from 'pg'
import type { DatabaseService, Logger } from '../../sdk/index.js'

// bigint (count(*)) and numeric as JS numbers: counts here stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v))
pg.types.setTypeParser(1700, (v) => Number(v))

export function connect(opts: { databaseUrl: string | null; dataDir: string; log?: Logger }): DatabaseService {
  // knex writes its own warnings (pool acquire errors during an outage) to the console; route them to the log.
  const log = opts.log && { warn: (m: unknown) => opts.log!.warn({ knex: String(m) }, 'knex'), error: (m: unknown) => opts.log!.error({ knex: String(m) }, 'knex'), deprecate: () => undefined, debug: () => undefined }
  let knex: Knex
  let engine: DatabaseService['engine']
  if (opts.databaseUrl) {
    engine = 'postgres'
    knex = knexPkg.knex({
      client: 'pg',
      connection: { connectionString: opts.databaseUrl, connectionTimeoutMillis: 2000, application_name: 'portcullis' },
      // A short acquire timeout turns a database outage into a quick 503 instead of a hung request.
      acquireConnectionTimeout: 3000,
      log,
      pool: { min: 0, max: 10, idleTimeoutMillis: 10_000 },
    })
  } else {
    engine = 'embedded'
    const dir = path.join(opts.dataDir, 'pgdata')
    // PGlite itself writes its initial files 0666 whatever the umask: app.ts repairs them (security/data-dir.ts).
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    knex = knexPkg.knex({
      client: ClientPgLite as unknown as typeof knexPkg.Client,
      dialect: 'postgres',
      connection: { filename: dir },
      acquireConnectionTimeout: 60_000,
      log,
    } as Knex.Config)
  }
  return {
    knex,
    engine,
    transaction(fn, o) {
      return knex.transaction(fn, o?.isolation ? { isolationLevel: o.isolation } : undefined) as ReturnType<typeof fn>
    },
  }
}
