import { PkiErrors } from '../errors.js'
import type { Signer } from '../services/ca.js'
import type { Template } from '../services/issue.js'
import type { PkiContext } from './context.js'
import { loadTemplate } from './templates.js'

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
