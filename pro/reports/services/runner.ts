/**
 * Making a run: re-check who it runs as, read each source through the log replica within the time
 * budget, render each format, store the files, mail them. One run at a time per node, in the
 * order queued: a report never takes more than one connection from log ingestion. Every failure
 * is recorded on the run with its code; nothing is thrown at the caller (the scheduler, a route).
 */
import { jsonText, type Actor, type ReportSection, type ReportSource } from '@portcullis/sdk'
import type { ReportDeps } from '../context.js'
import type { RunErrorCode } from '../errors.js'
import { REPORTS_READ } from '../permissions.js'
import type { RenderedFile, RenderedSection, ReportDocument } from '../render/document.js'
import { renderReport } from '../render/index.js'
import { reportTimeBudget } from '../settings.js'
import type { DefinitionRow, RowCount, RunParameters, RunRow } from '../tables.js'
import { mayUse } from './definitions.js'
import { mailRun } from './mail.js'
import { formatInZone } from './time.js'
import { localized, reportText } from './words.js'

export class RunFailure extends Error {
  constructor(
    readonly code: RunErrorCode,
    readonly vars: Record<string, string> = {},
  ) {
    super(code)
  }
}

const STOPPING = 'stopping'
const BUDGET = 'budget'

export class Runner {
  private readonly queue: string[] = []
  private running: Promise<void> = Promise.resolve()
  private busy = false
  private stopped = false
  private abort: AbortController | null = null

  constructor(private readonly d: ReportDeps) {}

  /** Runs this node left queued or running when it stopped: nobody makes them now. */
  async start(): Promise<void> {
    try {
      await this.d.database
        .knex('reports_runs')
        .where({ node_id: this.d.cluster.nodeId })
        .whereIn('state', ['queued', 'running'])
        .update({ state: 'failed', error_code: 'REPORT_INTERRUPTED', finished_at: new Date() })
    } catch (e) {
      this.d.logger.warn({ err: (e as Error).message }, 'reports: could not close the runs left by the previous start')
    }
  }

  enqueue(runId: string): void {
    if (this.stopped) return
    this.queue.push(runId)
    if (this.busy) return
    this.busy = true
    this.running = this.loop().finally(() => {
      this.busy = false
    })
  }

  /** Whatever is being read is aborted (its run recorded as cancelled); what is still queued stays queued and is failed as interrupted at the next start. */
  async stop(): Promise<void> {
    this.stopped = true
    this.abort?.abort(STOPPING)
    await this.running
  }

  /** Until nothing is queued or running here (tests). */
  async idle(): Promise<void> {
    while (this.busy) await this.running
  }

  private async loop(): Promise<void> {
    for (let id = this.queue.shift(); id !== undefined && !this.stopped; id = this.queue.shift()) {
      try {
        await this.execute(id)
      } catch (e) {
        this.d.logger.error({ err: e, run: id }, 'reports: a run could not be recorded')
      }
    }
  }

  private async execute(id: string): Promise<void> {
    const knex = this.d.database.knex
    const [run] = (await knex('reports_runs').where({ id, state: 'queued' }).update({ state: 'running', started_at: new Date() }).returning('*')) as RunRow[]
    if (!run) return
    const def = (await knex('reports_definitions').where({ id: run.definition_id }).first()) as DefinitionRow | undefined
    // Deleted meanwhile: its runs went with it.
    if (!def) return
    const p = run.parameters
    try {
      const actor = await this.actorOf(run)
      const sources = p.sources.map((sid) => {
        const s = this.d.sources.get(sid)
        if (!s) throw new RunFailure('REPORT_SOURCE_GONE', { source: sid })
        if (!mayUse(actor, s)) throw new RunFailure('REPORT_PERMISSION_LOST', { permission: s.permission })
        return s
      })
      const sections = await this.read(actor, p, sources)
      const doc = await this.document(def, p, sources, sections)
      const files: RenderedFile[] = []
      for (const format of p.formats) {
        try {
          files.push(await renderReport(doc, format))
        } catch (e) {
          this.d.logger.error({ err: e, run: id, format }, 'reports: rendering failed')
          throw new RunFailure('REPORT_RENDER_FAILED', { format })
        }
      }
      const counts: RowCount[] = sources.map((s, i) => ({ source: s.id, rows: sections[i].rows.length, total_rows: sections[i].totalRows, truncated: sections[i].truncated }))
      await knex.transaction(async (trx) => {
        for (const f of files) await trx('reports_files').insert({ run_id: id, format: f.extension, content_type: f.contentType, content: f.content, size: f.content.length })
        await trx('reports_runs')
          .where({ id })
          .update({ row_counts: jsonText(counts), truncated: counts.some((c) => c.truncated) })
      })
      // Done once the mail went out (or failed): whoever sees "done" sees how the mail went.
      const mailed = p.recipients.length ? await mailRun(this.d, { name: def.name, recipients: p.recipients, doc, files, at: new Date() }) : null
      await knex('reports_runs')
        .where({ id })
        .update({ state: 'done', mail_state: mailed ? (mailed.ok ? 'sent' : 'failed') : 'none', mail_error: mailed?.error ?? null, finished_at: new Date() })
    } catch (e) {
      const failure = e instanceof RunFailure ? e : new RunFailure('REPORT_SOURCE_FAILED', { source: '' })
      if (!(e instanceof RunFailure)) this.d.logger.error({ err: e, run: id }, 'reports: a run failed')
      const cancelled = this.stopped && failure.code === 'REPORT_INTERRUPTED'
      await knex('reports_runs')
        .where({ id })
        .update({ state: cancelled ? 'cancelled' : 'failed', error_code: failure.code, error_vars: failure.vars, finished_at: new Date() })
    }
  }

