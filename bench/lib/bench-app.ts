/**
 * A bench's own server: a throwaway PostgreSQL (test/kit), the default edition started in this
 * process with production defaults and a silent logger, a pg client on its database for seeding
 * and replaying SQL, and an administrator token. `stop()` undoes all of it, and so does an exit.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { pino } from 'pino'
import { startApp, type App } from '../../kernel/app.js'
import { loadConfig, type Config } from '../../kernel/config.js'
import { parseMasterKey } from '../../kernel/security/master-key.js'
import { createSecrets } from '../../kernel/security/secrets.js'
import { packageEditions } from '../../kernel/version.js'
import type { Logger, SecretsService } from '../../sdk/index.js'
import { startPostgres } from '../../test/kit/postgres.js'
import { adminTokenFor } from '../../test/kit/tokens.js'
import { atExit, removeDir, tempDir } from '../lib.js'

export interface BenchApp {
  app: App
  config: Config
  dataDir: string
  /** A client of the app's database. */
  client: pg.Client
  token: string
  /** Sealing as the app seals (the same master key). */
  secrets: SecretsService
  stop(): Promise<void>
}

/** `name` names the database and the data folder (`benchdeploy`, `portcullis-bench-deploy-…`); `env`: more of the server's variables (e.g. TRUST_PROXY). */
export async function startBenchApp(name: string, o: { env?: Record<string, string> } = {}): Promise<BenchApp> {
  const pgc = await startPostgres()
  const stopPg = atExit(() => pgc.destroy())
  const databaseUrl = await pgc.createDatabase(`bench${name}`)
  const masterKey = randomBytes(32).toString('hex')
  const dataDir = tempDir(`portcullis-bench-${name}-`)
  const silent = pino({ level: 'silent' }) as unknown as Logger
  // No PLUGINS: the default edition's list from package.json.
  // The daemons' binaries are server options, read from their own variables: passed on when set.
  const daemons = Object.fromEntries(['TAC_PLUS_NG', 'FREERADIUS_BINARY'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]))
  const env = { ...daemons, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, MASTER_KEY: masterKey, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...o.env }
  const config = loadConfig(env, { editions: packageEditions() })
  const client = new pg.Client({ connectionString: databaseUrl })
  let app: App | null = null
  const stop = async () => {
    await client.end().catch(() => undefined)
    if (app) await app.stop().catch(() => undefined)
    stopPg()
    removeDir(dataDir)
  }
  try {
    app = await startApp(config, { log: silent })
    await client.connect()
    const token = await adminTokenFor({ databaseUrl, masterKey })
    return { app, config, dataDir, client, token, secrets: createSecrets(parseMasterKey(masterKey, 'masterKey')), stop }
  } catch (e) {
    await stop()
    throw e
  }
}
