import { listQuery, NAME_PATTERN, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid } from '../../../sdk/index.js'
import { CA_KEY_ALGORITHMS } from '../services/ca.js'
import { REVOCATION_REASONS } from '../services/crl.js'
import { EKU, KEY_USAGE_BITS } from '../services/x509.js'

/** A PEM CSR of a 4096-bit RSA key with a few names is under 2 KiB; 16 KiB leaves room and bounds the parser. */
export const MAX_CSR_CHARS = 16_384

const name = () => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'Unique, case-insensitively. Letters, digits, ".", "_", "-".' })
// As names: no control, line-break or direction character (NAME_PATTERN), within RFC 5280's upper bounds.
const dn = (max: number, description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: max, pattern: NAME_PATTERN, description }))

export const CaSubject = Type.Object(
  {
    CN: Type.String({ minLength: 1, maxLength: 64, pattern: NAME_PATTERN, description: 'Common name.' }),
    O: dn(64, 'Organization.'),
    OU: dn(64, 'Organizational unit.'),
    C: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'Country, two capital letters (ISO 3166).' })),
    ST: dn(128, 'State or province.'),
    L: dn(128, 'Locality.'),
  },
  { title: 'CaSubject', additionalProperties: false },
)

export const CaCreate = Type.Object(
  {
    name: name(),
    subject: CaSubject,
    key_algorithm: StringEnum(CA_KEY_ALGORITHMS, { description: 'The key generated for the CA, on the server; it never leaves it.' }),
    validity_days: Type.Integer({ minimum: 1, maximum: 36_500, description: 'Validity from now; an issuing CA ends no later than its root.' }),
    parent_id: Type.Optional(Nullable(Uuid({ description: 'A root CA made here signs this issuing CA; absent or null: a self-signed root.' }))),
  },
  { title: 'CaCreate', additionalProperties: false },
)

export const CaImport = Type.Object(
  {
    name: name(),
    certificate_chain: Type.String({ minLength: 1, maxLength: 65_536, description: 'PEM: the CA certificate first, then each issuer up to the self-signed root.' }),
    private_key: Type.String({ minLength: 1, maxLength: 16_384, description: 'PEM, unencrypted (PKCS#8, PKCS#1 or SEC 1): the key of the first certificate. Sealed at once; never answered.' }),
  },
  { title: 'CaImport', additionalProperties: false },
)

export const CaResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    kind: StringEnum(['root', 'issuing'] as const),
    parent_id: Nullable(Uuid()),
    key_algorithm: Type.String(),
    subject: Type.String({ description: 'RFC 4514.' }),
    serial: Type.String({ description: 'Upper-case hex.' }),
    fingerprint_sha256: Type.String({ description: 'SHA-256 of the certificate (DER), `AB:CD:…`, as `openssl x509 -fingerprint -sha256` prints it.' }),
    not_before: Timestamp(),
    not_after: Timestamp(),
    imported: Type.Boolean(),
    certificate: Type.String({ description: 'PEM.' }),
    chain: Type.String({ description: 'PEM: the certificates above this CA up to the root; empty for a root.' }),
    crl_number: Type.Integer({ description: 'Number of the current CRL (0 before the first).' }),
    crl_next_update: Nullable(Timestamp()),
    created_at: Timestamp(),
  },
  { title: 'CaResponse' },
)

export const CaListResponse = Type.Array(CaResponse, { title: 'CaListResponse' })
export const CaParams = Type.Object({ ca_id: Uuid() }, { additionalProperties: false })

