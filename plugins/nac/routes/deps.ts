import type { Knex } from 'knex'
import type { InventoryService } from '../../inventory/api.js'
import type { NacService } from '../api.js'
import type { ConditionTargets } from '../services/conditions.js'
import type { CompiledPolicyCache } from '../services/policy-cache.js'
import type { AuditService, IdentityService, SettingsService, OwnedReferenceTarget, ReferenceTarget } from '../../../sdk/index.js'
import type { CoaServiceImpl } from '../services/coa/service.js'
import type { AuthorizationEvents } from '../services/events.js'

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
  /** Devices and device groups for the NAC policy, the NAS of a CoA; absent in an edition without the inventory plugin (a CoA then has no NAS to reach: 409 COA_NAS_UNKNOWN). */
  inventory: InventoryService | undefined
  /** Who owns each kind of group a NAC rule's conditions name. */
  targets: ConditionTargets
  /** The compiled policy in memory, for the policy test (reads outside a transaction only). */
  policyCache: CompiledPolicyCache
  /** Change of Authorization (services/coa/): the writes that move an endpoint tell it after their commit. */
  coa: CoaServiceImpl
  settings: SettingsService
  /** The "endpoint authorization changed" listeners: an admin's change of group or device type goes to them. */
  events: AuthorizationEvents
}
