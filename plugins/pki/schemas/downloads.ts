import { Nullable, StringEnum, Timestamp, Type, Uuid } from '../../../sdk/index.js'
import { LEAF_KEY_ALGORITHMS } from '../services/generate.js'
import { CaSubject } from './pki.js'

export const CertificateGenerate = Type.Object(
  {
    ca_id: Uuid(),
    template_id: Uuid(),
    key_algorithm: StringEnum(LEAF_KEY_ALGORITHMS, { description: 'The key generated on the server; it leaves only through one download link.' }),
    subject: CaSubject,
    san: Type.Optional(
      Type.Array(
        Type.Object(
          { type: StringEnum(['dns', 'ip', 'email', 'uri'] as const), value: Type.String({ minLength: 1, maxLength: 253, pattern: '^[\\x21-\\x7e]+$' }) },
          { additionalProperties: false },
        ),
        { maxItems: 20, description: 'Subject alternative names, held to the template like a CSR\'s.' },
      ),
    ),
  },
  { title: 'CertificateGenerate', additionalProperties: false },
)

export const DownloadCreate = Type.Object(
  {
    format: StringEnum(['pkcs12', 'pem'] as const, { description: '`pkcs12`: certificate, chain and key (when the server holds it) in one file; `pem`: the same as PEM, the key encrypted (PKCS#8).' }),
    passphrase: Type.Optional(
      Type.String({ minLength: 8, maxLength: 128, pattern: '^[\\x20-\\x7e]+$', description: 'Encrypts the key (and protects a PKCS#12 file). Required for `pkcs12` and for a bundle with a key. Never stored, never in the link: hand it to the recipient another way.' }),
    ),
    expires_in_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168, description: 'Default 72.' })),
  },
  { title: 'DownloadCreate', additionalProperties: false },
)

export const DownloadCreated = Type.Object(
  {
    id: Uuid(),
    certificate_id: Uuid(),
    token: Type.String({ description: 'Shown once; only its SHA-256 is stored.' }),
    path: Type.String({ description: '`/api/v1/public/cert-download/{token}`' }),
    url: Nullable(Type.String({ description: 'The path under `identity.public_url`, when set.' })),
    format: StringEnum(['pkcs12', 'pem'] as const),
    includes_key: Type.Boolean(),
    expires_at: Timestamp(),
  },
  { title: 'DownloadCreated' },
)

export const DownloadPreview = Type.Object(
  {
    subject: Type.String(),
    issuer: Type.String(),
    serial: Type.String(),
    not_before: Timestamp(),
    not_after: Timestamp(),
    format: StringEnum(['pkcs12', 'pem'] as const),
    includes_key: Type.Boolean(),
    expires_at: Timestamp(),
  },
  { title: 'DownloadPreview' },
)

export const DownloadParams = Type.Object({ token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]{43}$' }) }, { additionalProperties: false })
