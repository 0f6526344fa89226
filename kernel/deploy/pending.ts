/**
 * Changes not yet deployed: for each daemon, whether what a deploy would render now differs
 * from the files of its active release (the deploys row marked active, cluster-wide).
 *
 * Correct before cheap: the answer compares the rendered files themselves (sha256 and the mode
 * the release would get) with the active release's file records, so a change that renders
 * identically (edited and put back, a rename of something no file names) is not pending, and a
 * change to anything a renderer reads (rows, settings) is.
 *
 * Cheap when nothing changed: a render is keyed by the database snapshot it read
 * (`pg_current_snapshot()`: the same xmin, xmax and in-progress list see exactly the same
 * committed data, every table and setting alike). A poll first asks the database for the
 * current snapshot (one round trip); while it is the cached one, the cached hashes answer and
 * only the active rows are read again.
 *
 * Any committed write anywhere changes the snapshot, log ingestion and sign-ins included, which
 * on a busy server is every poll; a render of a large policy takes seconds. So a changed snapshot
 * renders again at once only when the audit log moved (every change through the API or the
 * command line records a row, in the same transaction as the change), and otherwise once the
 * cached render is `maxAgeMs` old (30 s): a write that is not audited shows within that time.
 * Concurrent polls share one render. `checked_at` says when the answer was rendered.
 */
import type { Knex } from 'knex'
import type { PendingDaemon, PendingState, RenderedFile } from '../../sdk/index.js'
import { onDiskMode } from './account.js'
import { modeString, safeRelative, sha256 } from './files.js'

/** One rendered file as the pending comparison needs it. */
export interface RenderedHash {
  path: string
  sha256: string
  mode: string
}

export interface RenderedState {
  /** `pg_current_snapshot()` of the render's repeatable-read transaction. */
  snapshot: string
  /** `auditMark()` in the same transaction. */
  audit: string
  daemons: Map<string, RenderedHash[]>
}

interface Cached extends RenderedState {
  at: number
}

interface ActiveRow {
  daemon: string
  id: string
  release: string
  activated_at: Date | string | null
  created_at: Date | string
  files: RenderedHash[] | string
}

export const currentSnapshot = async (db: Knex | Knex.Transaction): Promise<string> => {
  const r = await db.raw<{ rows: { s: string }[] }>('select pg_current_snapshot()::text as s')
  return r.rows[0].s
}

/**
 * Where the audit log stands: its newest row and the rows of the five minutes before it (a
 * change whose transaction started earlier but committed later still moves the count). Both
 * from the index on `at`.
 */
export const auditMark = async (db: Knex | Knex.Transaction): Promise<string> => {
  const r = await db.raw<{ rows: { top: string | null; n: string | number }[] }>(
    "with m as (select max(at) as top from audit_log) select m.top::text as top, (select count(*) from audit_log a where a.at > m.top - interval '5 minutes') as n from m",
  )
  return `${r.rows[0].top ?? '-'}|${r.rows[0].n}`
}

const same = (a: readonly RenderedHash[], b: readonly RenderedHash[]): boolean => {
  if (a.length !== b.length) return false
  const byPath = new Map(b.map((f) => [f.path, f]))
  return a.every((f) => {
    const o = byPath.get(f.path)
    return o !== undefined && o.sha256 === f.sha256 && o.mode === f.mode
  })
}

export class PendingTracker {
  private cached: Cached | null = null
  private inflight: Promise<Cached> | null = null
  /** Renders since start (the benchmark and the tests read it: a cache hit renders nothing). */
  renders = 0

  private readonly maxAgeMs: number

  constructor(private readonly d: { knex: Knex; render: () => Promise<RenderedState>; maxAgeMs?: number }) {
    this.maxAgeMs = d.maxAgeMs ?? 30_000
  }

  private async rendered(): Promise<Cached> {
    const c = this.cached
    if (c) {
      if (c.snapshot === (await currentSnapshot(this.d.knex))) return c
      // Written since, but nothing audited: noise (logs, sessions) until the render is maxAgeMs old.
      if (Date.now() - c.at < this.maxAgeMs && c.audit === (await auditMark(this.d.knex))) return c
    }
    if (!this.inflight) {
      const at = Date.now()
      this.inflight = this.d
        .render()
        .then((s) => {
          this.renders++
          this.cached = { ...s, at }
          return this.cached
        })
        .finally(() => {
          this.inflight = null
        })
    }
    return this.inflight
  }

  async status(): Promise<PendingState> {
    const state = await this.rendered()
    const rows = (await this.d.knex('deploys').where({ status: 'active' }).select('daemon', 'id', 'release', 'activated_at', 'created_at', 'files')) as ActiveRow[]
    const active = new Map(rows.map((r) => [r.daemon, r]))
    // The daemons some renderer writes: a deploy changes nothing else.
    const names = [...state.daemons.keys()].sort()
    const daemons = names.map((daemon): PendingDaemon => {
      const row = active.get(daemon)
      const files = state.daemons.get(daemon) ?? []
      const deployed = row ? (typeof row.files === 'string' ? (JSON.parse(row.files) as RenderedHash[]) : row.files) : null
      return {
        daemon,
        // Nothing deployed yet: a deploy would change it.
        pending: !deployed || !same(files, deployed),
        active_release: row?.release ?? null,
        deploy_id: row?.id ?? null,
        deployed_at: row ? new Date(row.activated_at ?? row.created_at).toISOString() : null,
      }
    })
    return { checked_at: new Date(state.at).toISOString(), daemons }
  }
}

/** What a deploy would write of these files, as the active release's records hold them: path, sha256 and mode (with the daemon's group or not). */
export function renderedHashes(files: readonly RenderedFile[], group: boolean): RenderedHash[] {
  return files.map((f) => ({ path: safeRelative(f.path), sha256: sha256(f.content), mode: modeString(onDiskMode(f.mode, group)) }))
}
