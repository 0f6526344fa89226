/** Certificates: issued from a CSR under a template, listed, revoked (a new CRL in the same transaction). */
import { defineRoute, ErrorBody, orNotFound, paginate, type RowOf } from '../../../sdk/index.js'
import { identitySettingRefs } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import { PKI_ISSUE, PKI_REVOKE, PKI_VIEW } from '../permissions.js'
import { CertificateIssue, CertificateListQuery, CertificateListResponse, CertificateParams, CertificateResponse, CertificateRevoke } from '../schemas/pki.js'
import { regenerateCrl } from '../services/crl.js'
import { fingerprint256 } from '../services/der.js'
import { enforceTemplate, issue, readCsr } from '../services/issue.js'
import { crlValidityHours } from '../settings.js'
import type { CertificateTable } from '../tables.js'
import type { PkiContext } from './context.js'
import { issuerAndTemplate } from './issuer.js'

type Row = RowOf<typeof CertificateTable>

export const toCertificate = (r: Row, now = new Date()) => ({
  id: r.id,
  ca_id: r.ca_id,
  template_id: r.template_id,
  serial: r.serial,
  subject: r.subject,
  san: r.san,
  key_algorithm: r.key_algorithm,
  status: r.revoked_at ? ('revoked' as const) : r.not_after <= now ? ('expired' as const) : ('valid' as const),
  not_before: r.not_before.toISOString(),
  not_after: r.not_after.toISOString(),
  revoked_at: r.revoked_at?.toISOString() ?? null,
  revocation_reason: r.revocation_reason,
  certificate: r.certificate,
  fingerprint_sha256: fingerprint256(r.certificate),
  created_at: r.created_at.toISOString(),
})

/** For the audit trail: the record without its PEM. */
const audited = (r: Row) => ({ ...toCertificate(r), certificate: undefined })

export function certificateRoutes(c: PkiContext) {
  return [
    defineRoute({
      method: 'GET',
      path: '/pki/certificates',
      permission: PKI_VIEW,
      summary: 'List certificates',
      description: '`search` matches subject, serial (hex) and subject alternative names. `status`: `valid` (not revoked, not expired), `revoked`, `expired` (not revoked, past not_after). `expires_before`: those ending at or before that time (with `status=valid`: the ones expiring soon).',
      tags: ['pki'],
      schema: { query: CertificateListQuery, response: { 200: CertificateListResponse } },
      handler: async ({ query }) => {
        const now = new Date()
        return paginate(query, {
          base: () => c.knex('pki_certificates'),
          equals: { ca_id: 'ca_id', template_id: 'template_id' },
          filter: (qb) => {
            if (query.status === 'revoked') qb.whereNotNull('revoked_at')
            else if (query.status === 'expired') qb.whereNull('revoked_at').where('not_after', '<=', now)
            else if (query.status === 'valid') qb.whereNull('revoked_at').where('not_after', '>', now)
            if (query.expires_before) qb.where('not_after', '<=', new Date(query.expires_before))
          },
          searchColumns: ['subject', 'serial', 'san'],
          sortColumns: { created_at: 'created_at', not_after: 'not_after', subject: 'subject' },
          defaultSort: 'created_at',
          defaultPerPage: 20,
          tieBreaker: 'id',
          map: (r: Row) => toCertificate(r, now),
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/pki/certificates/{certificate_id}',
      permission: PKI_VIEW,
      summary: 'Get a certificate',
      tags: ['pki'],
      schema: { params: CertificateParams, response: { 200: CertificateResponse, 404: ErrorBody } },
      handler: async ({ params }) => toCertificate(orNotFound(await c.knex('pki_certificates').where({ id: params.certificate_id }).first(), 'certificate_id')),
    }),
    defineRoute({
      method: 'POST',
      path: '/pki/certificates',
      permission: PKI_ISSUE,
      summary: 'Issue a certificate from a CSR',
      description:
        'The CSR (PKCS#10 PEM) is read and its signature checked (422 PKI_CSR_INVALID, PKI_CSR_SIGNATURE_INVALID, PKI_KEY_UNSUPPORTED at `csr`), then held to the template: key strength (422 PKI_KEY_TOO_WEAK), subject attributes and common name against `name_patterns` (422 PKI_SUBJECT_FORBIDDEN), each subject alternative name\'s type and DNS names (422 PKI_SAN_FORBIDDEN). Nothing is issued on a refusal. Key usage, extended key usage and validity (cut to the CA\'s end) come from the template; with `identity.public_url` set, the certificate names its CRL and OCSP URLs. Audited as `pki_certificate.issue`.',
      tags: ['pki'],
      schema: { body: CertificateIssue, response: { 201: CertificateResponse } },
      handler: async (req) => {
        const b = req.body
        const csr = readCsr(b.csr)
        const { template, ca, now } = await issuerAndTemplate(c, b)
        enforceTemplate(csr, template)
        const publicUrl = await c.settings.get(identitySettingRefs.publicUrl)
        const issued = issue({ csr, template, ca, publicUrl, now })
        return req.transaction(async (trx) => {
          const [row] = await trx('pki_certificates')
            .insert({ ...issued.row, issued_by: req.actor?.id ?? null })
            .returning('*')
          await req.audit({ action: 'pki_certificate.issue', resourceType: 'pki_certificate', resourceId: row.id, after: audited(row) }, trx)
          return toCertificate(row)
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/pki/certificates/{certificate_id}/revoke',
      permission: PKI_REVOKE,
      summary: 'Revoke a certificate',
      description:
        'Final (no certificateHold). The CA\'s CRL is made anew in the same transaction (its number one more), and the OCSP responder answers `revoked` at once. A certificate already revoked answers 409 PKI_CERTIFICATE_REVOKED. Audited as `pki_certificate.revoke`.',
      tags: ['pki'],
      schema: { params: CertificateParams, body: CertificateRevoke, response: { 200: CertificateResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = orNotFound(await trx('pki_certificates').where({ id: req.params.certificate_id }).forUpdate().first(), 'certificate_id')
          if (before.revoked_at) throw PkiErrors.alreadyRevoked({ field: 'certificate_id' })
          const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000)
          const [after] = await trx('pki_certificates').where({ id: before.id }).update({ revoked_at: revokedAt, revocation_reason: req.body.reason }).returning('*')
          const ca = (await c.signers.get(before.ca_id, trx))!
          await regenerateCrl(trx, ca, await c.settings.get(crlValidityHours, trx))
          await req.audit({ action: 'pki_certificate.revoke', resourceType: 'pki_certificate', resourceId: before.id, before: audited(before), after: audited(after) }, trx)
          return toCertificate(after)
        }),
    }),
  ]
}
