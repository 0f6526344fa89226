/**
 * AAA logs: the five log kinds of the daemons (TACACS+ authentication,
 * authorization, accounting; RADIUS authentication, accounting), their lists,
 * exports and entries, the log exclusion rules, and the ingester that tails
 * the daemons' files into the database. The daemons never call the API.
 */
import { coreServices, definePlugin, optional, provide } from '../../sdk/index.js'
import { inventoryServiceRef } from '../inventory/api.js'
import { aaaLogsServiceRef } from './api.js'
import { ingestCommand } from './cli/ingest.js'
import { replayCommand } from './cli/replay.js'
import { createIngester, ingesterServiceRefs } from './ingest/index.js'
import { RecordListeners } from './ingest/listeners.js'
import { ingestOptions, ingestSettings } from './ingest/settings.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { permissions } from './permissions.js'
import { addReportSources } from './report-sources/index.js'
import { logRoutes } from './routes/index.js'
import { tacacsCommands } from './services/commands.js'
import { exclusionLoader } from './services/exclusions.js'
import { radiusImpactRequests, tacacsImpactRequests } from './services/impact-requests.js'
import { retentionMonths, startRetention } from './services/retention.js'
import { listSettings } from './services/settings.js'
import { aaaLogsTables } from './tables.js'

export * from './api.js'

export default definePlugin({
  id: 'aaa-logs',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'AAA logs: ingestion from the daemons, exclusion rules, search and export.',
  permissions,
  locales: { en, ru },
  settings: [...ingestSettings, ...listSettings, retentionMonths],
  serverOptions: ingestOptions,
  migrations: new URL('./migrations/', import.meta.url),
  tables: aaaLogsTables,
  cli: [replayCommand, ingestCommand],
  // The inventory only for the reports' device-group filter and masking device keys by value.
  optionalDependsOn: ['inventory'],
  deps: { ...ingesterServiceRefs, audit: coreServices.audit, reportSources: coreServices.reportSources, inventory: optional(inventoryServiceRef) },
  init(d) {
    const listeners = new RecordListeners(d.logger.child({ component: 'aaa-logs.listeners' }))
    const ingester = createIngester({ ...d, logFolders: () => d.deploys.logFolders(), loadExclusions: exclusionLoader(d.identity), listeners })
    let stopRetention = async () => undefined as void
    addReportSources(d.reportSources, { inventory: d.inventory })
    return {
      services: [provide(aaaLogsServiceRef, { registerRecordListener: (name, fn) => listeners.register(name, fn), tacacsCommands: (q) => tacacsCommands(d.database, q), tacacsImpactRequests: (q) => tacacsImpactRequests(d.database, q), radiusImpactRequests: (q) => radiusImpactRequests(d.database, q) })],
      routes: logRoutes(d),
      start: async () => {
        await ingester.start()
        // Months past aaa-logs.retention_months, hourly on a primary node (services/retention.ts).
        stopRetention = startRetention(d)
      },
      stop: async () => {
        await stopRetention()
        await ingester.stop()
      },
    }
  },
})
