/**
 * A redirect that names no portal: `/portal?mac=…&nas=…&ssid=…&sig=…`. One
 * redirect profile can then serve every site and SSID, and the portal is
 * chosen by where the guest is: the enabled portal that lists the NAS's
 * address, else the one that lists the SSID (several: the first by name).
 * The answer sends the browser on to that portal's page with the same query,
 * which checks the signature again and starts the session.
 */
import { defineRoute, PUBLIC, type PortcullisError, type RouteDefinition } from '../../../sdk/index.js'
import { PortalErrors } from '../errors.js'
import { htmlReply, seeOther } from '../pages/http.js'
import { asLang } from '../pages/strings.js'
import { errorPage } from '../pages/views.js'
import type { PortalContext } from '../services/context.js'
import type { PortalRow } from '../tables.js'
import { PAGE_LIMIT } from './actions.js'
import { HTML, PAGE_DOWNLOAD, Redirect, TAGS } from './pages.js'

/** The enabled portal for a NAS address or an SSID; null when none lists either. */
export async function portalFor(c: PortalContext, where: { nas_ip: string | null; ssid: string | null }): Promise<PortalRow | null> {
  const pick = async (column: 'nas_ips' | 'ssids', value: string | null) =>
    value === null ? undefined : await c.knex('portal_portals').where({ enabled: true }).whereRaw(`${column} @> ?::jsonb`, [JSON.stringify([value])]).orderBy('name').first()
  return (await pick('nas_ips', where.nas_ip?.toLowerCase() ?? null)) ?? (await pick('ssids', where.ssid)) ?? null
}

export function portalChoiceRoutes(c: PortalContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/portal',
      root: true,
      permission: PUBLIC,
      rateLimit: PAGE_LIMIT,
      summary: 'Guest landing without a portal in the path: chosen by the NAS or the SSID',
      description:
        'The redirect of a `portal_redirect` profile whose URL names no portal. Answers 303 to `/portal/{slug}` with the same query, for the enabled portal whose `nas_ips` holds the NAS address of the (signed) redirect, else whose `ssids` holds its SSID; 403 page when the redirect\'s signature is wrong, 404 page when no portal fits.',
      tags: TAGS,
      download: PAGE_DOWNLOAD,
      schema: { query: Redirect, response: HTML },
      handler: async (req) => {
        const lang = asLang(req.query.lang) ?? asLang(req.lang) ?? 'en'
        const query = Object.fromEntries(Object.entries(req.query as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'))
        const refuse = (e: PortcullisError) => htmlReply(e.status, errorPage(null, lang, req.t(e.messageKey, e.vars), '/portal'))
        // Nothing says where the guest is (the page opened by hand): no portal to go to.
        if (query.mac === undefined) return refuse(PortalErrors.portalNotFound())
        const redirect = await c.nac.verifyPortalRedirect(query)
        if (!redirect) return refuse(PortalErrors.redirectInvalid())
        const portal = await portalFor(c, { nas_ip: redirect.nas_ip, ssid: redirect.ssid })
        if (!portal) return refuse(PortalErrors.portalNotFound())
        return seeOther(`/portal/${encodeURIComponent(portal.slug)}?${new URLSearchParams(query).toString()}`)
      },
    }),
  ]
}
