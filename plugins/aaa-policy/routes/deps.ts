import type { DatabaseService, IdentityService } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/index.js'
import type { RadiusService } from '../../radius/index.js'
import type { TacacsService } from '../../tacacs/index.js'
import type { AaaPolicyService } from '../api.js'
import type { RuleViewCache } from '../services/cache.js'

/** What the plugin's routes share. */
export interface PolicyRouteDeps {
  database: DatabaseService
  identity: IdentityService
  inventory: InventoryService
  tacacs: TacacsService
  radius: RadiusService
  policy: AaaPolicyService
  /** The ordered views in memory, for the policy test (read-only transactions only). */
  rules: RuleViewCache
}
