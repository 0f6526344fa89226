/**
 * The archive's manifest: what it holds and where it comes from, sealed with
 * a key derived from the master key. The seal is an HMAC of the manifest's
 * exact bytes (member `manifest.sig`), so a changed manifest, or a changed
 * member whose new checksum was written into it, is refused; and the key id
 * tells a wrong master key apart from a tampered archive before anything is
 * written. The key itself is never in the archive.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { deriveKey, keyCheckValue } from '../security/secrets.js'
import type { KdfParams } from '../security/unlock.js'

export const FORMAT = 'portcullis-backup'
export const FORMAT_VERSION = 1
export const MANIFEST = 'manifest.json'
export const SIGNATURE = 'manifest.sig'

export interface TableEntry {
  name: string
  /** The columns in the order of the members' COPY text. */
  columns: string[]
  rows: number
  /** Its members, in order (`data/<table>.<n>`); none for an empty table. */
  members: string[]
}

export interface Manifest {
  format: typeof FORMAT
  format_version: number
  /** The platform version that made the archive (package.json, or SERVICE_VERSION). */
  app_version: string
  /** The last applied migration of the kernel and of each plugin: the schema the data fits. */
  schema: Record<string, string | null>
  engine: 'postgres' | 'embedded'
  created_at: string
  node_id: string
  master_key: {
    /** The key check value (HMAC of a fixed text under a key derived from the master key): names the key, reveals nothing of it. */
    id: string
    /** A passphrase's scrypt parameters and salt (as kernel_meta holds them), so a restore derives the same key. */
    kdf: KdfParams | null
  }
  /** Every table, partitioned parents whole (their partitions are not members of their own). */
  tables: TableEntry[]
  /** Partitions as they were, so that every month's rows land in their own partition again. */
  partitions: { name: string; parent: string; bound: string }[]
  sequences: { name: string; last_value: number; is_called: boolean }[]
  /** SHA-256 (hex) of every member but the manifest and its seal. */
  checksums: Record<string, string>
}

export const keyId = (key: Buffer): string => keyCheckValue(key)

export function seal(key: Buffer, manifestBytes: Buffer): string {
  return createHmac('sha256', deriveKey(key, 'backup-manifest')).update(manifestBytes).digest('hex')
}

export function sealMatches(key: Buffer, manifestBytes: Buffer, signature: string): boolean {
  const want = Buffer.from(seal(key, manifestBytes), 'hex')
  const got = Buffer.from(signature.trim(), 'hex')
  return got.length === want.length && timingSafeEqual(got, want)
}

export const memberName = (table: string, n: number) => `data/${table}.${String(n).padStart(5, '0')}`
