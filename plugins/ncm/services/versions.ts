/**
 * A tracked device's stored versions as readers see them: the masked text, and its size and hash
 * (never the raw text's: a reader without ncm.reveal must not learn anything of it, not even its
 * length), and the raw text for a caller holding ncm.reveal (opened from its seal).
 */
import { gunzipSync } from 'node:zlib'
import type { Knex } from 'knex'
import { NcmErrors, NcmReadSideErrors } from '../errors.js'
import type { NcmDeviceRow } from '../tables.js'
import type { NcmContext } from './context.js'
import { CONFIG_PURPOSE } from './ingest.js'

type Db = Knex | Knex.Transaction

/** A version with what readers may see of its blob. */
export interface StoredVersion {
  id: string
  device_id: string
  previous_id: string | null
  collector_id: string | null
  raw_sha256: string
  masked_sha256: string
  masked_bytes: number
  first_started_at: Date
  first_finished_at: Date
  last_seen_started_at: Date
  last_seen_at: Date
  seen_count: number
  fetch_ms: number
  added: number
  removed: number
  secrets_only: boolean
}

const iso = (d: Date | string) => new Date(d).toISOString()

/** The columns of StoredVersion, from `ncm_versions as v` joined to `ncm_blobs as b`. */
export const VERSION_COLUMNS = [
  'v.id',
  'v.device_id',
  'v.previous_id',
  'v.collector_id',
  'v.raw_sha256',
  'b.masked_sha256',
  'v.first_started_at',
  'v.first_finished_at',
  'v.last_seen_started_at',
  'v.last_seen_at',
  'v.seen_count',
  'v.fetch_ms',
  'v.added',
  'v.removed',
  'v.secrets_only',
] as const

export const versionsWithBlobs = (db: Db) =>
  db('ncm_versions as v')
    .join('ncm_blobs as b', (j) => j.on('b.device_id', 'v.device_id').andOn('b.raw_sha256', 'v.raw_sha256'))
    .select<StoredVersion[]>([...VERSION_COLUMNS, db.raw('octet_length(b.masked)::integer AS masked_bytes')])

/** The tracked device, or 404 NCM_DEVICE_NOT_FOUND at `device_id`. */
export async function trackedDevice(db: Db, deviceId: string): Promise<NcmDeviceRow> {
  const row = await db('ncm_devices').where({ device_id: deviceId }).first()
  if (!row) throw NcmErrors.deviceNotFound({ field: 'device_id' })
  return row
}

/** One of the device's versions, or 404 NCM_VERSION_NOT_FOUND at `field` (another device's version is not found either). */
export async function deviceVersion(db: Db, deviceId: string, versionId: string, field: string): Promise<StoredVersion> {
  const row = await versionsWithBlobs(db).where('v.device_id', deviceId).andWhere('v.id', versionId).first()
  if (!row) throw NcmReadSideErrors.versionNotFound({ field })
  return row
}

/** The text of a version: the masked copy, or with `reveal` the raw text opened from its seal. */
export async function versionText(c: NcmContext, db: Db, v: Pick<StoredVersion, 'device_id' | 'raw_sha256'>, reveal: boolean): Promise<string> {
  const blob = await db('ncm_blobs').where({ device_id: v.device_id, raw_sha256: v.raw_sha256 }).first(reveal ? 'sealed' : 'masked')
  if (!blob) throw new Error(`ncm: the blob of a stored version is missing (device ${v.device_id})`)
  if (!reveal) return (blob as { masked: string }).masked
  const sealed = (blob as { sealed: string }).sealed
  return gunzipSync(Buffer.from(c.secrets.decrypt(CONFIG_PURPOSE, sealed), 'base64')).toString('utf8')
}

/** A version as the API shows it: sizes and hashes of the masked text only. */
export const versionView = (v: StoredVersion, latestId: string | null) => ({
  id: v.id,
  device_id: v.device_id,
  previous_id: v.previous_id,
  collector_id: v.collector_id,
  latest: v.id === latestId,
  first_started_at: iso(v.first_started_at),
  first_finished_at: iso(v.first_finished_at),
  last_seen_started_at: iso(v.last_seen_started_at),
  last_seen_at: iso(v.last_seen_at),
  seen_count: v.seen_count,
  fetch_ms: v.fetch_ms,
  added: v.added,
  removed: v.removed,
  secrets_only: v.secrets_only,
  masked_size: Number(v.masked_bytes),
  masked_sha256: v.masked_sha256,
})
