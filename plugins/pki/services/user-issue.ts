/**
 * PkiService.issueUserCertificate (api.ts): the EAP-TLS client certificate of a user's device, as
 * the captive portal's BYOD onboarding asks for it. The same path as an administrator's generate
 * and download link (services/downloads.ts): template `eap-tls-client` (seeded by migration 0004),
 * a key made here, the certificate recorded and audited, the key leaving once in a PKCS#12 bundle
 * behind a one-time link. The CN is the username, so the certificate is the user's in every rule
 * that follows a user's certificates (user-certificates.ts: revoked when the user is deleted).
 */
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { CommonErrors, identitySettingRefs, type AuditService, type IdentityService, type SecretsService, type SettingsService } from '../../../sdk/index.js'
import type { IssuedUserCertificate, UserCertificateRequest } from '../api.js'
import { PkiErrors } from '../errors.js'
import { toCertificate } from '../routes/certificates.js'
import { loadTemplate } from '../routes/templates.js'
import { freeradiusCaId } from '../settings.js'
import type { Signers } from './ca.js'
import { makeDownloadLink, storeWithServerKey } from './downloads.js'
import { generateLeafKey, requestFor } from './generate.js'
import { enforceTemplate, issue } from './issue.js'

export const USER_TEMPLATE = 'eap-tls-client'
/** The link is for the page that shows it: the user downloads now, or asks again. */
const LINK_HOURS = 1

export interface UserIssueDeps {
  knex: Knex
  signers: Signers
  secrets: SecretsService
  settings: SettingsService
  identity: IdentityService
  audit: AuditService
}

export function userCertificateIssuer(d: UserIssueDeps) {
  return async (r: UserCertificateRequest): Promise<IssuedUserCertificate> => {
    const user = typeof r.userId === 'string' && /^[0-9a-f-]{36}$/i.test(r.userId) ? await d.identity.findUser({ id: r.userId }) : null
    const now = new Date()
    if (!user || !user.enabled || (user.expires_at && new Date(user.expires_at) <= now)) throw CommonErrors.validation({ field: 'userId' })
    if (typeof r.commonName !== 'string' || r.commonName.toLowerCase() !== user.username.toLowerCase()) throw CommonErrors.validation({ field: 'commonName' })
    const caId = r.caId ?? (await d.settings.get(freeradiusCaId))
    const ca = caId ? await d.signers.get(caId) : null
    if (!ca) throw PkiErrors.caNotFound({ field: 'caId' })
    if (ca.notAfter <= now || ca.notBefore > now) throw PkiErrors.caExpired({ field: 'caId', vars: { from: ca.notBefore.toISOString(), to: ca.notAfter.toISOString() } })
    const row = await d.knex('pki_templates').whereRaw('lower(name) = ?', [USER_TEMPLATE]).first('id')
    const template = row ? await loadTemplate(d.knex, row.id) : null
    if (!template) throw PkiErrors.templateNotFound({ field: 'template_id' })
    if (r.validityDays !== undefined && (!Number.isInteger(r.validityDays) || r.validityDays < 1)) throw CommonErrors.validation({ field: 'validityDays' })
    // Shorter than the template allows, never longer: the template is what an administrator set.
    const held = { ...template, validity_days: Math.min(template.validity_days, r.validityDays ?? template.validity_days) }
    // RSA-2048: what every supplicant (Windows, macOS, iOS, Android, wpa_supplicant) imports from a PKCS#12.
    const key = await generateLeafKey('RSA-2048')
    const san = user.email && template.san_types.includes('email') ? [{ type: 'email' as const, value: user.email }] : []
    const request = requestFor(key, { CN: user.username }, san)
    enforceTemplate(request, held)
    const issued = issue({ csr: request, template: held, ca, publicUrl: await d.settings.get(identitySettingRefs.publicUrl), now })
    const passphrase = randomBytes(12).toString('base64url')
    return d.knex.transaction(async (trx) => {
      const cert = await storeWithServerKey(d, trx, issued.row, key, null)
      const after = { ...toCertificate(cert), certificate: undefined, key_generated: true, for_user_id: user.id }
      await d.audit.record({ action: 'pki_certificate.issue', resourceType: 'pki_certificate', resourceId: cert.id, after }, { actor: null, trx })
      const link = await makeDownloadLink(d, trx, cert.id, { format: 'pkcs12', passphrase, hours: LINK_HOURS, createdBy: null })
      await d.audit.record({ action: 'pki_download.create', resourceType: 'pki_certificate', resourceId: cert.id, after: { ...link, token: undefined, path: undefined, url: undefined } }, { actor: null, trx })
      return { certificateId: cert.id, downloadUrl: link.url ?? link.path, downloadToken: link.token, passphrase, expiresAt: link.expires_at }
    })
  }
}
