import type { Knex } from 'knex'
import type { IdentityService, MailService, SecretsService, SettingsService } from '../../../sdk/index.js'
import type { EstQueue } from '../services/est-queue.js'
import type { Signers } from '../services/ca.js'
import type { OcspResponder } from '../services/ocsp.js'

/** What the plugin's routes share. */
export interface PkiContext {
  knex: Knex
  secrets: SecretsService
  settings: SettingsService
  identity: IdentityService
  mail: MailService
  queue: EstQueue
  signers: Signers
  ocsp: OcspResponder
}

