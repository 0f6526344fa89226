/** Endpoints: MAC addresses the network admits by group (MAB allow-lists), with their owner and what the network saw of them. */
import { defineRoute, ErrorBody, givenFields, isReferenceViolation, lockForChange, orNotFound, paginate, referrerList, reply } from '../../../sdk/index.js'
import { NacErrors as E } from '../errors.js'
import { NAC_READ, NAC_WRITE } from '../permissions.js'
import { ouiVendor } from '../services/oui.js'
import { adminChange } from '../services/events.js'
import { lockOwner } from '../services/owners.js'
import { present, presentOne } from '../services/present.js'
import { applyFilters, applySearch, macFilter, SORT_COLUMNS } from '../services/query.js'
import { ENDPOINTS, loadEndpoint, selectEndpoints, toEndpoint } from '../services/rows.js'
import { EndpointCreate, EndpointListQuery, EndpointListResponse, EndpointParams, EndpointResponse, EndpointUpdate, SEARCH_DOC } from '../schemas/endpoints.js'
import type { NacRouteDeps } from './deps.js'
import { assertMacFree, canonicalMac, guardedWrite, lockGroup } from './endpoint-writes.js'

const READ_ONLY =
  'What the network saw (`first_seen_at`, `last_seen_at`, `last_nas_ip`, `last_nas_port`, `last_auth_result`) and what profiling concluded (`device_type`, `device_type_confidence`, `device_type_reason`) are written by the plugin service (the accounting ingester, the profiler), never through these routes.'

export function endpointRoutes(d: NacRouteDeps) {
  const { knex, users } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/nac/endpoints',
      permission: NAC_READ,
      summary: 'List endpoints',
      description: `Filters combine with AND.${SEARCH_DOC} A malformed \`mac\` filter answers the same 422 as a malformed MAC in a body. \`sort_by\` defaults to \`mac\`; the id breaks ties so pages are stable.`,
      tags: ['nac'],
      schema: { query: EndpointListQuery, response: { 200: EndpointListResponse, 422: ErrorBody } },
      handler: async ({ query }) => {
        const mac = macFilter(query)
        const page = await paginate(
          { ...query, search: undefined },
          {
            base: () => selectEndpoints(knex),
            filter: (qb) => {
              applyFilters(qb, query, mac)
              applySearch(qb, query.search)
            },
            searchColumns: [],
            sortColumns: SORT_COLUMNS,
            defaultSort: 'mac',
            defaultPerPage: 20,
            tieBreaker: `${ENDPOINTS}.id`,
            map: toEndpoint,
          },
        )
        return { ...page, items: await present(knex, users, page.items) }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/nac/endpoints',
      permission: NAC_WRITE,
      summary: 'Add an endpoint',
      description: `The vendor is looked up in the IEEE registry from the MAC. ${READ_ONLY}`,
      tags: ['nac'],
      schema: { body: EndpointCreate, response: { 201: EndpointResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const mac = canonicalMac(b.mac)
        const groupId = b.endpoint_group_id ?? null
        return req.transaction(async (trx) => {
          await assertMacFree(trx, mac)
          await lockGroup(trx, groupId)
          await lockOwner(trx, users, b.owner_user_id)
          const [{ id }] = await guardedWrite(trx, { mac, groupId }, (sp) =>
            sp(ENDPOINTS)
              .insert({ mac, vendor: ouiVendor(mac), description: b.description ?? null, owner_user_id: b.owner_user_id ?? null, endpoint_group_id: groupId })
              .returning('id'),
          )
          const endpoint = await presentOne(trx, users, (await loadEndpoint(trx, id))!)
          await req.audit({ action: 'endpoint.create', resourceType: 'endpoint', resourceId: id, after: endpoint }, trx)
          return endpoint
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/endpoints/{endpoint_id}',
      permission: NAC_READ,
      summary: 'Get an endpoint',
      tags: ['nac'],
      schema: { params: EndpointParams, response: { 200: EndpointResponse, 404: ErrorBody } },
      handler: async ({ params }) => presentOne(knex, users, orNotFound(await loadEndpoint(knex, params.endpoint_id), 'endpoint_id')),
    }),
    defineRoute({
      method: 'PUT',
      path: '/nac/endpoints/{endpoint_id}',
      permission: NAC_WRITE,
      summary: 'Change an endpoint',
      description: `Partial: only the fields given change. \`endpoint_group_id: null\` takes the endpoint out of its group, \`owner_user_id: null\` clears the owner. A new MAC gets the vendor of its OUI. A change of group sends the NAS that last saw the endpoint a reauthenticate CoA (setting \`nac.coa_on_change\`; recorded at \`GET /nac/endpoints/{endpoint_id}/coa\`), without waiting for it: once the FreeRADIUS deploy carrying the change is active, when the edition renders FreeRADIUS. ${READ_ONLY}`,
      tags: ['nac'],
      schema: { params: EndpointParams, body: EndpointUpdate, response: { 200: EndpointResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const id = req.params.endpoint_id
        const mac = b.mac === undefined ? undefined : canonicalMac(b.mac)
        const out = await req.transaction(async (trx) => {
          const before = await presentOne(trx, users, await lockForChange(trx, ENDPOINTS, id, 'endpoint_id', loadEndpoint))
          if (mac !== undefined) await assertMacFree(trx, mac, id)
          if (b.endpoint_group_id !== undefined) await lockGroup(trx, b.endpoint_group_id)
          if (b.owner_user_id !== undefined) await lockOwner(trx, users, b.owner_user_id)
          const cols = {
            ...givenFields(b, ['description', 'owner_user_id', 'endpoint_group_id']),
            // A group given here is static membership: profiling's placement rules no longer move the endpoint.
            ...(b.endpoint_group_id === undefined ? {} : { endpoint_group_placed: false }),
            ...(mac === undefined ? {} : { mac, vendor: ouiVendor(mac) }),
            updated_at: new Date(),
          }
          const groupId = b.endpoint_group_id === undefined ? before.endpoint_group_id : b.endpoint_group_id
          await guardedWrite(trx, { mac: mac ?? before.mac, groupId }, (sp) => sp(ENDPOINTS).where({ id }).update(cols))
          if (mac !== undefined && mac !== before.mac) await d.references.endpoint.renamed([id], trx)
          const after = await presentOne(trx, users, (await loadEndpoint(trx, id))!)
          await req.audit({ action: 'endpoint.update', resourceType: 'endpoint', resourceId: id, before, after }, trx)
          return { before, after }
        })
        await d.events.emit(adminChange(out.before, out.after))
        return out.after
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/nac/endpoints/{endpoint_id}',
      permission: NAC_WRITE,
      summary: 'Remove an endpoint',
      description: 'An endpoint still referenced by another plugin answers 409 ENDPOINT_IN_USE, whose detail names the references.',
      tags: ['nac'],
      schema: { params: EndpointParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.endpoint_id
        await req.transaction(async (trx) => {
          const before = await presentOne(trx, users, await lockForChange(trx, ENDPOINTS, id, 'endpoint_id', loadEndpoint))
          const referrers = await d.references.endpoint.beforeDelete([id], trx)
          if (referrers.length) throw E.endpointInUse({ field: 'endpoint_id', vars: { referrers: referrerList(referrers) } })
          await trx(ENDPOINTS)
            .where({ id })
            .delete()
            .catch((e: unknown) => {
              throw isReferenceViolation(e) ? E.endpointInUse({ field: 'endpoint_id', vars: { referrers: '…' } }) : e
            })
          await req.audit({ action: 'endpoint.delete', resourceType: 'endpoint', resourceId: id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
