/**
 * The update check (spec, Versioning 8): off by default; when on, the primary node asks a static,
 * offline-signed manifest of the newest release and the security advisories, verifies it against
 * the keys shipped in trusted-keys.ts, and keeps the last good one. The console's dashboard shows
 * it. See docs/update-feed.md.
 */
import { readFileSync } from 'node:fs'
import { coreServices, definePlugin } from '../../sdk/index.js'
import { UpdateChecker } from './check.js'
import { keygenCommand, signCommand } from './cli.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { updateFeedRoutes } from './routes.js'
import { startSchedule } from './schedule.js'
import { trustedKeysFile, updateFeedSettings } from './settings.js'
import { updateFeedTables } from './tables.js'
import { TRUSTED_KEYS } from './trusted-keys.js'
import { trustedKeys } from './verify.js'

/** The extra keys of a private mirror: a file that cannot be read refuses the start rather than trusting less or more than meant. */
function extraKeys(file: string | null): Record<string, string> {
  if (file === null) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    throw new Error(`update-feed: the trusted keys file (server option update-feed.trusted_keys_file) cannot be read as JSON: ${(e as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new Error('update-feed: the trusted keys file must be a JSON object of key id → base64 public key')
  }
  return parsed as Record<string, string>
}

export default definePlugin({
  id: 'update-feed',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Update check: a signed manifest of the newest release and security advisories, pulled from a feed when turned on.',
  // The contract names the settings update_feed.* (spec, Versioning 8).
  settingNamespaces: ['update_feed'],
  settings: updateFeedSettings,
  serverOptions: [trustedKeysFile],
  migrations: new URL('./migrations/', import.meta.url),
  tables: updateFeedTables,
  locales: { en, ru },
  cli: [keygenCommand, signCommand],
  deps: {
    database: coreServices.database,
    settings: coreServices.settings,
    serverOptions: coreServices.serverOptions,
    platform: coreServices.platform,
    cluster: coreServices.cluster,
    logger: coreServices.logger,
  },
  init({ database, settings, serverOptions, platform, cluster, logger }) {
    const keys = trustedKeys(TRUSTED_KEYS, extraKeys(serverOptions.get(trustedKeysFile)))
    const knex = database.knex
    const log = logger.child({ plugin: 'update-feed' })
    const checker = new UpdateChecker({ knex, settings, platform, keys, log })
    let stopSchedule: (() => Promise<void>) | null = null
    return {
      routes: updateFeedRoutes({ knex, settings, platform, checker }),
      async start() {
        stopSchedule = startSchedule({
          settings,
          cluster,
          log,
          check: () => checker.check(),
          lastCheckedAt: async () => {
            const row = await knex('update_feed_state').where({ id: 1 }).first('checked_at')
            return row?.checked_at ? new Date(row.checked_at) : null
          },
        })
      },
      async stop() {
        await stopSchedule?.()
      },
    }
  },
})
