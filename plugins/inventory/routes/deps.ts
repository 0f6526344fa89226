import type { Knex } from 'knex'
import type { OwnedReferenceTarget, SecretsService } from '../../../sdk/index.js'
import type { InventoryService } from '../api.js'

/** What the plugin's routes share. */
export interface InventoryRouteDeps {
  knex: Knex
  secrets: SecretsService
  inventory: InventoryService
  /** The inventory's side of the references others hold: deletes and renames call them. */
  references: InventoryReferences
}

export interface InventoryReferences {
  device: OwnedReferenceTarget
  device_group: OwnedReferenceTarget
}
