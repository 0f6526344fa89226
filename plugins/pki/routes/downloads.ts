/**
 * Certificates with a key generated on the server, and one-time download
 * links. The generated key is sealed until a link is made for the
 * certificate; the link's bundle (PKCS#12 or PEM, the key encrypted under a
 * passphrase the link never carries) takes the key with it, sealed, and the
 * key row goes: the key leaves the server once, through that link. A link's
 * token is kept only as its SHA-256; GET previews and spends nothing, POST
 * delivers once.
 */
import { X509Certificate } from 'node:crypto'
import { defineRoute, ErrorBody, identitySettingRefs, PUBLIC, reply, Type } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import { PKI_ISSUE } from '../permissions.js'
import { CertificateGenerate, DownloadCreate, DownloadCreated, DownloadParams, DownloadPreview } from '../schemas/downloads.js'
import { CertificateParams, CertificateResponse } from '../schemas/pki.js'
import { BUNDLE_PURPOSE, DEFAULT_HOURS, hashOf, makeDownloadLink, MEDIA, storeWithServerKey } from '../services/downloads.js'
import { generateLeafKey, requestFor } from '../services/generate.js'
import { enforceTemplate, issue } from '../services/issue.js'
import { toCertificate } from './certificates.js'
import type { PkiContext } from './context.js'
import { issuerAndTemplate } from './issuer.js'


