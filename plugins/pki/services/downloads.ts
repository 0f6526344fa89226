/**
 * A certificate whose key the server made, and its one-time download link (routes/downloads.ts
 * describes both): shared by the API's generate and download-link routes and by the service's
 * issueUserCertificate, so a key leaves the server the one way, whoever asked for it.
 */
import { createHash, createPrivateKey, randomBytes, type KeyObject } from 'node:crypto'
import type { Knex } from 'knex'
import { identitySettingRefs, orNotFound, type SecretsService, type SettingsService } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import type { issue } from './issue.js'
import { pemBlocks } from './der.js'
import { pemBundle, pkcs12 } from './pkcs12.js'

export const KEY_PURPOSE = 'pki.certificate_key'
export const BUNDLE_PURPOSE = 'pki.download_bundle'
export const DEFAULT_HOURS = 72
export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')
export const MEDIA = { pkcs12: 'application/x-pkcs12', pem: 'application/x-pem-file' } as const

interface Deps {
  secrets: SecretsService
  settings: SettingsService
}

/** Records an issued certificate with its server-made key, sealed until a download link takes it. */
export async function storeWithServerKey(c: Deps, trx: Knex.Transaction, issued: ReturnType<typeof issue>['row'], key: KeyObject, issuedBy: string | null) {
  const [row] = await trx('pki_certificates').insert({ ...issued, issued_by: issuedBy }).returning('*')
  await trx('pki_certificate_keys').insert({ certificate_id: row.id, sealed_key: c.secrets.encrypt(KEY_PURPOSE, key.export({ type: 'pkcs8', format: 'pem' }) as string) })
  return row
}

export interface DownloadLinkCreated {
  id: string
  certificate_id: string
  token: string
  path: string
  url: string | null
  format: 'pkcs12' | 'pem'
  includes_key: boolean
  expires_at: string
}

/**
 * Makes the bundle now (the key, when the server holds it, goes into it and nowhere else stays),
 * sealed, behind a random token kept as its SHA-256. 404 for no such certificate, 409 for a
 * revoked one, 422 PKI_PASSPHRASE_REQUIRED for a PKCS#12 or a key without a passphrase.
 */
export async function makeDownloadLink(
  c: Deps,
  trx: Knex.Transaction,
  certificateId: string,
  o: { format: 'pkcs12' | 'pem'; passphrase: string | null; hours: number; createdBy: string | null },
): Promise<DownloadLinkCreated> {
  const cert = orNotFound(await trx('pki_certificates').where({ id: certificateId }).forUpdate().first(), 'certificate_id')
  if (cert.revoked_at) throw PkiErrors.alreadyRevoked({ field: 'certificate_id' })
  const sealedKey = (await trx('pki_certificate_keys').where({ certificate_id: cert.id }).first('sealed_key'))?.sealed_key ?? null
  if (!o.passphrase && (o.format === 'pkcs12' || sealedKey)) throw PkiErrors.passphraseRequired({ field: 'passphrase' })
  // A certificate's CA is never deleted (a foreign key holds it).
  const ca = (await trx('pki_cas').where({ id: cert.ca_id }).first('certificate', 'chain'))!
  const bundle = {
    certificateDer: pemBlocks(cert.certificate, 'CERTIFICATE')[0],
    chainDer: pemBlocks(ca.certificate + ca.chain, 'CERTIFICATE'),
    key: sealedKey ? createPrivateKey(c.secrets.decrypt(KEY_PURPOSE, sealedKey)) : null,
  }
  const bytes = o.format === 'pkcs12' ? pkcs12(bundle, o.passphrase!) : Buffer.from(pemBundle(bundle, o.passphrase))
  const token = randomBytes(32).toString('base64url')
  const expiresAt = new Date(Date.now() + o.hours * 3_600_000)
  const [row] = await trx('pki_downloads')
    .insert({ certificate_id: cert.id, token_hash: hashOf(token), format: o.format, includes_key: sealedKey !== null, sealed_bundle: c.secrets.encrypt(BUNDLE_PURPOSE, bytes.toString('base64')), expires_at: expiresAt, created_by: o.createdBy })
    .returning(['id', 'format', 'includes_key', 'expires_at'])
  // The key went into the bundle: no other copy stays.
  if (sealedKey) await trx('pki_certificate_keys').where({ certificate_id: cert.id }).delete()
  const base = (await c.settings.get(identitySettingRefs.publicUrl, trx))?.replace(/\/+$/, '')
  const path = `/api/v1/public/cert-download/${token}`
  return { id: row.id, certificate_id: cert.id, token, path, url: base ? base + path : null, format: row.format, includes_key: row.includes_key, expires_at: row.expires_at.toISOString() }
}
