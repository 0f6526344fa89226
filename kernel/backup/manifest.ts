/**
 * What an archive says about itself, in two sealed parts around the rows:
 *
 * - `manifest.json` (the first member) and its seal `manifest.sig`: where the
 *   archive comes from (app_version, the schema of every owner, the engine,
 *   the node, the time), the id of the master key that sealed the secrets,
 *   and the tables, partitions and sequences the rows belong to. A restore
 *   reads it before anything else, so a wrong key or another version is
 *   refused before a single row is written;
 * - `contents.json` (the last member) and its seal `contents.sig`: every
 *   member with its SHA-256 and each table's row count, bound to the manifest
 *   by the manifest's own SHA-256. A restore checks it after loading the rows,
 *   inside their transaction, and rolls everything back on any mismatch.
 *
 * Each seal is an HMAC-SHA256 of the part's exact bytes under a key derived
 * from the master key (purpose `backup-manifest`), with the part's name in
 * front so that one part's seal is never another's. The key itself is never
 * in the archive.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { deriveKey, keyCheckValue } from '../security/secrets.js'
import type { KdfParams } from '../security/unlock.js'

export const FORMAT = 'portcullis-backup'
export const FORMAT_VERSION = 1
export const MANIFEST = 'manifest.json'
export const MANIFEST_SEAL = 'manifest.sig'
export const CONTENTS = 'contents.json'
export const CONTENTS_SEAL = 'contents.sig'

export interface Manifest {
  format: typeof FORMAT
  format_version: number
  /** The platform version that made the archive (package.json, or SERVICE_VERSION). */
  app_version: string
  /** The last applied migration of the kernel and of each plugin: the schema the rows fit. */
  schema: Record<string, string | null>
  engine: 'postgres' | 'embedded'
  created_at: string
  node_id: string
  master_key: {
    /** The key check value (an HMAC of a fixed text under a key derived from the master key): names the key, reveals nothing of it. */
    id: string
    /** A passphrase's scrypt parameters and salt (as kernel_meta holds them), so that a restore derives the same key. */
    kdf: KdfParams | null
  }
  /** Every table in the order its rows follow (foreign-key order), with the columns of its COPY text; partitioned tables whole. */
  tables: { name: string; columns: string[] }[]
  /** Partitions as they were, so that every month's rows land in their own partition again. */
  partitions: { name: string; parent: string; bound: string }[]
  sequences: { name: string; last_value: number; is_called: boolean }[]
}

export interface Contents {
  /** SHA-256 of manifest.json: these contents belong to that manifest. */
  manifest_sha256: string
  /** Each table's row count and members, in the archive's order. */
  tables: { name: string; rows: number; members: string[] }[]
  /** SHA-256 (hex) of every data member. */
  checksums: Record<string, string>
}

export const keyId = (key: Buffer): string => keyCheckValue(key)

export function seal(key: Buffer, part: typeof MANIFEST | typeof CONTENTS, bytes: Buffer): string {
  return createHmac('sha256', deriveKey(key, 'backup-manifest')).update(`${part}\0`).update(bytes).digest('hex')
}

export function sealMatches(key: Buffer, part: typeof MANIFEST | typeof CONTENTS, bytes: Buffer, signature: Buffer): boolean {
  const want = Buffer.from(seal(key, part, bytes), 'hex')
  const got = Buffer.from(signature.toString('utf8').trim(), 'hex')
  return got.length === want.length && timingSafeEqual(got, want)
}

export const memberName = (table: string, n: number) => `data/${table}.${String(n).padStart(5, '0')}`

/** The table a data member belongs to and its number, or null for any other name. */
export function memberOf(name: string): { table: string; n: number } | null {
  const m = /^data\/(.+)\.(\d{5})$/.exec(name)
  return m ? { table: m[1], n: Number(m[2]) } : null
}
