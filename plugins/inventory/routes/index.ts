import type { RouteDefinition } from '../../../sdk/index.js'
import type { InventoryRouteDeps } from './deps.js'
import { deviceGroupRoutes } from './device-groups.js'
import { deviceCoveringRoutes } from './device-covering.js'
import { deviceImportRoutes } from './device-import.js'
import { deviceRoutes } from './devices.js'
import { inventoryReferenceRoutes } from './references.js'

export function inventoryRoutes(d: InventoryRouteDeps): RouteDefinition[] {
  return [...deviceCoveringRoutes(d), ...deviceImportRoutes(d), ...deviceRoutes(d), ...deviceGroupRoutes(d), ...inventoryReferenceRoutes(d)] as RouteDefinition[]
}
