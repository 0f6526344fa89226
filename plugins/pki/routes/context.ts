import type { Knex } from 'knex'
import type { IdentityService, MailService, SecretsService, SettingsService } from '../../../sdk/index.js'
import type { EstQueue } from '../services/est-queue.js'
import type { Signer, Signers } from '../services/ca.js'
import { PkiErrors } from '../errors.js'
import type { Template } from '../services/issue.js'
import { loadTemplate } from './templates.js'
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

/**
 * What an issue from the API starts from, whichever way the key comes: the template and the CA, both
 * existing (422 at `template_id` / `ca_id`), the CA valid now (422 PKI_CA_EXPIRED).
 */
export async function issuerAndTemplate(c: PkiContext, b: { ca_id: string; template_id: string }): Promise<{ template: Template; ca: Signer; now: Date }> {
  const template = await loadTemplate(c.knex, b.template_id)
  if (!template) throw PkiErrors.templateNotFound({ field: 'template_id' })
  const ca = await c.signers.get(b.ca_id)
  if (!ca) throw PkiErrors.caNotFound({ field: 'ca_id' })
  const now = new Date()
  if (ca.notAfter <= now || ca.notBefore > now) throw PkiErrors.caExpired({ field: 'ca_id', vars: { from: ca.notBefore.toISOString(), to: ca.notAfter.toISOString() } })
  return { template, ca, now }
}
