import type { Knex } from 'knex'
import type { InventoryService } from '../../inventory/api.js'
import type { NacService } from '../api.js'
import type { ConditionTargets } from '../services/conditions.js'
import type { CompiledPolicyCache } from '../services/policy-cache.js'
import type { AuditService, DatabaseService, DeploysService, IdentityService, SettingsService, OwnedReferenceTarget, ReferenceTarget } from '../../../sdk/index.js'
import type { AaaLogsService } from '../../aaa-logs/api.js'
import type { NacInputsDeps } from '../services/impact-inputs.js'
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
  /** The change impact (routes/policy-impact.ts): the pending side in a snapshot, the deployed release, the logs replayed. */
  database: DatabaseService
  deploys: DeploysService
  aaaLogs: AaaLogsService | undefined
  inputs: NacInputsDeps
  /** The "endpoint authorization changed" listeners: an admin's change of group or device type goes to them. */
  events: AuthorizationEvents
}
