import type { Knex } from 'knex'
import type { AuditService, SettingsService, IdentityService, OwnedReferenceTarget, ReferenceTarget } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { NacService } from '../api.js'
import type { CoaServiceImpl } from '../services/coa/service.js'

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
  /** Change of Authorization (services/coa/): the writes that move an endpoint tell it after their commit. */
  coa: CoaServiceImpl
  /** Absent when the edition has no inventory: a CoA then has no NAS to reach (409 COA_NAS_UNKNOWN). */
  inventory: InventoryService | undefined
  settings: SettingsService
}
