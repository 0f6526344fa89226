import type { Knex } from 'knex'
import type { TacacsServiceInternal } from '../services/tacacs-service.js'

/** What the plugin's routes share. */
export interface TacacsRouteDeps {
  knex: Knex
  service: TacacsServiceInternal
}
