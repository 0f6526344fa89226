/** /captive-portal/approvals: sponsor requests waiting for a decision, and the decision through the API. */
import type { Knex } from 'knex'
import { CommonErrors, defineRoute, ErrorBody, paginate } from '../../../sdk/index.js'
import { PortalErrors as E } from '../errors.js'
import { PORTAL_READ, PORTAL_SPONSOR } from '../permissions.js'
import { ApprovalListQuery, ApprovalListResponse, ApprovalParams, ApprovalResponse, Decision } from '../schemas/approvals.js'
import { registerSession } from '../services/register.js'
import type { PortalContext } from '../services/context.js'
import type { SponsorRequestRow } from '../tables.js'

type Db = Knex | Knex.Transaction
type Row = Omit<SponsorRequestRow, 'token_hash'> & { portal_id: string; portal_name: string; guest_name: string | null; guest_email: string | null; guest_fields: Record<string, string>; mac: string }

const selectRequests = (db: Db) =>
  db({ r: 'portal_sponsor_requests' })
    .join({ s: 'portal_sessions' }, 's.id', 'r.session_id')
    .join({ g: 'portal_guests' }, 'g.id', 'r.guest_id')
    .join({ p: 'portal_portals' }, 'p.id', 's.portal_id')
    .select(
      'r.id', 's.portal_id', 'p.name as portal_name', 'r.session_id', 'r.guest_id', 'g.name as guest_name', 'g.email as guest_email', 'g.fields as guest_fields', 's.mac',
      'r.sponsor_email', 'r.sponsor_user_id', 'r.status', 'r.expires_at', 'r.decided_via', 'r.decided_by', 'r.decided_at', 'r.created_at',
    )

const toApproval = (r: Row): ApprovalResponse => ({
  ...r,
  expires_at: r.expires_at.toISOString(),
  decided_at: r.decided_at?.toISOString() ?? null,
  created_at: r.created_at.toISOString(),
})

const loadRequest = async (db: Db, id: string) => {
  const row = await selectRequests(db).where('r.id', id).first()
  return row ? toApproval(row as Row) : null
}

export function approvalRoutes(c: PortalContext) {
  const { knex } = c
  return [
    defineRoute({
      method: 'GET',
      path: '/captive-portal/approvals',
      permission: PORTAL_READ,
      summary: 'List sponsor requests',
      description: 'The requests waiting for a decision (`status` pending) unless `status` says otherwise; `portal_id` filters; `search` matches the guest\'s name and e-mail, the sponsor\'s e-mail and the MAC. Oldest first.',
      tags: ['captive-portal'],
      schema: { query: ApprovalListQuery, response: { 200: ApprovalListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => selectRequests(knex),
          filter: (qb) => {
            qb.where('r.status', query.status ?? 'pending')
            if (query.portal_id) qb.where('s.portal_id', query.portal_id)
          },
          searchColumns: ['g.name', 'g.email', 'r.sponsor_email', 's.mac'],
          sortColumns: { created_at: 'r.created_at', expires_at: 'r.expires_at' },
          defaultSort: 'created_at',
          defaultPerPage: 20,
          tieBreaker: 'r.id',
          map: toApproval,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/captive-portal/approvals/{request_id}/decision',
      permission: PORTAL_SPONSOR,
      summary: 'Approve or deny a guest\'s request',
      description:
        'For holders of `portal.sponsor` (the sponsor\'s mailed link is the other way). `approve`: the guest\'s device is registered into the portal\'s guest endpoint group for the portal\'s duration, and the guest\'s page proceeds. `deny`: the guest and its session are `denied`. Decided already: 409 SPONSOR_REQUEST_DECIDED; the link\'s time ran out: 410 SPONSOR_LINK_EXPIRED. Audited as `portal_sponsor_request.approve` / `.deny` (via `api`).',
      tags: ['captive-portal'],
      schema: { params: ApprovalParams, body: Decision, response: { 200: ApprovalResponse, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody } },
      handler: async (req) => {
        const id = req.params.request_id
        const approve = req.body.decision === 'approve'
        const now = new Date()
        return req.transaction(async (trx) => {
          const r = await trx('portal_sponsor_requests').where({ id }).forUpdate().first('status', 'expires_at', 'session_id', 'guest_id')
          if (!r) throw CommonErrors.notFound({ field: 'request_id' })
          if (r.status === 'approved' || r.status === 'denied') throw E.requestDecided({ field: 'request_id', vars: { status: r.status } })
          if (r.status === 'expired' || r.expires_at <= now) throw E.sponsorLinkExpired({ field: 'request_id' })
          const before = (await loadRequest(trx, id))!
          await trx('portal_sponsor_requests').where({ id }).update({ status: approve ? 'approved' : 'denied', decided_via: 'api', decided_by: req.actor!.id, decided_at: now })
          await trx('portal_guests').where({ id: r.guest_id }).update({ sponsor_user_id: req.actor!.id, updated_at: now })
          if (approve) {
            await registerSession(c, r.session_id, { trx, actor: req.actor, requestId: req.requestId })
          } else {
            await trx('portal_sessions').where({ id: r.session_id }).update({ state: 'denied', ended_at: now, updated_at: now })
            await trx('portal_guests').where({ id: r.guest_id }).update({ status: 'denied', ended_at: now, updated_at: now })
          }
          const after = (await loadRequest(trx, id))!
          await req.audit({ action: `portal_sponsor_request.${approve ? 'approve' : 'deny'}`, resourceType: 'portal_sponsor_request', resourceId: id, before, after }, trx)
          return after
        })
      },
    }),
  ]
}