export function downloadRoutes(c: PkiContext) {
  /** The link's row, or the refusal a client reads: unknown 404, spent or expired 410. */
  const usable = (row: { spent_at: Date | null; expires_at: Date } | undefined) => {
    if (!row) throw PkiErrors.downloadNotFound({ field: 'token' })
    if (row.spent_at) throw PkiErrors.downloadSpent({ field: 'token' })
    if (row.expires_at <= new Date()) throw PkiErrors.downloadExpired({ field: 'token' })
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/pki/certificates/generate',
      permission: PKI_ISSUE,
      summary: 'Issue a certificate with a key generated on the server',
      description:
        'For a device that cannot make a CSR. The subject and names are held to the template exactly as a CSR\'s are (the same 422s, at `subject`/`san` read as the request). The key is sealed on the server and never answered: it leaves once, through a download link (POST /api/v1/pki/certificates/{certificate_id}/download-links). Audited as `pki_certificate.issue` with `key_generated: true`.',
      tags: ['pki'],
      schema: { body: CertificateGenerate, response: { 201: CertificateResponse } },
      handler: async (req) => {
        const b = req.body
        const { template, ca, now } = await issuerAndTemplate(c, b)
        const key = await generateLeafKey(b.key_algorithm)
        const request = requestFor(key, b.subject, b.san ?? [])
        enforceTemplate(request, template)
        const issued = issue({ csr: request, template, ca, publicUrl: await c.settings.get(identitySettingRefs.publicUrl), now })
        return req.transaction(async (trx) => {
          const row = await storeWithServerKey(c, trx, issued.row, key, req.actor?.id ?? null)
          const after = { ...toCertificate(row), certificate: undefined, key_generated: true }
          await req.audit({ action: 'pki_certificate.issue', resourceType: 'pki_certificate', resourceId: row.id, after }, trx)
          return toCertificate(row)
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/pki/certificates/{certificate_id}/download-links',
      permission: PKI_ISSUE,
      summary: 'Make a one-time download link for a certificate',
      description:
        'The bundle (certificate, chain, and the private key when the server generated it and still holds it) is made now, sealed, and delivered once by POST /api/v1/public/cert-download/{token}. A bundle with the key takes it: the server keeps no other copy, so only one link ever carries a key (a later link has none). `passphrase` is required for `pkcs12` and for a bundle with a key (422 PKI_PASSPHRASE_REQUIRED); it is never stored. The token is answered once and stored as its SHA-256. A revoked certificate answers 409 PKI_CERTIFICATE_REVOKED. Audited as `pki_download.create`.',
      tags: ['pki'],
      schema: { params: CertificateParams, body: DownloadCreate, response: { 201: DownloadCreated, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const b = req.body
          const created = await makeDownloadLink(c, trx, req.params.certificate_id, { format: b.format, passphrase: b.passphrase ?? null, hours: b.expires_in_hours ?? DEFAULT_HOURS, createdBy: req.actor?.id ?? null })
          await req.audit({ action: 'pki_download.create', resourceType: 'pki_certificate', resourceId: created.certificate_id, after: { ...created, token: undefined, path: undefined, url: undefined } }, trx)
          return created
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/public/cert-download/{token}',
      permission: PUBLIC,
      summary: 'Preview a one-time certificate download',
      description: 'What the link delivers (subject, issuer, validity, format, whether it carries a key); spends nothing. Unknown 404 PKI_DOWNLOAD_NOT_FOUND, used 410 PKI_DOWNLOAD_SPENT, expired 410 PKI_DOWNLOAD_EXPIRED.',
      tags: ['pki'],
      schema: { params: DownloadParams, response: { 200: DownloadPreview, 404: ErrorBody, 410: ErrorBody } },
      handler: async ({ params }) => {
        const row = await c.knex('pki_downloads').where({ token_hash: hashOf(params.token) }).first('certificate_id', 'format', 'includes_key', 'expires_at', 'spent_at')
        usable(row)
        const cert = (await c.knex('pki_certificates').where({ id: row!.certificate_id }).first('certificate', 'serial', 'subject', 'not_before', 'not_after'))!
        const issuer = new X509Certificate(cert.certificate).issuer.split('\n').reverse().join(',')
        const preview = { subject: cert.subject, issuer, serial: cert.serial, not_before: cert.not_before.toISOString(), not_after: cert.not_after.toISOString(), format: row!.format, includes_key: row!.includes_key, expires_at: row!.expires_at.toISOString() }
        return reply({ status: 200, body: preview, headers: { 'Cache-Control': 'no-store' } })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/public/cert-download/{token}',
      permission: PUBLIC,
      summary: 'Deliver a one-time certificate download',
      description: 'The bundle (`application/x-pkcs12` or `application/x-pem-file`, as an attachment); the link is spent and its bundle dropped in the same transaction, so a second POST answers 410 PKI_DOWNLOAD_SPENT. Audited as `pki_download.spend`.',
      tags: ['pki'],
      download: {
        mediaTypes: [MEDIA.pkcs12, MEDIA.pem],
        headers: {
          'Content-Disposition': { description: 'attachment; filename="<serial>.p12" or ".pem"', schema: Type.String(), required: true },
          'Cache-Control': { description: '`no-store`', schema: Type.Literal('no-store'), required: true },
        },
      },
      schema: { params: DownloadParams, response: { 200: 'file', 404: ErrorBody, 410: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          // The row lock makes two concurrent POSTs one delivery and one refusal.
          const row = await trx('pki_downloads').where({ token_hash: hashOf(req.params.token) }).forUpdate().first()
          usable(row)
          const link = row!
          await trx('pki_downloads').where({ id: link.id }).update({ spent_at: new Date(), sealed_bundle: null })
          const cert = (await trx('pki_certificates').where({ id: link.certificate_id }).first('serial'))!
          await req.audit({ action: 'pki_download.spend', resourceType: 'pki_certificate', resourceId: link.certificate_id, after: { download_id: link.id, format: link.format, includes_key: link.includes_key } }, trx)
          const body = Buffer.from(c.secrets.decrypt(BUNDLE_PURPOSE, link.sealed_bundle!), 'base64')
          const file = `${cert.serial}.${link.format === 'pkcs12' ? 'p12' : 'pem'}`
          return reply({ status: 200, body, contentType: MEDIA[link.format], headers: { 'Content-Disposition': `attachment; filename="${file}"`, 'Cache-Control': 'no-store' } })
        }),
    }),
  ]
}
