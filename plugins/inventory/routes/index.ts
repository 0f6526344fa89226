import type { RouteDefinition } from '../../../sdk/index.js'
import type { InventoryRouteDeps } from './deps.js'
import { deviceGroupRoutes } from './device-groups.js'
import { deviceRoutes } from './devices.js'

export function inventoryRoutes(d: InventoryRouteDeps): RouteDefinition[] {
  return [...deviceRoutes(d), ...deviceGroupRoutes(d)] as RouteDefinition[]
}