export const TemplateCreate = Type.Object(
  {
    name: name(),
    description: OptionalText({ maxLength: 500 }),
    key_usage: Type.Array(StringEnum(KEY_USAGE_BITS.filter((k) => k !== 'keyCertSign' && k !== 'cRLSign')), { minItems: 1, maxItems: 5, uniqueItems: true, description: 'RFC 5280 key usage of the end-entity certificate (critical).' }),
    extended_key_usage: Type.Array(StringEnum(Object.keys(EKU) as (keyof typeof EKU)[]), { maxItems: 2, uniqueItems: true }),
    validity_days: Type.Integer({ minimum: 1, maximum: 3650, description: 'Cut to the CA\'s own end.' }),
    name_patterns: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1, maxItems: 50, description: 'The common name and every DNS name must match one: `radius.example.net` or `alice_smith` (that name), `*.example.net` (one or more labels), `*@corp.example` (any user name at that domain), `*` (any name). Letters, digits and `. _ @ -`: a common name may be any user name (EAP-TLS takes it as the user); a DNS name stays a DNS name.' }),
    subject_attributes: Type.Array(StringEnum(['CN', 'O', 'OU', 'C', 'ST', 'L', 'emailAddress', 'serialNumber'] as const), { minItems: 1, maxItems: 8, uniqueItems: true, description: 'Subject attributes a request may carry; any other is refused.' }),
    san_types: Type.Array(StringEnum(['dns', 'ip', 'email', 'uri'] as const), { maxItems: 4, uniqueItems: true, description: 'Subject alternative name types a request may carry.' }),
    min_rsa_bits: Type.Integer({ minimum: 2048, maximum: 16_384, description: 'Weakest RSA key accepted.' }),
    min_ec_bits: Type.Integer({ minimum: 256, maximum: 521, description: 'Weakest ECDSA curve accepted, by size (256, 384, 521).' }),
  },
  { title: 'TemplateCreate', additionalProperties: false },
)

export const TemplateResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    key_usage: Type.Array(Type.String()),
    extended_key_usage: Type.Array(Type.String()),
    validity_days: Type.Integer(),
    name_patterns: Type.Array(Type.String()),
    subject_attributes: Type.Array(Type.String()),
    san_types: Type.Array(Type.String()),
    min_rsa_bits: Type.Integer(),
    min_ec_bits: Type.Integer(),
    created_at: Timestamp(),
  },
  { title: 'TemplateResponse' },
)
export const TemplateListResponse = Type.Array(TemplateResponse, { title: 'TemplateListResponse' })
export const TemplateParams = Type.Object({ template_id: Uuid() }, { additionalProperties: false })

export const CertificateIssue = Type.Object(
  {
    ca_id: Uuid(),
    template_id: Uuid(),
    csr: Type.String({ minLength: 1, maxLength: MAX_CSR_CHARS, description: 'PKCS#10, PEM ("CERTIFICATE REQUEST"). Its signature is checked; only its subject, key and subjectAltName are used.' }),
  },
  { title: 'CertificateIssue', additionalProperties: false },
)

export const CERT_STATUSES = ['valid', 'revoked', 'expired'] as const
export const CertificateResponse = Type.Object(
  {
    id: Uuid(),
    ca_id: Uuid(),
    template_id: Nullable(Uuid()),
    serial: Type.String({ description: 'Upper-case hex, as `openssl x509 -serial` prints it.' }),
    subject: Type.String(),
    san: Type.String({ description: '`DNS:a, IP:10.0.0.1`' }),
    key_algorithm: Type.String(),
    status: StringEnum(CERT_STATUSES),
    not_before: Timestamp(),
    not_after: Timestamp(),
    revoked_at: Nullable(Timestamp()),
    revocation_reason: Nullable(Type.String()),
    certificate: Type.String({ description: 'PEM.' }),
    fingerprint_sha256: Type.String({ description: 'SHA-256 of the certificate (DER), `AB:CD:…`.' }),
    created_at: Timestamp(),
  },
  { title: 'CertificateResponse' },
)

export const CertificateListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['created_at', 'not_after', 'subject'] as const,
  defaultSortOrder: 'desc',
  filters: {
    ca_id: Type.Optional(Uuid()),
    template_id: Type.Optional(Uuid()),
    status: Type.Optional(StringEnum(CERT_STATUSES)),
    expires_before: Type.Optional(Timestamp({ description: 'Only certificates whose not_after is at or before this time.' })),
  },
})
export const CertificateListResponse = Paginated(CertificateResponse, 'CertificateListResponse')
export const CertificateParams = Type.Object({ certificate_id: Uuid() }, { additionalProperties: false })

export const CertificateRevoke = Type.Object(
  { reason: StringEnum(Object.keys(REVOCATION_REASONS) as (keyof typeof REVOCATION_REASONS)[], { description: 'RFC 5280 5.3.1 reason code. certificateHold is not offered: revocation here is final.' }) },
  { title: 'CertificateRevoke', additionalProperties: false },
)
