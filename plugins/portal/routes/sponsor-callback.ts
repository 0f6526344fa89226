/**
 * The sponsor's link: `GET /captive-portal/sponsor/callback?token=…` shows who asks (escaped) with
 * approve and deny buttons posting to the same path (a form, or JSON `{token, decision}`). Single
 * use: decided → 410; expired → 410; unknown → 404. Rate-limited per client IP, as the contract says.
 */
import { CommonErrors, defineRoute, ErrorBody, isPortcullisError, PUBLIC, Type, type RouteDefinition, type RouteRequest } from '../../../sdk/index.js'
import { htmlReply } from '../pages/http.js'
import { sponsorDonePage, sponsorPage } from '../pages/sponsor.js'
import { asLang, type Lang } from '../pages/strings.js'
import { errorPage } from '../pages/views.js'
import type { PortalContext } from '../services/context.js'
import { decideSponsorRequest, requestDetails, requestOfToken } from '../services/sponsor.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's request
type Req = RouteRequest<any, any, any>

const PATH = '/captive-portal/sponsor/callback'
export const SPONSOR_LIMIT = { max: 20, windowSeconds: 60 } as const
const TAGS = ['captive-portal (guest)']
const langOf = (req: Req, asked?: string): Lang => asLang(asked) ?? asLang(req.lang) ?? 'en'

function failure(req: Req, lang: Lang, e: unknown) {
  if (!isPortcullisError(e) || e.status === 429 || e.status >= 500) throw e
  return htmlReply(e.status, errorPage(null, lang, req.t(e.messageKey, e.vars), `/api/v1${PATH}`))
}

/** The decision as posted: a form (the page's buttons) or JSON (a client of its own). */
function decisionOf(req: Req): { token: string; decision: 'approve' | 'deny'; json: boolean } {
  const raw = req.rawBody?.toString('utf8') ?? ''
  const json = (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')
  let fields: Record<string, unknown>
  if (json) {
    try {
      const parsed: unknown = JSON.parse(raw)
      fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
    } catch {
      throw CommonErrors.validation({ field: 'token' })
    }
  } else fields = Object.fromEntries(new URLSearchParams(raw))
  const token = typeof fields.token === 'string' ? fields.token : ''
  const decision = fields.decision
  if (!token || token.length > 100) throw CommonErrors.validation({ field: 'token' })
  if (decision !== 'approve' && decision !== 'deny') throw CommonErrors.validation({ field: 'decision' })
  return { token, decision, json }
}

export function sponsorCallbackRoutes(c: PortalContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: PATH,
      permission: PUBLIC,
      rateLimit: SPONSOR_LIMIT,
      summary: 'The sponsor\'s page: who asks, approve or deny',
      description: 'HTML. 404 for an unknown token, 410 once decided or expired.',
      tags: TAGS,
      download: { mediaTypes: ['text/html'] },
      schema: { query: Type.Object({ token: Type.String({ maxLength: 100 }), lang: Type.Optional(Type.String({ maxLength: 5 })) }), response: { 200: 'file', 404: 'file', 410: 'file' } },
      handler: async (req) => {
        const lang = langOf(req, req.query.lang)
        try {
          const r = await requestOfToken(c, req.query.token)
          return htmlReply(200, sponsorPage(lang, req.query.token, await requestDetails(c, r)))
        } catch (e) {
          return failure(req, lang, e)
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: PATH,
      permission: PUBLIC,
      rateLimit: SPONSOR_LIMIT,
      rawBody: { mediaTypes: ['application/x-www-form-urlencoded', 'application/json'], maxBytes: 4096, description: '`token` and `decision` (`approve` or `deny`), as the page\'s form or as JSON.' },
      summary: 'The sponsor\'s decision',
      description: 'A form answers an HTML page; JSON answers `{status}`. Single use: 410 SPONSOR_LINK_SPENT once decided, 410 SPONSOR_LINK_EXPIRED after the portal\'s sponsor_link_minutes, 404 for an unknown token.',
      tags: TAGS,
      download: { mediaTypes: ['text/html'] },
      schema: { response: { 200: Type.Object({ status: Type.String() }, { additionalProperties: false }), 404: ErrorBody, 410: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        const lang = langOf(req)
        let json = true
        try {
          const d = decisionOf(req)
          json = d.json
          const r = await requestOfToken(c, d.token)
          const decided = await decideSponsorRequest(c, r.id, d.decision, { via: 'link', requestId: req.requestId })
          if (json) return { status: decided.status }
          return htmlReply(200, sponsorDonePage(lang, d.decision))
        } catch (e) {
          if (json) throw e
          return failure(req, lang, e)
        }
      },
    }),
  ] as RouteDefinition[]
}
