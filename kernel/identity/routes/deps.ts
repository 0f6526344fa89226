import type { Knex } from 'knex'
import type { MailService, SecretsService, SettingsService } from '../../../sdk/index.js'
import type { ContributionRegistry } from '../../plugins/registry.js'
import type { Identity } from '../service.js'
import type { UserLifecycle } from '../lifecycle.js'

/** What the identity routes need from the kernel. */
export interface IdentityRouteDeps {
  knex: Knex
  identity: Identity
  /** "A user's access ended", emitted after the commit (lifecycle.ts). */
  lifecycle: UserLifecycle
  secrets: SecretsService
  settings: SettingsService
  mail: MailService
  registry: ContributionRegistry
  docsEnabled: boolean
}
