import type { Knex } from 'knex'
import type { AuditService, IdentityService, OwnedReferenceTarget, ReferenceTarget } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { NacService } from '../api.js'
import type { ConditionTargets } from '../services/conditions.js'
import type { CompiledPolicyCache } from '../services/policy-cache.js'

/** What the plugin's routes share. */
export interface NacRouteDeps {
  knex: Knex
  nac: NacService
  /** Kernel users, the endpoints' owners (identity.references.user). */
  users: ReferenceTarget
  audit: AuditService
  identity: IdentityService
  /** The plugin's side of the references others hold: deletes and renames call them. */
  references: { endpoint: OwnedReferenceTarget; endpoint_group: OwnedReferenceTarget }
  /** Devices and device groups for the NAC policy; absent in an edition without the inventory plugin. */
  inventory: InventoryService | undefined
  /** Who owns each kind of group a NAC rule's conditions name. */
  targets: ConditionTargets
  /** The compiled policy in memory, for the policy test (reads outside a transaction only). */
  policyCache: CompiledPolicyCache
}
