/**
 * The diff of two stored versions of a device (sdk/text-diff.ts): masked texts, or raw with
 * ncm.reveal. By default the latest version against the one before it; the first version is diffed
 * against nothing (every line added).
 */
import { unifiedDiff } from '../../../sdk/index.js'
import { NcmReadSideErrors } from '../errors.js'
import type { NcmContext } from './context.js'
import { deviceVersion, trackedDevice, versionText, type StoredVersion } from './versions.js'

/** The most text one answer carries; past it the diff stops before a hunk and says `truncated`. */
export const DIFF_MAX_BYTES = 2 * 1024 * 1024

export interface DiffQuery {
  from?: string
  to?: string
  context?: number
  reveal: boolean
}

const label = (v: StoredVersion | null) => (v ? `version ${v.id} (${new Date(v.first_finished_at).toISOString()})` : '(no earlier version)')

export async function versionsDiff(c: NcmContext, deviceId: string, q: DiffQuery) {
  const db = c.database.knex
  const device = await trackedDevice(db, deviceId)
  const toId = q.to ?? device.latest_version_id
  if (!toId) throw NcmReadSideErrors.versionNotFound({ field: 'to' })
  const to = await deviceVersion(db, deviceId, toId, 'to')
  const fromId = q.from ?? to.previous_id
  const from = fromId ? await deviceVersion(db, deviceId, fromId, q.from ? 'from' : 'to') : null
  const a = from ? await versionText(c, db, from, q.reveal) : ''
  const b = await versionText(c, db, to, q.reveal)
  const d = unifiedDiff(a, b, { context: q.context ?? 3, maxBytes: DIFF_MAX_BYTES, fromLabel: label(from), toLabel: label(to) })
  return {
    from: from?.id ?? null,
    to: to.id,
    revealed: q.reveal,
    unified: d.unified,
    added: d.added,
    removed: d.removed,
    truncated: d.truncated,
    minimal: d.minimal,
    // The raw texts differ where the masked ones do not: only a secret changed.
    secrets_only: from !== null && from.raw_sha256 !== to.raw_sha256 && from.masked_sha256 === to.masked_sha256,
  }
}

/** The lines a change touched (removed or added), from a unified diff. */
export function changedLines(unified: string): string[] {
  const out: string[] = []
  const lines = unified.split('\n')
  // The two header lines first, then hunks: '@@', ' ' context, '-' / '+' changes, '\' markers.
  for (let i = 2; i < lines.length; i++) {
    const l = lines[i]
    if (l.startsWith('+') || l.startsWith('-')) out.push(l.slice(1))
  }
  return out
}
