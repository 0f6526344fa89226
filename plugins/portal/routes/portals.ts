/** /captive-portal/portals: what each portal offers, grants and looks like. */
import { defineRoute, ErrorBody, givenFields, lockForChange, orNotFound, paginate, reply, uniqueColumn, uniqueViolation } from '../../../sdk/index.js'
import { PortalErrors as E } from '../errors.js'
import { PORTAL_MANAGE, PORTAL_READ } from '../permissions.js'
import { PortalCreate, PortalListQuery, PortalListResponse, PortalParams, PortalResponse, PortalUpdate } from '../schemas/portals.js'
import type { PortalContext } from '../services/context.js'
import { checkPortal, loadPortal, PORTALS, portalRow, selectPortals, toPortal, type PortalFields, type PortalListRow } from '../services/portals.js'

const names = uniqueColumn({ table: PORTALS, taken: E.portalNameTaken, index: 'portal_portals_name_ci' })
const slugs = uniqueColumn({ table: PORTALS, column: 'slug', taken: E.portalSlugTaken, index: 'portal_portals_slug' })

const onWriteError = (name: string, slug: string) => (e: unknown) => {
  const index = uniqueViolation(e)
  if (index === 'portal_portals_name_ci') throw names.taken(name)
  if (index === 'portal_portals_slug') throw slugs.taken(slug)
  throw e
}

const lowerDomains = (d: string[] | undefined) => (d === undefined ? undefined : [...new Set(d.map((x) => x.toLowerCase()))])
const lowerIps = (d: string[] | undefined) => (d === undefined ? undefined : [...new Set(d.map((x) => x.toLowerCase()))])

const CHECKS =
  'A guest method (hotspot, self_registration, sponsored) without `guest_endpoint_group_id`, or byod without `byod_endpoint_group_id`: 422 PORTAL_METHOD_NEEDS_GROUP at that field. `sponsored` with neither `sponsor_domains` nor `sponsor_group_id`: 422 PORTAL_SPONSORED_NEEDS_SPONSORS. An id naming nothing: 422 REFERENCE_NOT_FOUND. A `sponsor_group_id` set by someone who does not hold `portal.sponsor` (its members would): 403 GROUP_EXCEEDS_OWN_PERMISSIONS. Name or slug taken: 409 PORTAL_NAME_TAKEN / PORTAL_SLUG_TAKEN.'

