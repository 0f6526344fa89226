/**
 * What the plugin needs from the platform. The inventory is optional (an edition without it has no
 * device groups); its service is named by the ref id it publishes, with the one part this plugin
 * reads, so this package still imports nothing of the platform but the SDK.
 */
import { consoleServiceRef, coreServices, createServiceRef, identityServices, optional, type ReferenceTarget, type ResolvedDeps } from '@portcullis/sdk'

/** The inventory's service as it publishes it (plugins/inventory/api.ts), narrowed to the device groups' reference target. */
export interface InventoryGroups {
  references: { device_group: ReferenceTarget }
}
const inventoryServiceRef = createServiceRef<InventoryGroups>({ id: 'inventory.service' })

export const reportDeps = {
  database: coreServices.database,
  settings: coreServices.settings,
  logger: coreServices.logger,
  cluster: coreServices.cluster,
  audit: coreServices.audit,
  sources: coreServices.reportSources,
  identity: identityServices.identity,
  mail: identityServices.mail,
  inventory: optional(inventoryServiceRef),
  // The Reports page, when the edition has the console.
  console: optional(consoleServiceRef),
}

export type ReportDeps = ResolvedDeps<typeof reportDeps>

/** A translator of the plugin's own strings (the request's, or the report's language for a scheduled run). */
export type Translate = (key: string, vars?: Record<string, unknown>) => string
