import { listQuery, Name, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid } from '../../../sdk/index.js'

export const CredentialParams = Type.Object({ credential_id: Uuid() }, { additionalProperties: false })

export const Credential = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    username: Type.String(),
    auth: StringEnum(['password', 'private_key'] as const),
    has_password: Type.Boolean(),
    has_private_key: Type.Boolean(),
    has_passphrase: Type.Boolean(),
    has_enable_secret: Type.Boolean(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'NcmCredential', additionalProperties: false },
)

export const CredentialList = Paginated(Credential, 'NcmCredentialList')
export const CredentialListQuery = listQuery({ maxPerPage: 500, defaultPerPage: 50, sortBy: ['name', 'created_at'] as const })

const Secret = (d: string) => Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 16384, description: `${d} Write-only; null clears it.` })))

const fields = {
  description: OptionalText({ maxLength: 500 }),
  password: Secret('The SSH password (auth `password`).'),
  private_key: Secret('An OpenSSH or PEM private key (auth `private_key`).'),
  passphrase: Secret("The private key's passphrase."),
  enable_secret: Secret('Answer to the profile\'s enable prompt.'),
}

export const CredentialCreate = Type.Object(
  {
    name: Name({ maxLength: 64 }),
    username: Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' }),
    auth: StringEnum(['password', 'private_key'] as const),
    ...fields,
  },
  { title: 'NcmCredentialCreate', additionalProperties: false },
)

export const CredentialUpdate = Type.Object(
  {
    name: Type.Optional(Name({ maxLength: 64 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' })),
    auth: Type.Optional(StringEnum(['password', 'private_key'] as const)),
    ...fields,
  },
  { title: 'NcmCredentialUpdate', additionalProperties: false, minProperties: 1 },
)
