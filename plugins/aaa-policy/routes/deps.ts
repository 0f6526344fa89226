import type { DatabaseService, DeploysService, IdentityService, SettingsService } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { RadiusService } from '../../radius/api.js'
import type { TacacsService } from '../../tacacs/api.js'
import type { AaaPolicyService } from '../api.js'
import type { RuleViewCache } from '../services/cache.js'
import type { PolicyTargets } from '../services/targets.js'

/** What the plugin's routes share. */
export interface PolicyRouteDeps {
  database: DatabaseService
  /** The active releases: their pending state, and the policy test's inputs they keep. */
  deploys: DeploysService
  identity: IdentityService
  /** identity.lockout_threshold, for the policy test (TACACS+ CHAP while the lockout is on). */
  settings: SettingsService
  inventory: InventoryService
  /** Absent in an edition without the tacacs plugin. */
  tacacs: TacacsService | undefined
  /** Absent in an edition without the radius plugin. */
  radius: RadiusService | undefined
  policy: AaaPolicyService
  /** What rules reference, through each owner's contract. */
  targets: PolicyTargets
  /** The ordered views in memory, for the policy test (read-only transactions only). */
  rules: RuleViewCache
}
