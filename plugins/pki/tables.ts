/** The pki plugin's tables as its code reads them (sdk/tables.ts), checked against migrations/ at boot. */
import { column, defineTable, type TableType } from '../../sdk/index.js'
import type { ExtendedKeyUsage, KeyUsage } from './services/x509.js'
import type { SanType } from './services/csr.js'

export const CaTable = defineTable('pki_cas', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  parent_id: column.uuid().nullable(),
  kind: column.text<'root' | 'issuing'>(),
  key_algorithm: column.text(),
  subject: column.text(),
  serial: column.text(),
  certificate: column.text(),
  chain: column.text(),
  sealed_key: column.text(),
  imported: column.boolean(),
  not_before: column.timestamp(),
  not_after: column.timestamp(),
  crl_number: column.bigint().defaulted(),
  crl_der: column.bytea().nullable(),
  crl_this_update: column.timestamp().nullable(),
  crl_next_update: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
})

export const TemplateTable = defineTable('pki_templates', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  key_usage: column.jsonb<KeyUsage[]>(),
  extended_key_usage: column.jsonb<ExtendedKeyUsage[]>(),
  validity_days: column.integer(),
  name_patterns: column.jsonb<string[]>(),
  subject_attributes: column.jsonb<string[]>(),
  san_types: column.jsonb<SanType[]>(),
  min_rsa_bits: column.integer(),
  min_ec_bits: column.integer(),
  created_at: column.timestamp().defaulted(),
})

export const CertificateTable = defineTable('pki_certificates', {
  id: column.uuid().defaulted(),
  ca_id: column.uuid(),
  template_id: column.uuid().nullable(),
  serial: column.text(),
  subject: column.text(),
  san: column.text(),
  key_algorithm: column.text(),
  certificate: column.text(),
  not_before: column.timestamp(),
  not_after: column.timestamp(),
  revoked_at: column.timestamp().nullable(),
  revocation_reason: column.text().nullable(),
  issued_by: column.uuid().nullable(),
  created_at: column.timestamp().defaulted(),
})

export const CertificateKeyTable = defineTable('pki_certificate_keys', {
  certificate_id: column.uuid(),
  sealed_key: column.text(),
  created_at: column.timestamp().defaulted(),
})

export const DownloadTable = defineTable('pki_downloads', {
  id: column.uuid().defaulted(),
  certificate_id: column.uuid(),
  token_hash: column.text(),
  format: column.text<'pkcs12' | 'pem'>(),
  includes_key: column.boolean(),
  sealed_bundle: column.text().nullable(),
  expires_at: column.timestamp(),
  spent_at: column.timestamp().nullable(),
  created_by: column.uuid().nullable(),
  created_at: column.timestamp().defaulted(),
})

export const EstRequestTable = defineTable('pki_est_requests', {
  id: column.uuid().defaulted(),
  csr_hash: column.text(),
  csr_der: column.bytea(),
  requester: column.text(),
  requester_user_id: column.uuid().nullable(),
  renews_id: column.uuid().nullable(),
  subject: column.text(),
  san: column.text(),
  status: column.text<'pending' | 'approved' | 'rejected' | 'issued'>().defaulted(),
  certificate_id: column.uuid().nullable(),
  token_hash: column.text().nullable(),
  token_expires_at: column.timestamp().nullable(),
  decided_by: column.uuid().nullable(),
  decided_via: column.text().nullable(),
  decided_at: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
})

export const pkiTables = [CaTable, TemplateTable, CertificateTable, CertificateKeyTable, DownloadTable, EstRequestTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    pki_cas: TableType<typeof CaTable>
    pki_templates: TableType<typeof TemplateTable>
    pki_certificates: TableType<typeof CertificateTable>
    pki_certificate_keys: TableType<typeof CertificateKeyTable>
    pki_downloads: TableType<typeof DownloadTable>
    pki_est_requests: TableType<typeof EstRequestTable>
  }
}
