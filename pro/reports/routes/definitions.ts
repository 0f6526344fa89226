/** Report definitions: CRUD (docs/reports.md, "Definitions"). */
import { CommonErrors, defineRoute, ErrorBody, jsonText, listQuery, paginate, Paginated, reply, type Actor } from '@portcullis/sdk'
import type { Knex } from 'knex'
import type { ReportDeps } from '../context.js'
import { ReportErrors } from '../errors.js'
import { REPORTS_READ, REPORTS_WRITE } from '../permissions.js'
import { DefinitionCreate, DefinitionParams, DefinitionResponse, DefinitionUpdate, type Definition } from '../schemas.js'
import { checkDefinition, maysee, nextRunOf, toDefinitions, visibleTo, type DefinitionState } from '../services/definitions.js'
import type { DefinitionRow } from '../tables.js'

const ListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ['name', 'created_at', 'updated_at', 'next_run_at'] as const })

/** The definition by id when it exists and the actor may see it; 404 otherwise (a hidden one is not revealed). */
export async function visibleDefinition(d: ReportDeps, actor: Actor, id: string, db: Knex | Knex.Transaction, lock = false): Promise<DefinitionRow> {
  const q = db('reports_definitions').where({ id })
  if (lock) q.forUpdate()
  const row = (await q.first()) as DefinitionRow | undefined
  if (!row || !maysee(d, actor, row.sources)) throw CommonErrors.notFound({ field: 'definition_id' })
  return row
}

function columns(s: DefinitionState, ownerId: string, now: Date) {
  return {
    name: s.name,
    description: s.description,
    sources: jsonText(s.sources),
    range_kind: s.range_kind,
    range_from: s.range_from ? new Date(s.range_from) : null,
    range_to: s.range_to ? new Date(s.range_to) : null,
    device_group_id: s.device_group_id,
    user_group_id: s.user_group_id,
    formats: jsonText(s.formats),
    schedule_cron: s.schedule_cron,
    time_zone: s.time_zone,
    language: s.language,
    recipients: jsonText(s.recipients),
    owner_id: ownerId,
    next_run_at: nextRunOf(s, now),
    updated_at: now,
  }
}

async function nameFree(trx: Knex.Transaction, name: string, except?: string): Promise<void> {
  const q = trx('reports_definitions').whereRaw('lower(name) = lower(?)', [name])
  if (except) q.whereNot({ id: except })
  if (await q.first('id')) throw ReportErrors.nameTaken({ field: 'name', vars: { name } })
}

const lower = (id: string | null | undefined) => (id ? id.toLowerCase() : null)

