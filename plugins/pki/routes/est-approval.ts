/**
 * Deciding held EST enrollments: by the approver's mailed one-time link
 * (GET renders the request, as an HTML page a person reads or as JSON when
 * asked; POST decides and spends the link) or by the API (list, decide).
 */
import { CommonErrors, defineRoute, ErrorBody, listQuery, Paginated, paginate, PUBLIC, reply, StringEnum, Timestamp, Type, Uuid, Nullable, type RouteRequest } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import { PKI_ISSUE, PKI_VIEW } from '../permissions.js'
import { tokenHash } from '../services/est-queue.js'
import type { PkiContext } from './context.js'

const STATUSES = ['pending', 'approved', 'rejected', 'issued'] as const
const EstRequest = Type.Object(
  {
    id: Uuid(),
    subject: Type.String(),
    san: Type.String(),
    requester: Type.String({ description: 'The account (Basic) or `certificate <serial>` (mutual TLS) that enrolled.' }),
    renews_id: Nullable(Uuid()),
    status: StringEnum(STATUSES),
    certificate_id: Nullable(Uuid()),
    decided_via: Nullable(StringEnum(['link', 'api'] as const)),
    decided_at: Nullable(Timestamp()),
    created_at: Timestamp(),
  },
  { title: 'EstRequest' },
)
const Decision = Type.Object({ decision: StringEnum(['approve', 'reject'] as const) }, { title: 'EstDecision', additionalProperties: false })
const TokenParams = Type.Object({ token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]{43}$' }) }, { additionalProperties: false })
const RequestParams = Type.Object({ request_id: Uuid() }, { additionalProperties: false })
const ListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ['created_at'] as const, defaultSortOrder: 'desc', filters: { status: Type.Optional(StringEnum(STATUSES)) } })

type Row = { id: string; subject: string; san: string; requester: string; renews_id: string | null; status: (typeof STATUSES)[number]; certificate_id: string | null; decided_via: string | null; decided_at: Date | null; created_at: Date }
const COLUMNS = ['id', 'subject', 'san', 'requester', 'renews_id', 'status', 'certificate_id', 'decided_via', 'decided_at', 'created_at'] as const
const toRequest = (r: Row) => ({ ...r, decided_via: r.decided_via as 'link' | 'api' | null, decided_at: r.decided_at?.toISOString() ?? null, created_at: r.created_at.toISOString() })

const esc = (v: string) => v.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

