/** Schedules: one per device group (its descendants too; the nearest wins). Every write reconciles the tracked devices in its transaction. */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, isUniqueViolation, paginate, reply, type RouteDefinition } from '../../../sdk/index.js'
import { NcmErrors } from '../errors.js'
import { NCM_MANAGE, NCM_READ } from '../permissions.js'
import { Schedule, ScheduleCreate, ScheduleList, ScheduleListQuery, ScheduleParams, ScheduleUpdate } from '../schemas/schedules.js'
import type { NcmContext } from '../services/context.js'
import { getProfile } from '../services/profiles/store.js'
import type { Reconciler } from '../services/reconcile.js'
import type { ScheduleRow } from '../tables.js'

const iso = (d: Date | string) => new Date(d).toISOString()
export const scheduleView = (r: ScheduleRow) => ({
  id: r.id,
  device_group_id: r.device_group_id,
  collector_id: r.collector_id,
  credential_id: r.credential_id,
  profile_id: r.profile_id,
  interval_minutes: r.interval_minutes,
  enabled: r.enabled,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

/** 422 at the field when a named collector (live), credential or profile does not exist. */
export async function checkReferences(trx: Knex.Transaction, b: { collector_id?: string; credential_id?: string | null; profile_id?: string | null }): Promise<void> {
  if (b.collector_id !== undefined) {
    const row = await trx('ncm_collectors').where({ id: b.collector_id }).whereNull('removed_at').forShare().first('id')
    if (!row) throw NcmErrors.referenceNotFound({ field: 'collector_id', vars: { kind: 'collector' } })
  }
  if (b.credential_id) {
    const row = await trx('ncm_credentials').where({ id: b.credential_id }).forShare().first('id')
    if (!row) throw NcmErrors.referenceNotFound({ field: 'credential_id', vars: { kind: 'credential' } })
  }
  if (b.profile_id && !(await getProfile(trx, b.profile_id))) throw NcmErrors.referenceNotFound({ field: 'profile_id', vars: { kind: 'profile' } })
}

export function scheduleRoutes(c: NcmContext, reconciler: Reconciler): RouteDefinition[] {
  const knex = c.database.knex
  const get = async (db: Knex | Knex.Transaction, id: string): Promise<ScheduleRow> => {
    const row = await db('ncm_schedules').where({ id }).first()
    if (!row) throw NcmErrors.scheduleNotFound({ field: 'schedule_id' })
    return row
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/schedules',
      permission: NCM_READ,
      summary: 'List schedules',
      tags: ['ncm'],
      schema: { query: ScheduleListQuery, response: { 200: ScheduleList } },
      handler: async ({ query }) => paginate(query, { base: () => knex('ncm_schedules'), searchColumns: [], sortColumns: { created_at: 'created_at' }, defaultSort: 'created_at', defaultPerPage: 50, tieBreaker: 'id', map: scheduleView }),
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/schedules',
      permission: NCM_MANAGE,
      summary: 'Fetch the configurations of a device group on a schedule',
      description: '409 NCM_SCHEDULE_EXISTS when the group has one. Its devices are tracked at once; their first fetches are spread over ten minutes.',
      tags: ['ncm'],
      schema: { body: ScheduleCreate, response: { 201: Schedule, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const b = req.body
          if (!(await c.inventory.references.device_group.lockExisting([b.device_group_id], trx)).size) throw NcmErrors.groupNotFound({ field: 'device_group_id' })
          await checkReferences(trx, b)
          if (await trx('ncm_schedules').where({ device_group_id: b.device_group_id }).first('id')) throw NcmErrors.scheduleExists({ field: 'device_group_id' })
          const [row] = await trx('ncm_schedules')
            .insert({ device_group_id: b.device_group_id, collector_id: b.collector_id, credential_id: b.credential_id, profile_id: b.profile_id, interval_minutes: b.interval_minutes ?? 1440, enabled: b.enabled ?? true })
            .returning('*')
            .catch((e: unknown) => {
              throw isUniqueViolation(e) ? NcmErrors.scheduleExists({ field: 'device_group_id' }) : e
            })
          await reconciler.run(trx)
          await req.audit({ action: 'ncm_schedule.create', resourceType: 'ncm_schedule', resourceId: row.id, after: scheduleView(row) }, trx)
          return reply({ status: 201, body: scheduleView(row) })
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/schedules/{schedule_id}',
      permission: NCM_READ,
      summary: 'A schedule',
      tags: ['ncm'],
      schema: { params: ScheduleParams, response: { 200: Schedule, 404: ErrorBody } },
      handler: async ({ params }) => scheduleView(await get(knex, params.schedule_id)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/ncm/schedules/{schedule_id}',
      permission: NCM_MANAGE,
      summary: 'Change a schedule',
      tags: ['ncm'],
      schema: { params: ScheduleParams, body: ScheduleUpdate, response: { 200: Schedule, 404: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await get(trx, req.params.schedule_id)
          await checkReferences(trx, req.body)
          const cols = givenFields(req.body, ['collector_id', 'credential_id', 'profile_id', 'interval_minutes', 'enabled'])
          const [row] = await trx('ncm_schedules').where({ id: before.id }).update({ ...cols, updated_at: new Date() }).returning('*')
          await reconciler.run(trx)
          await req.audit({ action: 'ncm_schedule.update', resourceType: 'ncm_schedule', resourceId: row.id, before: scheduleView(before), after: scheduleView(row) }, trx)
          return scheduleView(row)
        }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/ncm/schedules/{schedule_id}',
      permission: NCM_MANAGE,
      summary: 'Delete a schedule',
      description: 'Its devices are no longer fetched; their history stays.',
      tags: ['ncm'],
      schema: { params: ScheduleParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await get(trx, req.params.schedule_id)
          await trx('ncm_schedules').where({ id: before.id }).delete()
          await reconciler.run(trx)
          await req.audit({ action: 'ncm_schedule.delete', resourceType: 'ncm_schedule', resourceId: before.id, before: scheduleView(before) }, trx)
        }),
    }),
  ] as RouteDefinition[]
}
