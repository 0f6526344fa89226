import type { Knex } from 'knex'
import type { SecretsService, SettingsService } from '../../../sdk/index.js'
import type { Signers } from '../services/ca.js'
import type { OcspResponder } from '../services/ocsp.js'

/** What the plugin's routes share. */
export interface PkiContext {
  knex: Knex
  secrets: SecretsService
  settings: SettingsService
  signers: Signers
  ocsp: OcspResponder
}
