/** /captive-portal/sessions: the devices passing through the portals; ending one cuts the device off. */
import { CommonErrors, defineRoute, ErrorBody, orNotFound, paginate } from '../../../sdk/index.js'
import { PortalErrors as E } from '../errors.js'
import { PORTAL_GUESTS, PORTAL_READ } from '../permissions.js'
import { SessionListQuery, SessionListResponse, SessionParams, SessionResponse } from '../schemas/sessions.js'
import type { PortalContext } from '../services/context.js'
import { afterEnd, endSession } from '../services/end-session.js'
import { loadSession, selectSessions, SESSIONS, toSession } from '../services/sessions.js'

const ENDED = ['ended', 'expired', 'denied']

export function sessionRoutes(c: PortalContext) {
  const { knex } = c
  return [
    defineRoute({
      method: 'GET',
      path: '/captive-portal/sessions',
      permission: PORTAL_READ,
      summary: 'List portal sessions',
      description: '`state`, `method`, `portal_id`, `guest_id` and `mac` (any notation) filter; `search` matches the MAC, NAS address, SSID and the guest\'s name, e-mail and username. Newest first by default.',
      tags: ['captive-portal'],
      schema: { query: SessionListQuery, response: { 200: SessionListResponse, 422: ErrorBody } },
      handler: async ({ query }) => {
        const mac = query.mac === undefined || query.mac === '' ? null : c.nac.normalizeMac(query.mac)
        if (query.mac && mac === null) throw E.macInvalid({ field: 'mac' })
        return paginate(query, {
          base: () => selectSessions(knex),
          equals: { state: 's.state', method: 's.method', portal_id: 's.portal_id', guest_id: 's.guest_id' },
          filter: (qb) => {
            if (mac) qb.where('s.mac', mac)
          },
          searchColumns: ['s.mac', 's.nas_ip', 's.ssid', 'g.name', 'g.email', 'g.username'],
          sortColumns: { created_at: 's.created_at', registered_at: 's.registered_at', expires_at: 's.expires_at', mac: 's.mac', state: 's.state' },
          defaultSort: 'created_at',
          defaultPerPage: 20,
          tieBreaker: 's.id',
          map: toSession,
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/captive-portal/sessions/{session_id}',
      permission: PORTAL_READ,
      summary: 'Get a portal session',
      tags: ['captive-portal'],
      schema: { params: SessionParams, response: { 200: SessionResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await loadSession(knex, params.session_id), 'session_id'),
    }),
    defineRoute({
      method: 'POST',
      path: '/captive-portal/sessions/{session_id}/end',
      permission: PORTAL_GUESTS,
      summary: 'End a portal session (disconnects the device)',
      description:
        'State `ended`, reason `admin`. An active session\'s device leaves the endpoint group the portal put it in; FreeRADIUS gets the change by a deploy the platform makes, and then a Disconnect-Request goes to the NAS (its record in `coa_request_id` once sent). The answer does not wait for either. A session not yet registered simply ends. Ended already: 409 PORTAL_SESSION_ENDED. Audited.',
      tags: ['captive-portal'],
      schema: { params: SessionParams, response: { 200: SessionResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.session_id
        const { out, ended } = await req.transaction(async (trx) => {
          const row = await trx(SESSIONS).where({ id }).forUpdate().first('id', 'mac', 'state', 'endpoint_id', 'endpoint_group_id')
          if (!row) throw CommonErrors.notFound({ field: 'session_id' })
          if (ENDED.includes(row.state)) throw E.sessionEnded({ field: 'session_id', vars: { state: row.state } })
          const before = (await loadSession(trx, id))!
          const ended = await endSession(c, trx, row, { state: 'ended', reason: 'admin' })
          const out = (await loadSession(trx, id))!
          await req.audit({ action: 'portal_session.end', resourceType: 'portal_session', resourceId: id, before, after: out }, trx)
          return { out, ended }
        })
        afterEnd(c, [ended], { disconnect: true, actor: req.actor, comment: `captive portal: session of ${ended.mac} ended by an administrator` })
        return out
      },
    }),
  ]
}