export function estApprovalRoutes(c: PkiContext) {
  /** The request behind a link: 404 unknown, 410 decided or expired. */
  async function byToken(token: string) {
    const row = await c.knex('pki_est_requests').where({ token_hash: tokenHash(token) }).first(...COLUMNS, 'token_expires_at')
    if (!row) throw PkiErrors.approvalNotFound({ field: 'token' })
    if (row.status !== 'pending') throw PkiErrors.approvalSpent({ field: 'token' })
    if (!row.token_expires_at || row.token_expires_at <= new Date()) throw PkiErrors.approvalExpired({ field: 'token' })
    return row
  }

  async function decide(req: Pick<RouteRequest<unknown, unknown, unknown>, 'transaction' | 'audit' | 'actor'>, id: string, decision: 'approve' | 'reject', via: 'link' | 'api') {
    return req.transaction(async (trx) => {
      const before = await trx('pki_est_requests').where({ id }).forUpdate().first(...COLUMNS)
      if (!before) throw CommonErrors.notFound({ field: 'request_id' })
      if (before.status !== 'pending') throw PkiErrors.requestDecided({ vars: { status: before.status } })
      const status = decision === 'approve' ? 'approved' : 'rejected'
      await trx('pki_est_requests').where({ id }).update({ status, decided_by: req.actor?.id ?? null, decided_via: via, decided_at: new Date() })
      const after = (await trx('pki_est_requests').where({ id }).first(...COLUMNS))!
      await req.audit({ action: `est_request.${decision}`, resourceType: 'est_request', resourceId: id, before: toRequest(before), after: toRequest(after) }, trx)
      return toRequest(after)
    })
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/public/est-approval/{token}',
      permission: PUBLIC,
      summary: 'See a held EST enrollment (the approver\'s one-time link)',
      description: 'An HTML page a person reads, or JSON (EstRequest) when `Accept` asks for application/json. Spends nothing. Unknown 404 PKI_APPROVAL_NOT_FOUND; decided 410 PKI_APPROVAL_SPENT; expired (after 7 days) 410 PKI_APPROVAL_EXPIRED.',
      tags: ['pki'],
      download: {
        mediaTypes: ['text/html', 'application/json'],
        headers: { 'Cache-Control': { description: '`no-store`', schema: Type.Literal('no-store'), required: true } },
      },
      schema: { params: TokenParams, response: { 200: 'file', 404: ErrorBody, 410: ErrorBody } },
      handler: async (req) => {
        const r = toRequest(await byToken(req.params.token))
        const headers = { 'Cache-Control': 'no-store' }
        if ((req.headers.accept ?? '').includes('application/json')) return reply({ status: 200, body: JSON.stringify(r), contentType: 'application/json', headers })
        const line = (k: string, v: string) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`
        const html =
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>EST enrollment ${esc(r.subject)}</title></head><body>` +
          `<h1>EST enrollment waiting for approval</h1><table>${line('Subject', r.subject)}${line('Alternative names', r.san || '-')}${line('Requested by', r.requester)}${line('Renews', r.renews_id ?? '-')}${line('Requested at', r.created_at)}</table>` +
          `<p>Decide once: <code>POST</code> this address with <code>{"decision": "approve"}</code> or <code>{"decision": "reject"}</code> (application/json), or in the API (<code>POST /api/v1/pki/est-requests/${esc(r.id)}/decision</code>).</p></body></html>`
        return reply({ status: 200, body: html, contentType: 'text/html; charset=utf-8', headers })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/public/est-approval/{token}',
      permission: PUBLIC,
      summary: 'Decide a held EST enrollment (spends the one-time link)',
      description: 'Approve: the client\'s next poll with the same CSR gets the certificate. Reject: it gets 403 PKI_EST_REJECTED. The link is spent either way (410 PKI_APPROVAL_SPENT after). Audited as `est_request.approve` / `est_request.reject` (via `link`).',
      tags: ['pki'],
      schema: { params: TokenParams, body: Decision, response: { 200: EstRequest, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody } },
      handler: async (req) => decide(req, (await byToken(req.params.token)).id, req.body.decision, 'link'),
    }),
    defineRoute({
      method: 'GET',
      path: '/pki/est-requests',
      permission: PKI_VIEW,
      summary: 'List EST enrollment requests held for approval',
      description: '`search` matches subject, SANs and requester; `status` filters.',
      tags: ['pki'],
      schema: { query: ListQuery, response: { 200: Paginated(EstRequest, 'EstRequestListResponse') } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => c.knex('pki_est_requests').select(...COLUMNS),
          equals: { status: 'status' },
          searchColumns: ['subject', 'san', 'requester'],
          sortColumns: { created_at: 'created_at' },
          defaultSort: 'created_at',
          defaultPerPage: 20,
          tieBreaker: 'id',
          map: (r: Row) => toRequest(r),
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/pki/est-requests/{request_id}/decision',
      permission: PKI_ISSUE,
      summary: 'Decide a held EST enrollment',
      description: 'As the approver\'s link does (which is spent by it too). A decided request answers 409 PKI_EST_REQUEST_DECIDED. Audited as `est_request.approve` / `est_request.reject` (via `api`).',
      tags: ['pki'],
      schema: { params: RequestParams, body: Decision, response: { 200: EstRequest, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => decide(req, req.params.request_id, req.body.decision, 'api'),
    }),
  ]
}
