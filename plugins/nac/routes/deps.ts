import type { Knex } from 'knex'
import type { AuditService, IdentityService, OwnedReferenceTarget, ReferenceTarget } from '../../../sdk/index.js'
import type { NacService } from '../api.js'
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
  /** The "endpoint authorization changed" listeners: an admin's change of group or device type goes to them. */
  events: AuthorizationEvents
}