export function portalRoutes(c: PortalContext) {
  const { knex } = c
  return [
    defineRoute({
      method: 'GET',
      path: '/captive-portal/portals',
      permission: PORTAL_READ,
      summary: 'List captive portals',
      description: '`search` matches name, slug and description; `enabled` and `method` filter.',
      tags: ['captive-portal'],
      schema: { query: PortalListQuery, response: { 200: PortalListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => selectPortals(knex),
          equals: { enabled: 'enabled' },
          filter: (qb) => {
            if (query.method) qb.whereRaw('methods @> ?::jsonb', [JSON.stringify([query.method])])
          },
          searchColumns: ['name', 'slug', 'description'],
          sortColumns: { name: 'name', slug: 'slug', created_at: 'created_at', updated_at: 'updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'id',
          map: (r: PortalListRow) => toPortal(r),
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/captive-portal/portals',
      permission: PORTAL_MANAGE,
      summary: 'Create a captive portal',
      description: CHECKS,
      tags: ['captive-portal'],
      schema: { body: PortalCreate, response: { 201: PortalResponse, 403: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const p: PortalFields = {
          name: b.name,
          slug: b.slug,
          description: b.description ?? null,
          enabled: b.enabled ?? true,
          methods: b.methods,
          nas_ips: lowerIps(b.nas_ips) ?? [],
          ssids: b.ssids ?? [],
          accept_unsigned_redirect: b.accept_unsigned_redirect ?? false,
          guest_endpoint_group_id: b.guest_endpoint_group_id ?? null,
          byod_endpoint_group_id: b.byod_endpoint_group_id ?? null,
          guest_minutes: b.guest_minutes ?? 480,
          byod_days: b.byod_days ?? null,
          byod_device_limit: b.byod_device_limit ?? 3,
          byod_onboarding: b.byod_onboarding ?? 'none',
          self_registration_fields: b.self_registration_fields ?? [],
          sponsor_domains: lowerDomains(b.sponsor_domains) ?? [],
          sponsor_group_id: b.sponsor_group_id ?? null,
          sponsor_link_minutes: b.sponsor_link_minutes ?? 60,
          branding: b.branding ?? {},
        }
        return req.transaction(async (trx) => {
          await checkPortal(c, trx, p, null, req.actor!)
          await names.assertFree(trx, p.name)
          await slugs.assertFree(trx, p.slug)
          const [{ id }] = await trx.transaction((sp) => sp(PORTALS).insert({ ...portalRow(p), name: p.name, slug: p.slug }).returning('id')).catch(onWriteError(p.name, p.slug))
          const after = (await loadPortal(trx, id))!
          await req.audit({ action: 'captive_portal.create', resourceType: 'captive_portal', resourceId: id, after }, trx)
          return reply({ status: 201, body: after })
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/captive-portal/portals/{portal_id}',
      permission: PORTAL_READ,
      summary: 'Get a captive portal',
      tags: ['captive-portal'],
      schema: { params: PortalParams, response: { 200: PortalResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await loadPortal(knex, params.portal_id), 'portal_id'),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/captive-portal/portals/{portal_id}',
      permission: PORTAL_MANAGE,
      summary: 'Change a captive portal',
      description: `Partial: only the fields given change (\`branding\` as a whole). The rules hold on the portal as it will be. ${CHECKS} Sessions already active keep their expiry and group.`,
      tags: ['captive-portal'],
      schema: { params: PortalParams, body: PortalUpdate, response: { 200: PortalResponse, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        const id = req.params.portal_id
        const b = { ...req.body, sponsor_domains: lowerDomains(req.body.sponsor_domains), nas_ips: lowerIps(req.body.nas_ips) }
        return req.transaction(async (trx) => {
          const before = await lockForChange(trx, PORTALS, id, 'portal_id', loadPortal)
          const given = givenFields(b, [
            'name', 'slug', 'description', 'enabled', 'methods', 'nas_ips', 'ssids', 'accept_unsigned_redirect', 'guest_endpoint_group_id', 'byod_endpoint_group_id', 'guest_minutes',
            'byod_days', 'byod_device_limit', 'byod_onboarding', 'self_registration_fields', 'sponsor_domains', 'sponsor_group_id', 'sponsor_link_minutes', 'branding',
          ]) as Partial<PortalFields>
          const { id: _i, url_path: _u, has_logo: _h, logo_url: _l, created_at: _c, updated_at: _up, ...stored } = before
          const next: PortalFields = { ...stored, ...given }
          await checkPortal(c, trx, next, stored, req.actor!)
          if (given.name !== undefined) await names.assertFree(trx, next.name, id)
          if (given.slug !== undefined) await slugs.assertFree(trx, next.slug, id)
          await trx
            .transaction((sp) => sp(PORTALS).where({ id }).update({ ...portalRow(given), updated_at: new Date() }))
            .catch(onWriteError(next.name, next.slug))
          const after = (await loadPortal(trx, id))!
          await req.audit({ action: 'captive_portal.update', resourceType: 'captive_portal', resourceId: id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/captive-portal/portals/{portal_id}',
      permission: PORTAL_MANAGE,
      summary: 'Delete a captive portal',
      description:
        'Its guests, sessions and requests go with it. A portal with active sessions (devices it put in an endpoint group) answers 409 PORTAL_IN_USE: end them (or disable the portal and let them expire) first, so that no device keeps a group nobody will take it out of.',
      tags: ['captive-portal'],
      schema: { params: PortalParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.portal_id
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, PORTALS, id, 'portal_id', loadPortal)
          const { n } = (await trx('portal_sessions').where({ portal_id: id, state: 'active' }).count({ n: '*' }).first()) as { n: string | number }
          if (Number(n)) throw E.portalInUse({ field: 'portal_id', vars: { count: Number(n) } })
          await trx(PORTALS).where({ id }).delete()
          await req.audit({ action: 'captive_portal.delete', resourceType: 'captive_portal', resourceId: id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
