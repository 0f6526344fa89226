/**
 * Device credentials: sealed with the master key (purpose ncm.credential), write-only through the
 * API (a reader sees `has_password`), opened only to be sealed again to one collector for one job.
 */
import type { Knex } from 'knex'
import type { DeviceCredential } from '../../../sdk/collector-protocol.js'
import type { SecretsService } from '../../../sdk/index.js'
import type { CredentialRow } from '../tables.js'

export const CREDENTIAL_PURPOSE = 'ncm.credential'
export const SECRET_FIELDS = ['password', 'private_key', 'passphrase', 'enable_secret'] as const
export type SecretField = (typeof SECRET_FIELDS)[number]

export const sealedColumn = (f: SecretField) => `${f}_sealed` as const

export interface CredentialView {
  id: string
  name: string
  description: string | null
  username: string
  auth: 'password' | 'private_key'
  has_password: boolean
  has_private_key: boolean
  has_passphrase: boolean
  has_enable_secret: boolean
  created_at: string
  updated_at: string
}

export const credentialView = (r: CredentialRow): CredentialView => ({
  id: r.id,
  name: r.name,
  description: r.description,
  username: r.username,
  auth: r.auth,
  has_password: r.password_sealed !== null,
  has_private_key: r.private_key_sealed !== null,
  has_passphrase: r.passphrase_sealed !== null,
  has_enable_secret: r.enable_secret_sealed !== null,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
})

/** The clear credential, for sealing to a collector and for masking its values in stored configurations. */
export async function openCredential(secrets: SecretsService, r: CredentialRow): Promise<DeviceCredential> {
  const out: DeviceCredential = { username: r.username }
  for (const f of SECRET_FIELDS) {
    const sealed = r[sealedColumn(f)]
    if (sealed !== null) out[f] = secrets.decrypt(CREDENTIAL_PURPOSE, sealed)
  }
  // Only what the login method uses travels.
  if (r.auth === 'password') {
    delete out.private_key
    delete out.passphrase
  } else delete out.password
  return out
}

export async function getCredential(db: Knex | Knex.Transaction, id: string): Promise<CredentialRow | null> {
  return (await db('ncm_credentials').where({ id }).first()) ?? null
}