export function definitionRoutes(d: ReportDeps) {
  const knex = d.database.knex
  const one = async (row: DefinitionRow, db: Knex | Knex.Transaction): Promise<Definition> => (await toDefinitions(d, [row], db))[0]
  return [
    defineRoute({
      method: 'GET',
      path: '/reports/definitions',
      permission: REPORTS_READ,
      summary: 'List report definitions',
      description: 'Only definitions over sources the caller may read (every source\'s permission).',
      tags: ['reports'],
      schema: { query: ListQuery, response: { 200: Paginated(DefinitionResponse, 'ReportDefinitionList') } },
      handler: async (req) => {
        const page = await paginate(req.query, {
          base: () => {
            const qb = knex('reports_definitions')
            visibleTo(qb, d, req.actor!, 'sources')
            return qb
          },
          searchColumns: ['name'],
          sortColumns: { name: 'name', created_at: 'created_at', updated_at: 'updated_at', next_run_at: 'next_run_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'id',
          map: (r: DefinitionRow) => r,
        })
        return { ...page, items: await toDefinitions(d, page.items, knex) }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/reports/definitions',
      permission: REPORTS_WRITE,
      summary: 'Create a report definition',
      description: 'Every source must be one the caller may read; the caller becomes the owner, whom scheduled runs read as. Audited as `report_definition.create`.',
      tags: ['reports'],
      schema: { body: DefinitionCreate, response: { 201: DefinitionResponse, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const b = req.body
          const state: DefinitionState = {
            name: b.name,
            description: b.description ?? null,
            sources: b.sources,
            range_kind: b.time_range.relative,
            range_from: b.time_range.from ?? null,
            range_to: b.time_range.to ?? null,
            device_group_id: lower(b.device_group_id),
            user_group_id: lower(b.user_group_id),
            formats: b.formats,
            schedule_cron: b.schedule?.cron.trim() ?? null,
            time_zone: b.schedule?.time_zone ?? b.time_zone ?? 'UTC',
            language: b.language ?? 'en',
            recipients: b.recipients ?? [],
          }
          await checkDefinition(d, req.actor!, state, trx, Boolean(b.schedule))
          await nameFree(trx, state.name)
          const now = new Date()
          const [row] = (await trx('reports_definitions').insert({ ...columns(state, req.actor!.id, now), created_at: now }).returning('*')) as DefinitionRow[]
          const out = await one(row, trx)
          await req.audit({ action: 'report_definition.create', resourceType: 'report_definition', resourceId: row.id, after: out }, trx)
          return reply({ status: 201, body: out })
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/reports/definitions/{definition_id}',
      permission: REPORTS_READ,
      summary: 'Get a report definition',
      tags: ['reports'],
      schema: { params: DefinitionParams, response: { 200: DefinitionResponse, 404: ErrorBody } },
      handler: async (req) => one(await visibleDefinition(d, req.actor!, req.params.definition_id, knex), knex),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/reports/definitions/{definition_id}',
      permission: REPORTS_WRITE,
      summary: 'Change a report definition',
      description: 'Any subset of the fields. The caller must be able to read every source of the definition as it was and as it becomes, and becomes its owner (scheduled runs read as them). Audited as `report_definition.update`.',
      tags: ['reports'],
      schema: { params: DefinitionParams, body: DefinitionUpdate, response: { 200: DefinitionResponse, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const row = await visibleDefinition(d, req.actor!, req.params.definition_id, trx, true)
          const before = await one(row, trx)
          const b = req.body
          const range = b.time_range
          const state: DefinitionState = {
            name: b.name ?? row.name,
            description: b.description !== undefined ? b.description : row.description,
            sources: b.sources ?? row.sources,
            range_kind: range ? range.relative : row.range_kind,
            range_from: range ? (range.from ?? null) : row.range_from ? new Date(row.range_from).toISOString() : null,
            range_to: range ? (range.to ?? null) : row.range_to ? new Date(row.range_to).toISOString() : null,
            device_group_id: b.device_group_id !== undefined ? lower(b.device_group_id) : row.device_group_id,
            user_group_id: b.user_group_id !== undefined ? lower(b.user_group_id) : row.user_group_id,
            formats: b.formats ?? row.formats,
            schedule_cron: b.schedule !== undefined ? (b.schedule?.cron.trim() ?? null) : row.schedule_cron,
            time_zone: b.schedule?.time_zone ?? b.time_zone ?? row.time_zone,
            language: b.language ?? row.language,
            recipients: b.recipients ?? row.recipients,
          }
          await checkDefinition(d, req.actor!, state, trx, Boolean(b.schedule))
          if (state.name !== row.name) await nameFree(trx, state.name, row.id)
          const [updated] = (await trx('reports_definitions').where({ id: row.id }).update(columns(state, req.actor!.id, new Date())).returning('*')) as DefinitionRow[]
          const after = await one(updated, trx)
          await req.audit({ action: 'report_definition.update', resourceType: 'report_definition', resourceId: row.id, before, after }, trx)
          return after
        }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/reports/definitions/{definition_id}',
      permission: REPORTS_WRITE,
      summary: 'Delete a report definition',
      description: 'Its runs and their files go with it. Audited as `report_definition.delete`.',
      tags: ['reports'],
      schema: { params: DefinitionParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const row = await visibleDefinition(d, req.actor!, req.params.definition_id, trx, true)
          const before = await one(row, trx)
          await trx('reports_definitions').where({ id: row.id }).delete()
          await req.audit({ action: 'report_definition.delete', resourceType: 'report_definition', resourceId: row.id, before }, trx)
          return reply({ status: 204 })
        }),
    }),
  ]
}
