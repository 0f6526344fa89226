/** What the plugin needs from the platform and other plugins (design: index.ts `deps`). */
import { aaaLogsServiceRef } from '../aaa-logs/api.js'
import { inventoryServiceRef } from '../inventory/api.js'
import { consoleServiceRef, coreServices, identityServices, optional } from '../../sdk/index.js'

export const ncmDeps = {
  database: coreServices.database,
  secrets: coreServices.secrets,
  settings: coreServices.settings,
  audit: coreServices.audit,
  logger: coreServices.logger,
  platform: coreServices.platform,
  // Compliance's re-evaluation runs on the primary node only.
  cluster: coreServices.cluster,
  mail: identityServices.mail,
  inventory: inventoryServiceRef,
  aaaLogs: optional(aaaLogsServiceRef),
  console: optional(consoleServiceRef),
  reportSources: coreServices.reportSources,
}