  /** The user the run reads as, as the permission gate sees them now: still active and holding reports.read. */
  private async actorOf(run: RunRow): Promise<Actor> {
    const actor = run.actor_id ? await this.d.identity.actorOf(run.actor_id) : null
    if (!actor) throw new RunFailure('REPORT_ACTOR_INACTIVE')
    if (!actor.isAdmin && !actor.permissions.has(REPORTS_READ)) throw new RunFailure('REPORT_PERMISSION_LOST', { permission: REPORTS_READ })
    return actor
  }

  /** Each source in turn, on the reader, within the time budget shared by all of them. */
  private async read(actor: Actor, p: RunParameters, sources: ReportSource[]): Promise<ReportSection[]> {
    const budget = await this.d.settings.get(reportTimeBudget)
    const ac = new AbortController()
    this.abort = ac
    const timer = setTimeout(() => ac.abort(BUDGET), budget * 1000)
    // A source that does not watch the signal is not waited for past the budget.
    const aborted = new Promise<never>((_resolve, reject) => ac.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }))
    aborted.catch(() => undefined)
    const out: ReportSection[] = []
    try {
      for (const s of sources) {
        const query = {
          from: new Date(p.from),
          to: new Date(p.to),
          deviceGroupId: s.filters.includes('device_group') ? p.device_group_id : null,
          userGroupId: s.filters.includes('user_group') ? p.user_group_id : null,
          rowLimit: p.row_limit,
          signal: ac.signal,
          actor,
        }
        try {
          const section = await Promise.race([this.d.database.read((reader) => s.run({ ...query, reader })), aborted])
          out.push(bounded(section, p.row_limit))
        } catch (e) {
          if (ac.signal.aborted) throw new RunFailure(ac.signal.reason === STOPPING ? 'REPORT_INTERRUPTED' : 'REPORT_TIME_BUDGET_SPENT')
          this.d.logger.error({ err: e, source: s.id }, 'reports: a source failed')
          throw new RunFailure('REPORT_SOURCE_FAILED', { source: s.id })
        }
      }
      return out
    } finally {
      clearTimeout(timer)
      this.abort = null
    }
  }

  private async document(def: DefinitionRow, p: RunParameters, sources: ReportSource[], sections: ReportSection[]): Promise<ReportDocument> {
    const lang = p.language
    const knex = this.d.database.knex
    const words = [reportText(lang, 'range', { from: formatInZone(new Date(p.from), p.time_zone), to: formatInZone(new Date(p.to), p.time_zone), zone: p.time_zone })]
    if (p.device_group_id && this.d.inventory) {
      const name = (await this.d.inventory.references.device_group.names([p.device_group_id], knex)).get(p.device_group_id)
      if (name) words.push(reportText(lang, 'device_group', { name }))
    }
    if (p.user_group_id) {
      const name = (await this.d.identity.references.user_group.names([p.user_group_id], knex)).get(p.user_group_id)
      if (name) words.push(reportText(lang, 'user_group', { name }))
    }
    const n = (x: number) => x.toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-US')
    const rendered: RenderedSection[] = sources.map((s, i) => {
      const sec = sections[i]
      const note = !sec.truncated
        ? null
        : sec.totalRows !== null
          ? reportText(lang, 'truncated', { limit: n(p.row_limit), total: n(sec.totalRows) })
          : reportText(lang, 'truncated_uncounted', { limit: n(p.row_limit) })
      return { ...sec, title: localized(s.title, lang), note }
    })
    return { title: def.name, subtitle: words.join('; '), generatedAt: new Date(), timeZone: p.time_zone, locale: lang, sections: rendered }
  }
}

/** A source that returns more rows than asked is held to the limit all the same. */
function bounded(s: ReportSection, limit: number): ReportSection {
  return s.rows.length > limit ? { ...s, rows: s.rows.slice(0, limit), truncated: true, totalRows: s.totalRows ?? s.rows.length } : s
}
