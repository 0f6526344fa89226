import type { Knex } from 'knex'
import type { SecretsService } from '../../../sdk/index.js'
import type { InventoryService } from '../api.js'

/** What the plugin's routes share. */
export interface InventoryRouteDeps {
  knex: Knex
  secrets: SecretsService
  inventory: InventoryService
}
