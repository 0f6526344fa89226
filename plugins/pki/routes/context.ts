import type { Knex } from 'knex'
import type { IdentityService, SecretsService, SettingsService } from '../../../sdk/index.js'
import type { Signers } from '../services/ca.js'
import type { OcspResponder } from '../services/ocsp.js'

/** What the plugin's routes share. */
export interface PkiContext {
  knex: Knex
  secrets: SecretsService
  settings: SettingsService
  identity: IdentityService
  signers: Signers
  ocsp: OcspResponder
}
