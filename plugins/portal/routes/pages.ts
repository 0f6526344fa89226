/**
 * The guest's pages, outside /api/v1: `/portal/{slug}` (the NAS's redirect lands here), its status
 * page, a form target per step, the logo and the stylesheets. Server-rendered HTML that works
 * without JavaScript; every form carries the session's CSRF token; every route is rate-limited per
 * client IP (the stylesheet, static, excepted).
 */
import { defineRoute, isPortcullisError, PUBLIC, reply, Type, type RouteDefinition, type RouteRequest } from '../../../sdk/index.js'
import { PortalErrors } from '../errors.js'
import type { FormState } from '../pages/forms.js'
import { FORM_BODY, formFields, htmlReply, seeOther } from '../pages/http.js'
import { asLang, pageText, type Lang } from '../pages/strings.js'
import { PORTAL_CSS, themeCss } from '../pages/style.js'
import { WAIT_CSP, WAIT_JS, WAIT_SCRIPT } from '../pages/layout.js'
import { errorPage, sessionPage, type ViewContext } from '../pages/views.js'
import type { PortalRow, SessionRow } from '../tables.js'
import type { PortalContext } from '../services/context.js'
import { employeeFactors } from '../services/byod.js'
import { cookieToken, csrfToken, csrfValid, portalBySlug, sessionCookie, sessionOfToken, startSession } from '../services/guest-session.js'
import { auditOf, GUEST_ACTIONS, limitOf, PAGE_LIMIT, runAction, type ActionInput, type GuestAction } from './actions.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's request
type Req = RouteRequest<any, any, any>

const Slug = Type.Object({ slug: Type.String({ maxLength: 100 }) })
export const Redirect = Type.Object(
  {
    mac: Type.Optional(Type.String({ maxLength: 64 })),
    nas: Type.Optional(Type.String({ maxLength: 64 })),
    ssid: Type.Optional(Type.String({ maxLength: 300 })),
    sig: Type.Optional(Type.String({ maxLength: 128 })),
    lang: Type.Optional(Type.String({ maxLength: 5 })),
  },
  // A NAS may append parameters of its own (Aruba's); they are ignored.
  { additionalProperties: true },
)
export const HTML = { 200: 'file', 303: null, 401: 'file', 403: 'file', 404: 'file', 409: 'file', 410: 'file', 422: 'file', 503: 'file' } as const
export const PAGE_DOWNLOAD = { mediaTypes: ['text/html'] }
export const TAGS = ['captive-portal (guest pages)']

/** Secure cookies when the client reached us over https (directly or through a proxy that says so). */
const overHttps = (req: Req) => req.headers['x-forwarded-proto'] === 'https'

/** The session language: `?lang=` (kept in the session), else what the session chose, else the browser's. */
const langOf = (req: Req, s: SessionRow | null, asked?: string) => asLang(asked) ?? asLang(s?.language) ?? asLang(req.lang) ?? 'en'

async function cookieSession(c: PortalContext, req: Req, portal: PortalRow): Promise<{ session: SessionRow; token: string } | null> {
  const token = cookieToken(req.headers.cookie)
  try {
    return token ? { session: await sessionOfToken(c, token, portal.id), token } : null
  } catch {
    return null
  }
}

/** What the state's page needs beyond the session: the address a code went to, the sponsor asked, a link gone stale. */
async function viewExtras(c: PortalContext, s: SessionRow): Promise<Partial<ViewContext>> {
  if (s.state === 'pending_code' && s.guest_id) return { email: (await c.knex('portal_guests').where({ id: s.guest_id }).first('email'))?.email ?? null }
  if (s.state === 'pending_approval') {
    const r = await c.knex('portal_sponsor_requests').where({ session_id: s.id }).orderBy('created_at', 'desc').first()
    return { email: r?.sponsor_email ?? null, sponsorExpired: !r || r.status === 'expired' || (r.status === 'pending' && new Date(r.expires_at).getTime() <= Date.now()) }
  }
  return {}
}

const hasAccounts = async (c: PortalContext, portal: PortalRow) => !!(await c.knex('portal_guests').where({ portal_id: portal.id, kind: 'account' }).first('id'))

async function render(c: PortalContext, portal: PortalRow, s: SessionRow, token: string, lang: Lang, more: Partial<ViewContext> = {}, headers: Record<string, string> = {}) {
  const v: ViewContext = { portal, lang, csrf: csrfToken(token), session: s, hasAccounts: s.state === 'started' && (await hasAccounts(c, portal)), ...(await viewExtras(c, s)), ...more }
  const page = sessionPage(v)
  return htmlReply(page.status, page.body, page.script ? { ...headers, 'Content-Security-Policy': WAIT_CSP } : headers)
}

