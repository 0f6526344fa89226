/**
 * The console's preview of a portal: its landing page exactly as a guest sees it (the methods' forms,
 * branding, terms), in the language asked, without starting a session (the forms carry no usable
 * CSRF token, so nothing posted from a preview does anything).
 */
import { CommonErrors, defineRoute, ErrorBody, Type, type RouteDefinition } from '../../../sdk/index.js'
import { PORTAL_READ } from '../permissions.js'
import { htmlReply } from '../pages/http.js'
import { asLang } from '../pages/strings.js'
import { sessionPage } from '../pages/views.js'
import { PortalParams } from '../schemas/portals.js'
import type { PortalContext } from '../services/context.js'

export function previewRoutes(c: PortalContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/captive-portal/portals/{portal_id}/preview',
      permission: PORTAL_READ,
      summary: 'A portal\'s landing page as a guest sees it (HTML)',
      description: '`lang` en or ru (default: Accept-Language). The page\'s forms post nowhere useful: a preview starts no guest session.',
      tags: ['captive-portal'],
      download: { mediaTypes: ['text/html'] },
      schema: { params: PortalParams, query: Type.Object({ lang: Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('ru')])) }), response: { 200: 'file', 404: ErrorBody } },
      handler: async (req) => {
        const portal = await c.knex('portal_portals').where({ id: req.params.portal_id }).first()
        if (!portal) throw CommonErrors.notFound({ field: 'portal_id' })
        const hasAccounts = !!(await c.knex('portal_guests').where({ portal_id: portal.id, kind: 'account' }).first('id'))
        const page = sessionPage({ portal, lang: req.query.lang ?? asLang(req.lang) ?? 'en', csrf: 'preview', session: null, hasAccounts })
        return htmlReply(200, page.body)
      },
    }),
  ] as RouteDefinition[]
}
