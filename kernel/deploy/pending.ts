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
 * only the active rows are read again. Any committed write anywhere (log ingestion included)
 * changes the snapshot and costs one render; concurrent polls share that render.
 */
import type { Knex } from 'knex'
import type { PendingDaemon } from '../../sdk/index.js'

/** One rendered file as the pending comparison needs it. */
export interface RenderedHash {
  path: string
  sha256: string
  mode: string
}

export interface RenderedState {
  /** `pg_current_snapshot()` of the render's repeatable-read transaction. */
  snapshot: string
  daemons: Map<string, RenderedHash[]>
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

const same = (a: readonly RenderedHash[], b: readonly RenderedHash[]): boolean => {
  if (a.length !== b.length) return false
  const byPath = new Map(b.map((f) => [f.path, f]))
  return a.every((f) => {
    const o = byPath.get(f.path)
    return o !== undefined && o.sha256 === f.sha256 && o.mode === f.mode
  })
}

export class PendingTracker {
  private cached: RenderedState | null = null
  private inflight: Promise<RenderedState> | null = null
  /** Renders since start (the benchmark and the tests read it: a cache hit renders nothing). */
  renders = 0

  constructor(private readonly d: { knex: Knex; render: () => Promise<RenderedState> }) {}

  private async rendered(): Promise<RenderedState> {
    const now = await currentSnapshot(this.d.knex)
    if (this.cached?.snapshot === now) return this.cached
    if (!this.inflight) {
      this.inflight = this.d
        .render()
        .then((s) => {
          this.renders++
          this.cached = s
          return s
        })
        .finally(() => {
          this.inflight = null
        })
    }
    return this.inflight
  }

  async status(): Promise<PendingDaemon[]> {
    const state = await this.rendered()
    const rows = (await this.d.knex('deploys').where({ status: 'active' }).select('daemon', 'id', 'release', 'activated_at', 'created_at', 'files')) as ActiveRow[]
    const active = new Map(rows.map((r) => [r.daemon, r]))
    // The daemons some renderer writes: a deploy changes nothing else.
    const names = [...state.daemons.keys()].sort()
    return names.map((daemon): PendingDaemon => {
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
  }
}
