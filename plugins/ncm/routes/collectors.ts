/** Collectors (design31 §3 "B"): create with a one-time token, rename, new token, revoke, remove (a tombstone). */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, paginate, reply, uniqueColumn, type RouteDefinition } from '../../../sdk/index.js'
import { NcmErrors } from '../errors.js'
import { NCM_COLLECTORS_MANAGE, NCM_READ } from '../permissions.js'
import { Collector, CollectorCreate, CollectorCreated, CollectorList, CollectorListQuery, CollectorParams, CollectorUpdate, EnrollmentToken } from '../schemas/collectors.js'
import type { NcmContext } from '../services/context.js'
import { issueToken } from '../services/enrollment.js'
import type { CollectorRow } from '../tables.js'

type Db = Knex | Knex.Transaction
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

export const collectorView = (r: CollectorRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  state: r.state,
  max_concurrency: r.max_concurrency,
  enrolled_at: iso(r.enrolled_at),
  last_contact_at: iso(r.last_contact_at),
  last_address: r.last_address,
  release: r.release,
  contract_state: r.contract_state,
  contract_seen: r.contract_seen,
  last_refusal_code: r.last_refusal_code,
  last_refusal_at: iso(r.last_refusal_at),
  removed: r.removed_at !== null,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
})

export function collectorRoutes(c: NcmContext): RouteDefinition[] {
  const knex = c.database.knex
  const names = uniqueColumn({ table: 'ncm_collectors', taken: NcmErrors.collectorNameTaken, index: 'ncm_collectors_name_lower', scope: (qb: Knex.QueryBuilder) => qb.whereNull('removed_at') })
  const get = async (db: Db, id: string, lock = false): Promise<CollectorRow> => {
    const q = db('ncm_collectors').where({ id })
    const row = await (lock ? q.forUpdate() : q).first()
    if (!row) throw NcmErrors.collectorNotFound({ field: 'collector_id' })
    return row
  }
  const live = async (trx: Knex.Transaction, id: string) => {
    const row = await get(trx, id, true)
    if (row.removed_at !== null) throw NcmErrors.collectorRemoved({ field: 'collector_id' })
    return row
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/collectors',
      permission: NCM_READ,
      summary: 'List collectors',
      description: 'Removed collectors are listed too (`removed`), so their last contact stays visible.',
      tags: ['ncm'],
      schema: { query: CollectorListQuery, response: { 200: CollectorList } },
      handler: async ({ query }) =>
        paginate(query, { base: () => knex('ncm_collectors'), searchColumns: ['name', 'description'], sortColumns: { name: 'name', last_contact_at: 'last_contact_at', created_at: 'created_at' }, defaultSort: 'name', defaultPerPage: 50, tieBreaker: 'id', map: collectorView }),
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/collectors',
      permission: NCM_COLLECTORS_MANAGE,
      summary: 'Create a collector and its one-time enrollment token',
      description: 'The token is shown once; it expires after setting ncm.enrollment_token_minutes and works once (`portcullis collector enroll --token`).',
      tags: ['ncm'],
      schema: { body: CollectorCreate, response: { 201: CollectorCreated, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          await names.assertFree(trx, req.body.name)
          const [row] = await trx('ncm_collectors')
            .insert({ name: req.body.name, description: req.body.description ?? null, max_concurrency: req.body.max_concurrency ?? 8 })
            .returning('*')
            .catch(names.onViolation(req.body.name))
          const t = await issueToken(c, trx, row.id, req.actor?.id ?? null)
          await req.audit({ action: 'ncm_collector.create', resourceType: 'ncm_collector', resourceId: row.id, after: collectorView(row) }, trx)
          return reply({ status: 201, body: { collector: collectorView(row), enrollment_token: t.token, expires_at: t.expiresAt.toISOString() } })
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/collectors/{collector_id}',
      permission: NCM_READ,
      summary: 'A collector and its status',
      tags: ['ncm'],
      schema: { params: CollectorParams, response: { 200: Collector, 404: ErrorBody } },
      handler: async ({ params }) => collectorView(await get(knex, params.collector_id)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/ncm/collectors/{collector_id}',
      permission: NCM_COLLECTORS_MANAGE,
      summary: 'Rename a collector or change its concurrency',
      tags: ['ncm'],
      schema: { params: CollectorParams, body: CollectorUpdate, response: { 200: Collector, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await live(trx, req.params.collector_id)
          const cols = givenFields(req.body, ['name', 'description', 'max_concurrency'])
          if (cols.name !== undefined) await names.assertFree(trx, cols.name, before.id)
          const [row] = await trx('ncm_collectors')
            .where({ id: before.id })
            .update({ ...cols, updated_at: new Date() })
            .returning('*')
            .catch(names.onViolation(cols.name ?? before.name))
          await req.audit({ action: 'ncm_collector.update', resourceType: 'ncm_collector', resourceId: row.id, before: collectorView(before), after: collectorView(row) }, trx)
          return collectorView(row)
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/collectors/{collector_id}/enrollment-token',
      permission: NCM_COLLECTORS_MANAGE,
      summary: 'A new enrollment token (re-enrollment)',
      description: 'Enrolling with it replaces both keys of the collector (and makes a revoked one active again). Earlier unused tokens stop working.',
      tags: ['ncm'],
      schema: { params: CollectorParams, response: { 201: EnrollmentToken, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const row = await live(trx, req.params.collector_id)
          const t = await issueToken(c, trx, row.id, req.actor?.id ?? null)
          await req.audit({ action: 'ncm_collector.token', resourceType: 'ncm_collector', resourceId: row.id, after: { expires_at: t.expiresAt.toISOString() } }, trx)
          return reply({ status: 201, body: { enrollment_token: t.token, expires_at: t.expiresAt.toISOString() } })
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/collectors/{collector_id}/revoke',
      permission: NCM_COLLECTORS_MANAGE,
      summary: 'Revoke a collector',
      description: 'Its next request answers 401 NCM_COLLECTOR_REVOKED; its leases end and its unused tokens stop working. A new enrollment token brings it back.',
      tags: ['ncm'],
      schema: { params: CollectorParams, response: { 200: Collector, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await live(trx, req.params.collector_id)
          const [row] = await trx('ncm_collectors').where({ id: before.id }).update({ state: 'revoked', updated_at: new Date() }).returning('*')
          await endAccess(trx, row.id)
          await req.audit({ action: 'ncm_collector.revoke', resourceType: 'ncm_collector', resourceId: row.id, before: collectorView(before), after: collectorView(row) }, trx)
          return collectorView(row)
        }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/ncm/collectors/{collector_id}',
      permission: NCM_COLLECTORS_MANAGE,
      summary: 'Remove a collector',
      description: 'Kept as a tombstone (listed as `removed`), so its next request gets a clear 401 NCM_COLLECTOR_REVOKED. 409 NCM_COLLECTOR_IN_USE while a schedule names it.',
      tags: ['ncm'],
      schema: { params: CollectorParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await live(trx, req.params.collector_id)
          const used = await trx('ncm_schedules').where({ collector_id: before.id }).select('device_group_id')
          if (used.length) {
            const groups = await c.inventory.references.device_group.names(used.map((u) => u.device_group_id), trx)
            throw NcmErrors.collectorInUse({ field: 'collector_id', vars: { referrers: [...groups.values()].map((n) => `"${n}"`).join(', ') } })
          }
          await trx('ncm_collectors').where({ id: before.id }).update({ state: 'revoked', removed_at: new Date(), updated_at: new Date() })
          await endAccess(trx, before.id)
          await req.audit({ action: 'ncm_collector.delete', resourceType: 'ncm_collector', resourceId: before.id, before: collectorView(before) }, trx)
        }),
    }),
  ] as RouteDefinition[]
}

/** A revoked or removed collector: no token works, no lease stays with it. */
async function endAccess(trx: Knex.Transaction, collectorId: string): Promise<void> {
  await trx('ncm_enrollment_tokens').where({ collector_id: collectorId }).whereNull('used_at').delete()
  await trx('ncm_fetches').where({ collector_id: collectorId, status: 'leased' }).update({ status: 'expired', error_code: 'collector_revoked' })
  await trx('ncm_devices').where({ lease_collector_id: collectorId }).update({ lease_job_id: null, lease_collector_id: null, lease_expires_at: null })
}
