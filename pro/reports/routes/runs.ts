/** Runs: run now, the history, one run, its files (docs/reports.md, "Runs"). */
import { CommonErrors, defineRoute, ErrorBody, listQuery, paginate, Paginated, reply, StringEnum, Type, Uuid, type RouteRequest } from '@portcullis/sdk'
import type { ReportDeps } from '../context.js'
import { ReportErrors } from '../errors.js'
import { REPORTS_READ, REPORTS_WRITE } from '../permissions.js'
import { DefinitionParams, FileParams, RUN_STATES, RunParams, RunResponse } from '../schemas.js'
import { maysee, visibleTo } from '../services/definitions.js'
import type { Runner } from '../services/runner.js'
import { fileName, queueRun, toRuns, type RunWithName } from '../services/runs.js'
import { visibleDefinition } from './definitions.js'

const RunListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['queued_at', 'finished_at'] as const,
  defaultSortOrder: 'desc',
  filters: { definition_id: Type.Optional(Uuid()), state: Type.Optional(StringEnum(RUN_STATES)) },
})

const MEDIA = ['application/pdf', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/html; charset=utf-8'] as const

export function runRoutes(d: ReportDeps, runner: Runner) {
  const knex = d.database.knex
  const runs = () => knex('reports_runs as r').join('reports_definitions as d', 'd.id', 'r.definition_id').select('r.*', 'd.name as definition_name')
  const explain = (req: Pick<RouteRequest<unknown, unknown, unknown>, 't'>) => (code: string, vars: Record<string, string>) => req.t(`pro-reports:run_errors.${code}`, vars)
  return [
    defineRoute({
      method: 'POST',
      path: '/reports/definitions/{definition_id}/runs',
      permission: REPORTS_WRITE,
      summary: 'Run a report now',
      description: 'Queues a run as the caller (202); poll GET /reports/runs/{run_id} until it is done, failed or cancelled. At run time the caller must still be active and hold reports.read and every source\'s permission. Audited as `report_run.create`.',
      tags: ['reports'],
      schema: { params: DefinitionParams, response: { 202: RunResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const actor = req.actor!
        // Its own transaction, committed before the runner looks for the run.
        const run = await d.database.transaction(async (trx) => {
          const def = await visibleDefinition(d, actor, req.params.definition_id, trx, true)
          if (await trx('reports_runs').where({ definition_id: def.id }).whereIn('state', ['queued', 'running']).first('id')) throw ReportErrors.runInProgress({ field: 'definition_id' })
          const row = (await queueRun(d, trx, def, { trigger: 'manual', actor: { id: actor.id, username: actor.username }, scheduledFor: null, now: new Date() }))!
          await req.audit({ action: 'report_run.create', resourceType: 'report_definition', resourceId: def.id, after: { run_id: row.id, parameters: row.parameters } }, trx)
          return { ...row, definition_name: def.name }
        })
        runner.enqueue(run.id)
        return reply({ status: 202, body: (await toRuns(knex, [run], explain(req)))[0] })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/reports/runs',
      permission: REPORTS_READ,
      summary: 'List report runs',
      description: 'Newest first by default; only runs over sources the caller may read.',
      tags: ['reports'],
      schema: { query: RunListQuery, response: { 200: Paginated(RunResponse, 'ReportRunList') } },
      handler: async (req) => {
        const page = await paginate(req.query, {
          base: () => {
            const qb = runs()
            visibleTo(qb, d, req.actor!, "r.parameters->'sources'")
            return qb
          },
          equals: { definition_id: 'r.definition_id', state: 'r.state' },
          searchColumns: ['d.name'],
          sortColumns: { queued_at: 'r.queued_at', finished_at: 'r.finished_at' },
          defaultSort: 'queued_at',
          defaultPerPage: 20,
          tieBreaker: 'r.id',
          map: (r: RunWithName) => r,
        })
        return { ...page, items: await toRuns(knex, page.items, explain(req)) }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/reports/runs/{run_id}',
      permission: REPORTS_READ,
      summary: 'Get a report run',
      tags: ['reports'],
      schema: { params: RunParams, response: { 200: RunResponse, 404: ErrorBody } },
      handler: async (req) => {
        const row = (await runs().where('r.id', req.params.run_id).first()) as RunWithName | undefined
        if (!row || !maysee(d, req.actor!, row.parameters.sources)) throw CommonErrors.notFound({ field: 'run_id' })
        return (await toRuns(knex, [row], explain(req)))[0]
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/reports/runs/{run_id}/files/{format}',
      permission: REPORTS_READ,
      summary: 'Download a report file',
      description: 'The run\'s file of that format, as an attachment named `<report name>-YYYYMMDD-HHMM.<format>` (UTC, the name in safe characters).',
      tags: ['reports'],
      download: {
        mediaTypes: MEDIA,
        headers: {
          'Content-Disposition': { description: 'attachment; filename="<report>-YYYYMMDD-HHMM.<pdf|xlsx|html>"', schema: Type.String(), required: true },
          'Cache-Control': { description: '`no-store`', schema: Type.Literal('no-store'), required: true },
        },
      },
      schema: { params: FileParams, response: { 200: 'file', 404: ErrorBody } },
      handler: async (req) => {
        const row = (await runs().where('r.id', req.params.run_id).first()) as RunWithName | undefined
        if (!row || !maysee(d, req.actor!, row.parameters.sources)) throw CommonErrors.notFound({ field: 'run_id' })
        const file = (await knex('reports_files').where({ run_id: row.id, format: req.params.format }).first('content', 'content_type', 'created_at')) as
          | { content: Buffer; content_type: string; created_at: Date }
          | undefined
        if (!file) throw CommonErrors.notFound({ field: 'format' })
        const name = fileName(row.definition_name, new Date(row.finished_at ?? file.created_at), req.params.format)
        return reply({ status: 200, body: Buffer.from(file.content), contentType: file.content_type, headers: { 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'no-store' } })
      },
    }),
  ]
}
