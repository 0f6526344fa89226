/**
 * Change of Authorization (RFC 5176): an administrator's request to the NAS
 * that last saw an endpoint, and the record of every request sent (by hand or
 * automatically when an endpoint moves group). services/coa/ does the work.
 */
import { CommonErrors, defineRoute, ErrorBody, orNotFound, paginate } from '../../../sdk/index.js'
import { NAC_COA_SEND, NAC_READ } from '../permissions.js'
import { COA_REQUESTS, selectCoaRequests, toCoaRecord } from '../services/coa/records.js'
import { ENDPOINTS, loadEndpoint } from '../services/rows.js'
import { ACTIONS_DOC, CoaGlobalListQuery, CoaRequestListQuery, CoaRequestListResponse, CoaRequestResponse, CoaSend } from '../schemas/coa.js'
import { EndpointParams } from '../schemas/endpoints.js'
import type { NacRouteDeps } from './deps.js'

const LIST_DOC = 'Newest first by default. Filters `result`, `action` and `reason` combine with AND.'

export function coaRoutes(d: NacRouteDeps) {
  const { knex, coa } = d
  const list = <Q extends { sort_order?: 'asc' | 'desc'; result?: string; action?: string; reason?: string }>(query: Q, scope: Record<string, string>) =>
    paginate(
      { ...query, sort_order: query.sort_order ?? 'desc' },
      {
        base: () => selectCoaRequests(knex).where(scope),
        equals: { result: `${COA_REQUESTS}.result`, action: `${COA_REQUESTS}.action`, reason: `${COA_REQUESTS}.reason` } as Record<keyof Q, string>,
        searchColumns: [],
        sortColumns: { created_at: `${COA_REQUESTS}.created_at` },
        defaultSort: 'created_at',
        defaultPerPage: 20,
        tieBreaker: `${COA_REQUESTS}.id`,
        map: toCoaRecord,
      },
    )
  return [
    defineRoute({
      method: 'POST',
      path: '/nac/endpoints/{endpoint_id}/coa',
      permission: NAC_COA_SEND,
      summary: 'Send a Change of Authorization for an endpoint',
      description: `Sends a request to the NAS that last saw the endpoint (\`last_nas_ip\`, answered as the inventory device FreeRADIUS knows it as, with that device's RADIUS secret), on the device's CoA port (\`PUT /nac/coa-nas/{device_id}\`) or the setting \`nac.coa_port\` (3799), and answers the recorded request once the NAS answered or every retry timed out (settings \`nac.coa_timeout_ms\`, \`nac.coa_retries\`). ${ACTIONS_DOC} The session is named by \`Calling-Station-Id\` (the MAC as \`AA-BB-CC-DD-EE-FF\`), the NAS's address and, when known, \`NAS-Port-Id\`; every request carries a Message-Authenticator, and an answer is believed only when its Response Authenticator verifies. Whatever the NAS answers (ACK, NAK, nothing) the answer is 201 with the record; the record was written (and audited as \`endpoint.coa\`) before the request left. No NAS ever saw the endpoint: 409 COA_NO_NAS. No enabled inventory device answers for its address: 409 COA_NAS_UNKNOWN. That device has no RADIUS secret: 409 COA_NAS_NO_SECRET. Nothing is sent or recorded then.`,
      tags: ['nac'],
      schema: { params: EndpointParams, body: CoaSend, response: { 201: CoaRequestResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.endpoint_id
        const actor = req.actor!
        const prepared = await req.transaction(async (trx) => {
          const endpoint = orNotFound(await loadEndpoint(trx, id), 'endpoint_id')
          const p = await coa.prepare(trx, endpoint, req.body.action, { reason: 'admin', requestedBy: { id: actor.id, username: actor.username } })
          await req.audit(
            { action: 'endpoint.coa', resourceType: 'endpoint', resourceId: id, after: { coa_request_id: p.id, mac: endpoint.mac, action: req.body.action, nas_ip: p.to.ip, nas_port: p.to.port } },
            trx,
          )
          return p
        })
        return coa.dispatch(prepared)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/endpoints/{endpoint_id}/coa',
      permission: NAC_READ,
      summary: "List an endpoint's Change of Authorization requests",
      description: `Every request sent for the endpoint, by an administrator or automatically, with the NAS's answer. ${LIST_DOC}`,
      tags: ['nac'],
      schema: { params: EndpointParams, query: CoaRequestListQuery, response: { 200: CoaRequestListResponse, 404: ErrorBody } },
      handler: async ({ params, query }) => {
        if (!(await knex(ENDPOINTS).where({ id: params.endpoint_id }).first('id'))) throw CommonErrors.notFound({ field: 'endpoint_id' })
        return list(query, { [`${COA_REQUESTS}.endpoint_id`]: params.endpoint_id })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/coa-requests',
      permission: NAC_READ,
      summary: 'List Change of Authorization requests',
      description: `Every request sent, for every endpoint (also those deleted since: \`endpoint_id\` null, \`mac\` kept). ${LIST_DOC} \`endpoint_id\` and \`device_id\` narrow it to one endpoint or one NAS.`,
      tags: ['nac'],
      schema: { query: CoaGlobalListQuery, response: { 200: CoaRequestListResponse } },
      handler: async ({ query }) => {
        const scope: Record<string, string> = {}
        if (query.endpoint_id) scope[`${COA_REQUESTS}.endpoint_id`] = query.endpoint_id
        if (query.device_id) scope[`${COA_REQUESTS}.device_id`] = query.device_id
        return list(query, scope)
      },
    }),
  ]
}
