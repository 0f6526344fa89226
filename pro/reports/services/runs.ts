/** Queuing a run and showing one: shared by "run now", the scheduler and the run routes. */
import type { Knex } from 'knex'
import type { ReportDeps } from '../context.js'
import type { Run } from '../schemas.js'
import { reportRowLimit } from '../settings.js'
import type { DefinitionRow, RunParameters, RunRow, RunTrigger } from '../tables.js'
import { resolveRange } from './time.js'

export interface QueueRequest {
  trigger: RunTrigger
  /** Whom it reads as: the caller, or the definition's owner for a schedule (null: the owner is gone; the run fails). */
  actor: { id: string; username: string } | null
  /** The occurrence a scheduled run is for. */
  scheduledFor: Date | null
  now: Date
}

/**
 * A queued run of `def` in `trx`, its parameters resolved now (a relative range ends at the moment
 * it is queued). Null when a run for that occurrence exists already (another node took it).
 */
export async function queueRun(d: ReportDeps, trx: Knex.Transaction, def: DefinitionRow, q: QueueRequest): Promise<RunRow | null> {
  const range = resolveRange(def.range_kind, { from: def.range_from, to: def.range_to }, q.now, def.time_zone)
  const parameters: RunParameters = {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    time_zone: def.time_zone,
    language: def.language,
    sources: def.sources,
    device_group_id: def.device_group_id,
    user_group_id: def.user_group_id,
    formats: def.formats,
    recipients: def.recipients,
    row_limit: await d.settings.get(reportRowLimit, trx),
  }
  const rows = (await trx('reports_runs')
    .insert({
      definition_id: def.id,
      trigger: q.trigger,
      actor_id: q.actor?.id ?? null,
      actor_name: q.actor?.username ?? null,
      scheduled_for: q.scheduledFor,
      node_id: d.cluster.nodeId,
      parameters,
      queued_at: q.now,
    })
    .onConflict(['definition_id', 'scheduled_for'])
    .ignore()
    .returning('*')) as RunRow[]
  return rows[0] ?? null
}

export type RunWithName = RunRow & { definition_name: string }

const iso = (x: Date | null) => (x ? new Date(x).toISOString() : null)

/** Runs as the API shows them, `explain` giving a failure's reason in the caller's language. */
export async function toRuns(db: Knex | Knex.Transaction, rows: RunWithName[], explain: (code: string, vars: Record<string, string>) => string): Promise<Run[]> {
  const files = rows.length
    ? ((await db('reports_files')
        .whereIn(
          'run_id',
          rows.map((r) => r.id),
        )
        .orderBy('format')
        .select('run_id', 'format', 'content_type', 'size')) as { run_id: string; format: Run['files'][number]['format']; content_type: string; size: number }[])
    : []
  return rows.map((r) => ({
    id: r.id,
    definition_id: r.definition_id,
    definition_name: r.definition_name,
    state: r.state,
    trigger: r.trigger,
    actor_id: r.actor_id,
    actor_name: r.actor_name,
    scheduled_for: iso(r.scheduled_for),
    parameters: r.parameters,
    row_counts: r.row_counts,
    truncated: r.truncated,
    error_code: r.error_code,
    error_detail: r.error_code ? explain(r.error_code, r.error_vars ?? {}) : null,
    mail_state: r.mail_state,
    mail_error: r.mail_error,
    files: files.filter((f) => f.run_id === r.id).map((f) => ({ format: f.format, content_type: f.content_type, size: Number(f.size) })),
    queued_at: new Date(r.queued_at).toISOString(),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
  }))
}

/** A download's file name: the report's name in safe characters, the run's time (UTC) and the format. */
export function fileName(reportName: string, at: Date, ext: string): string {
  const base =
    reportName
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .replace(/-{2,}/g, '-')
      .slice(0, 60) || 'report'
  const p = (n: number) => String(n).padStart(2, '0')
  const stamp = `${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}-${p(at.getUTCHours())}${p(at.getUTCMinutes())}`
  return `${base}-${stamp}.${ext}`
}
