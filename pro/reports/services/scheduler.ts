/**
 * Scheduled runs, on primary nodes only. Each definition's `next_run_at` is its next occurrence;
 * a node that finds it due takes the row FOR UPDATE, moves `next_run_at` to the first occurrence
 * after now and queues one run for the occurrence it took. The run's (definition, occurrence) is
 * unique, so two nodes on one database never both run an occurrence; occurrences missed while
 * every node was down become one run, not one each.
 *
 * The same timer prunes runs older than `reports.retention_days` (hourly) and fails runs a node
 * left behind when it died.
 */
import type { ReportDeps } from '../context.js'
import { reportRetentionDays, reportTimeBudget } from '../settings.js'
import type { DefinitionRow } from '../tables.js'
import { nextOccurrence } from './cron.js'
import type { Runner } from './runner.js'
import { queueRun } from './runs.js'

/** Timing, changed only by tests (a test seam: production polls every 15 s and prunes hourly). */
export const schedulerTiming = { pollMs: 15_000, pruneEveryMs: 3_600_000 }

const DUE_BATCH = 20
const PRUNE_BATCH = 200

export class Scheduler {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> = Promise.resolve()
  private stopped = false
  private lastPrune = 0

  constructor(
    private readonly d: ReportDeps,
    private readonly runner: Runner,
  ) {}

  start(): void {
    if (this.d.cluster.role !== 'primary') return
    const again = () => {
      this.timer = setTimeout(() => {
        this.running = this.tick().finally(() => {
          if (!this.stopped) again()
        })
      }, schedulerTiming.pollMs)
      this.timer.unref()
    }
    again()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.running
  }

  async tick(now = new Date()): Promise<void> {
    try {
      await this.fireDue(now)
      if (now.getTime() - this.lastPrune >= schedulerTiming.pruneEveryMs) {
        this.lastPrune = now.getTime()
        await prune(this.d, now)
      }
    } catch (e) {
      this.d.logger.warn({ err: (e as Error).message }, 'reports: the scheduler\'s pass failed; tried again at the next')
    }
  }

  /** Queues one run for each definition whose occurrence is due; returns the runs queued here. */
  async fireDue(now: Date): Promise<string[]> {
    const knex = this.d.database.knex
    const due = (await knex('reports_definitions').whereNotNull('schedule_cron').where('next_run_at', '<=', now).orderBy('next_run_at').limit(DUE_BATCH).pluck('id')) as string[]
    const queued: string[] = []
    for (const id of due) {
      if (this.stopped) break
      const runId = await this.d.database.transaction(async (trx) => {
        // SKIP LOCKED: a node that finds another taking this row goes on; that node moves next_run_at.
        const def = (await trx('reports_definitions').where({ id }).forUpdate().skipLocked().first()) as DefinitionRow | undefined
        if (!def || !def.schedule_cron || !def.next_run_at || new Date(def.next_run_at) > now) return null
        const occurrence = new Date(def.next_run_at)
        await trx('reports_definitions').where({ id }).update({ next_run_at: nextOccurrence(def.schedule_cron, def.time_zone, now) })
        const owner = def.owner_id ? await this.d.identity.findUser({ id: def.owner_id }, trx) : null
        const run = await queueRun(this.d, trx, def, { trigger: 'schedule', actor: owner ? { id: owner.id, username: owner.username } : null, scheduledFor: occurrence, now })
        return run?.id ?? null
      })
      if (runId) {
        queued.push(runId)
        this.runner.enqueue(runId)
      }
    }
    return queued
  }
}

/** Runs (with their files) queued before the retention period; runs still "running" long past any budget are failed as interrupted. */
export async function prune(d: ReportDeps, now: Date): Promise<number> {
  const knex = d.database.knex
  const days = await d.settings.get(reportRetentionDays)
  const cutoff = new Date(now.getTime() - days * 86_400_000)
  let removed = 0
  for (;;) {
    const ids = (await knex('reports_runs').where('queued_at', '<', cutoff).whereNotIn('state', ['queued', 'running']).limit(PRUNE_BATCH).pluck('id')) as string[]
    if (!ids.length) break
    removed += await knex('reports_runs').whereIn('id', ids).delete()
    if (ids.length < PRUNE_BATCH) break
  }
  const budget = await d.settings.get(reportTimeBudget)
  const stale = new Date(now.getTime() - (2 * budget + 3600) * 1000)
  await knex('reports_runs').whereIn('state', ['queued', 'running']).where('queued_at', '<', stale).update({ state: 'failed', error_code: 'REPORT_INTERRUPTED', finished_at: now })
  if (removed) d.logger.info({ removed, retention_days: days }, 'reports: runs past the retention removed')
  return removed
}