/** A failure as a page: the kernel's JSON envelope means nothing to a guest's browser. */
function failurePage(req: Req, portal: PortalRow | null, lang: Lang, e: unknown, path: string) {
  if (!isPortcullisError(e) || e.status >= 500 && e.status !== 503) throw e
  if (e.status === 429) throw e
  return htmlReply(e.status, errorPage(portal, lang, req.t(e.messageKey, e.vars), path), e.headers)
}

export function pageRoutes(c: PortalContext): RouteDefinition[] {
  const landing = async (req: Req, slug: string, query: Record<string, string | undefined>, statusPage: boolean) => {
    let portal: PortalRow | null = null
    const path = `/portal/${encodeURIComponent(slug)}`
    try {
      portal = await portalBySlug(c, slug)
      let current = await cookieSession(c, req, portal)
      const headers: Record<string, string> = {}
      if (!statusPage && query.mac !== undefined) {
        const mac = c.nac.normalizeMac(query.mac)
        // The same device coming back keeps its session, unless it led nowhere (denied, or the sponsor never
        // answered): then, as the page tells the guest, opening a page again starts over. Another MAC starts one too.
        const over = current && (current.session.state === 'denied' || (current.session.state === 'pending_approval' && (await viewExtras(c, current.session)).sponsorExpired))
        if (!current || !mac || current.session.mac !== mac || over) {
          current = await startSession(c, { portal, redirect: { mac: query.mac, nas: query.nas, ssid: query.ssid, sig: query.sig }, clientIp: req.ip, language: asLang(query.lang) })
          headers['Set-Cookie'] = sessionCookie(current.token, overHttps(req))
        }
      }
      if (!current) throw PortalErrors.redirectInvalid()
      const lang = langOf(req, current.session, query.lang)
      if (asLang(query.lang) && current.session.language !== query.lang) {
        await c.knex('portal_sessions').where({ id: current.session.id }).update({ language: query.lang })
      }
      return await render(c, portal, current.session, current.token, lang, {}, headers)
    } catch (e) {
      return failurePage(req, portal, langOf(req, null, query.lang), e, path)
    }
  }

  const step = (action: GuestAction) =>
    defineRoute({
      method: 'POST',
      path: `/portal/{slug}/${action}`,
      root: true,
      permission: PUBLIC,
      rateLimit: limitOf(action),
      auditAs: auditOf(action),
      rawBody: FORM_BODY,
      summary: `Guest page form: ${action}`,
      description: 'A form of the portal page (cookie `portcullis_guest`, field `csrf`). Answers 303 to the portal page, or the page again (HTML) with what was wrong. The JSON API under /captive-portal/guest/ takes the same steps.',
      tags: TAGS,
      download: PAGE_DOWNLOAD,
      schema: { params: Slug, response: HTML },
      handler: async (req) => {
        let portal: PortalRow | null = null
        let lang: Lang = langOf(req, null)
        const path = `/portal/${encodeURIComponent(req.params.slug)}`
        try {
          portal = await portalBySlug(c, req.params.slug)
          const token = cookieToken(req.headers.cookie)
          const s = await sessionOfToken(c, token, portal.id)
          lang = langOf(req, s)
          const f = formFields(req.rawBody)
          if (!csrfValid(token!, f.csrf)) return htmlReply(403, errorPage(portal, lang, pageText(lang).csrf, path))
          const input: ActionInput = { ...f, fields: Object.fromEntries(Object.entries(f).flatMap(([k, v]) => (k.startsWith('fields.') ? [[k.slice(7), v]] : []))) }
          try {
            const out = await runAction(c, req, action, portal, s, input, lang)
            if (out.byod?.status === 'mfa_required') return render(c, portal, out.session, token!, lang, { byodMfaToken: out.byod.byod_mfa_token, factors: out.byod.factors })
            if (out.byod?.status === 'push_pending') {
              const push = { challenge: out.byod.push_challenge, number: out.byod.number }
              // A second ask that found no answer yet says so; the first shows the number alone.
              return render(c, portal, out.session, token!, lang, { byodMfaToken: out.byod.byod_mfa_token, push, message: action === 'byod-push-wait' ? pageText(lang).pushStill : null })
            }
            if (out.byod?.status === 'registered' && out.byod.certificate) return render(c, portal, out.session, token!, lang, { certificate: { path: out.byod.certificate.download_path, passphrase: out.byod.certificate.passphrase } })
            return seeOther(path)
          } catch (e) {
            if (!isPortcullisError(e) || e.status === 429 || e.code === PortalErrors.guestTokenInvalid.code) throw e
            const fresh = (await c.knex('portal_sessions').where({ id: s.id }).first()) ?? s
            const form = { hotspot: 'hs', register: 'reg', 'verify-code': 'code', sponsor: 'sp', login: 'emp', account: 'acc', 'byod-verify': 'mfa', 'byod-push': 'mfa', 'byod-push-wait': 'mfa' }[action]
            const values = Object.fromEntries(Object.entries(f).filter(([k]) => k !== 'password' && k !== 'csrf' && k !== 'byod_mfa_token'))
            const message = req.t(e.messageKey, e.vars)
            const state: FormState = { form, values, errors: e.field ? { [e.field.replace(/^fields\./, 'fields.')]: e.code === 'VALIDATION_FAILED' ? pageText(lang).fieldInvalid : message } : {} }
            // A wrong MFA code, or a push refused or not approved, keeps the token in the form for the next try; a burnt token starts over.
            const again = e.code !== PortalErrors.byodTokenInvalid.code && (action === 'byod-push' || action === 'byod-push-wait') && e.code.startsWith('BYOD_PUSH_')
            const keep = (action === 'byod-verify' && e.code === PortalErrors.byodCodeInvalid.code) || again ? { byodMfaToken: f.byod_mfa_token, factors: fresh.user_id ? await employeeFactors(c, fresh.user_id) : [] } : {}
            // A push's failure is about the page, not an input of it.
            const pageWide = again || !e.field
            return render(c, portal, fresh, token!, lang, { state: again ? null : state, message: pageWide ? message : pageText(lang).problem, status: e.status, ...keep })
          }
        } catch (e) {
          return failurePage(req, portal, lang, e, path)
        }
      },
    })

  return [
    defineRoute({
      method: 'GET',
      path: '/portal/assets/portal.css',
      root: true,
      permission: PUBLIC,
      summary: 'The guest pages\' stylesheet',
      tags: TAGS,
      download: { mediaTypes: ['text/css'] },
      schema: { response: { 200: 'file' } },
      handler: async () => reply({ body: PORTAL_CSS, contentType: 'text/css; charset=utf-8', headers: { 'Cache-Control': 'public, max-age=3600' } }),
    }),
    defineRoute({
      method: 'GET',
      path: WAIT_SCRIPT,
      root: true,
      permission: PUBLIC,
      summary: 'The sponsor wait\'s check (the pages\' one script, an enhancement)',
      tags: TAGS,
      download: { mediaTypes: ['text/javascript'] },
      schema: { response: { 200: 'file' } },
      handler: async () => reply({ body: WAIT_JS, contentType: 'text/javascript; charset=utf-8', headers: { 'Cache-Control': 'public, max-age=3600' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/portal/{slug}/theme.css',
      root: true,
      permission: PUBLIC,
      rateLimit: PAGE_LIMIT,
      summary: 'A portal\'s colours, as CSS variables',
      tags: TAGS,
      download: { mediaTypes: ['text/css'] },
      schema: { params: Slug, response: { 200: 'file', 404: null } },
      handler: async (req) => reply({ body: themeCss(await portalBySlug(c, req.params.slug)), contentType: 'text/css; charset=utf-8', headers: { 'Cache-Control': 'public, max-age=60' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/portal/{slug}/logo',
      root: true,
      permission: PUBLIC,
      rateLimit: PAGE_LIMIT,
      summary: 'A portal\'s logo',
      tags: TAGS,
      download: { mediaTypes: ['image/png', 'image/jpeg', 'image/gif'] },
      schema: { params: Slug, response: { 200: 'file', 404: null } },
      handler: async (req) => {
        const p = await portalBySlug(c, req.params.slug)
        if (!p.logo || !p.logo_type) throw PortalErrors.portalNotFound()
        return reply({ body: p.logo, contentType: p.logo_type, headers: { 'Cache-Control': 'public, max-age=300' } })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/portal/{slug}',
      root: true,
      permission: PUBLIC,
      rateLimit: PAGE_LIMIT,
      summary: 'The portal page (where the NAS redirects an unknown device)',
      description: 'With the redirect\'s parameters (`mac`, `nas`, `ssid`, `sig`: checked by the NAC) it starts a guest session (cookie `portcullis_guest`); without, it shows the session\'s current step. `lang=en|ru` switches the language.',
      tags: TAGS,
      download: PAGE_DOWNLOAD,
      schema: { params: Slug, query: Redirect, response: HTML },
      handler: async (req) => landing(req, req.params.slug, req.query as Record<string, string | undefined>, false),
    }),
    defineRoute({
      method: 'GET',
      path: '/portal/{slug}/status',
      root: true,
      permission: PUBLIC,
      rateLimit: PAGE_LIMIT,
      summary: 'The session\'s current step (the page waiting for a sponsor reloads it)',
      tags: TAGS,
      download: PAGE_DOWNLOAD,
      schema: { params: Slug, query: Type.Object({ lang: Type.Optional(Type.String({ maxLength: 5 })) }), response: HTML },
      handler: async (req) => landing(req, req.params.slug, req.query, true),
    }),
    ...GUEST_ACTIONS.map(step),
  ] as RouteDefinition[]
}
