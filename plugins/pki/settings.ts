/** The plugin's settings (`PUT /api/v1/settings/{key}`). */
import type { Knex } from 'knex'
import { defineSetting, Nullable, Type } from '../../sdk/index.js'
import { PkiErrors } from './errors.js'

/** Each id must be a CA of the platform (422 PKI_CA_NOT_FOUND at `value`, or `value[i]` in a list). */
const casExist = async (ids: readonly string[], db: Knex.Transaction, field: (i: number) => string) => {
  if (!ids.length) return
  const found = new Set((await db('pki_cas').whereIn('id', [...ids]).select('id')).map((r: { id: string }) => r.id))
  const i = ids.findIndex((id) => !found.has(id))
  if (i >= 0) throw PkiErrors.caNotFound({ field: field(i) })
}

export const crlValidityHours = defineSetting(
  'pki.crl_validity_hours',
  Type.Integer({ minimum: 1, maximum: 720 }),
  168,
  'How long each CRL is valid (nextUpdate - thisUpdate), in hours. A new CRL is made at every revocation, and by the schedule once less than half of this is left.',
  // A longer CRL life keeps a revocation unseen longer by relying parties that cache.
  { security: true },
)

// EST (RFC 7030) answers only while all of these are set; else its routes answer 404.
export const estEnabled = defineSetting('nac.est_enabled', Type.Boolean(), false, 'Serve EST (RFC 7030) at /.well-known/est/: cacerts, csrattrs, simpleenroll. Also needs pki.est_ca_id, pki.est_template_id and pki.est_group_id.', { security: true })
export const estCaId = defineSetting('pki.est_ca_id', Nullable(Type.String({ format: 'uuid' })), null, 'The CA that EST enrollments are issued by (and whose chain cacerts answers).', { security: true })
export const estTemplateId = defineSetting('pki.est_template_id', Nullable(Type.String({ format: 'uuid' })), null, 'The template every EST enrollment is held to.', { security: true })
export const estGroupId = defineSetting(
  'pki.est_group_id',
  Nullable(Type.String({ format: 'uuid' })),
  null,
  'The user group whose members may enroll over EST with HTTP Basic (their local password, checked by argon2id; a directory-only account is refused). Nobody else may: enrolling grants no permission of its own.',
  { security: true },
)

export const estMtlsProxySecret = defineSetting(
  'nac.est_mtls_proxy_secret',
  Nullable(Type.String({ minLength: 32, maxLength: 256 })),
  null,
  'Shared secret the mutual-TLS front end sends in X-Est-Proxy-Key: only then are its X-SSL-Client-Verify, -S-DN and -Serial headers believed. Null: mutual TLS is not deployed and those headers are ignored. Write-only, sealed at rest.',
  { secret: true },
)

export const estApprovalRequired = defineSetting(
  'pki.est_approval_required',
  Type.Boolean(),
  false,
  'EST enrollments wait for a person: the client gets 202 with Retry-After until the request is approved (the mailed one-time link, or the API), then the certificate on its next poll with the same CSR.',
  { security: true },
)
export const estApproverEmail = defineSetting('pki.est_approver_email', Nullable(Type.String({ maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' })), null, 'Where the approval link of each held EST enrollment is mailed; null: decide through the API only.', { security: true })

export const freeradiusCaId = defineSetting(
  'pki.freeradius_ca_id',
  Nullable(Type.String({ format: 'uuid' })),
  null,
  'The CA FreeRADIUS trusts for EAP-TLS client certificates, exactly (a certificate it signed itself, not one of a CA above or beside it): every FreeRADIUS release carries its chain and CRLs (certs/portcullis/ca.pem, crl.pem). Null: EAP-TLS trusts no certificate.',
  { security: true, check: (id, db) => casExist(id ? [id] : [], db, () => 'value') },
)

/** More CAs trusted exactly like pki.freeradius_ca_id: moving clients from one CA to another without a flag day. */
export const freeradiusExtraCaIds = defineSetting(
  'pki.freeradius_extra_ca_ids',
  Type.Array(Type.String({ format: 'uuid' }), { maxItems: 16, uniqueItems: true }),
  [],
  'More CAs FreeRADIUS trusts for EAP-TLS client certificates, each exactly like pki.freeradius_ca_id (their chains and CRLs go into the same trust file). Only while pki.freeradius_ca_id is set: without it EAP-TLS trusts no certificate. At most 16.',
  { security: true, check: (ids, db) => casExist(ids, db, (i) => `value[${i}]`) },
)

export const pkiSettings = [freeradiusCaId, freeradiusExtraCaIds, crlValidityHours, estEnabled, estCaId, estTemplateId, estGroupId, estMtlsProxySecret, estApprovalRequired, estApproverEmail]
