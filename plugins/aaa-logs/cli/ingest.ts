/**
 * The ingester alone, without the HTTP server:
 *   DATABASE_URL=… DATA_DIR=… node --import tsx plugins/aaa-logs/cli/ingest.ts
 * Settings come from the settings table (as the server reads them); the
 * environment variables AAA_LOGS_BATCH_SIZE and AAA_LOGS_POLL_MS override them.
 * The folders are server options: AAA_LOGS_TACACS_LOG_DIRECTORY, AAA_LOGS_RADIUS_LOG_DIRECTORY. SIGINT/SIGTERM stop it
 * after the batch in flight.
 */
import { createIngester } from '../ingest/index.js'
import { cliExclusions, dataDir, envOptions, nodeId, openDatabase, stderrLogger, tableSettings } from './common.js'

export async function runIngestCli(env = process.env): Promise<void> {
  const database = openDatabase(env.DATABASE_URL)
  const overrides: Record<string, unknown> = {}
  if (env.AAA_LOGS_BATCH_SIZE) overrides['aaa-logs.batch_size'] = Number(env.AAA_LOGS_BATCH_SIZE)
  if (env.AAA_LOGS_POLL_MS) overrides['aaa-logs.poll_ms'] = Number(env.AAA_LOGS_POLL_MS)
  overrides['aaa-logs.ingest_enabled'] = true
  const dir = dataDir()
  const logger = stderrLogger()
  const ingester = createIngester({
    database,
    settings: tableSettings(database.knex, overrides),
    serverOptions: envOptions({}, env),
    logger,
    cluster: { nodeId: nodeId(dir), role: 'primary' },
    platform: { version: 'cli', dataDir: dir, startedAt: new Date() },
    loadExclusions: cliExclusions(),
  })
  const stop = async () => {
    await ingester.stop()
    await database.knex.destroy()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  logger.info({ nodeId: nodeId(dir) }, 'aaa-logs: ingester running')
  await ingester.start()
}

if (import.meta.url === `file://${process.argv[1]}`) await runIngestCli()
