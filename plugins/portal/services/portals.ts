/**
 * Portals as the admin API reads and checks them: the row without the logo's
 * bytes, and the rules that hold across fields (a method needs its endpoint
 * group, sponsored needs sponsors, the references exist and stay).
 */
import { isIP } from 'node:net'
import type { Knex } from 'knex'
import { jsonText, type Actor, type UpdateOf } from '../../../sdk/index.js'
import { PortalErrors as E } from '../errors.js'
import { PORTAL_SPONSOR } from '../permissions.js'
import type { PortalResponse } from '../schemas/portals.js'
import type { PortalRow, PortalTable } from '../tables.js'
import type { PortalContext } from './context.js'

type Db = Knex | Knex.Transaction
export const PORTALS = 'portal_portals'

/** Every column but the logo's bytes (a list of portals never carries images). */
export const PORTAL_COLUMNS = [
  'id', 'name', 'slug', 'description', 'enabled', 'methods', 'nas_ips', 'ssids', 'accept_unsigned_redirect', 'guest_endpoint_group_id', 'byod_endpoint_group_id',
  'guest_minutes', 'byod_days', 'byod_device_limit', 'byod_onboarding', 'self_registration_fields', 'sponsor_domains', 'sponsor_group_id', 'sponsor_link_minutes',
  'branding', 'logo_type', 'created_at', 'updated_at',
] as const
export type PortalListRow = Pick<PortalRow, (typeof PORTAL_COLUMNS)[number]>

export function toPortal(r: PortalListRow): PortalResponse {
  const { logo_type, created_at, updated_at, ...rest } = r
  return {
    ...rest,
    url_path: `/portal/${r.slug}`,
    has_logo: logo_type !== null,
    logo_url: logo_type !== null ? `/portal/${r.slug}/logo` : null,
    created_at: created_at.toISOString(),
    updated_at: updated_at.toISOString(),
  }
}

export const selectPortals = (db: Db) => db(PORTALS).select(...PORTAL_COLUMNS)
export async function loadPortal(db: Db, id: string): Promise<PortalResponse | null> {
  const row = await selectPortals(db).where({ id }).first()
  return row ? toPortal(row as PortalListRow) : null
}

/** The writable fields as the row stores them (the API's shape after the defaults). */
export type PortalFields = Omit<PortalResponse, 'id' | 'url_path' | 'has_logo' | 'logo_url' | 'created_at' | 'updated_at'>

const GUEST_METHODS = ['hotspot', 'self_registration', 'sponsored'] as const
const RESERVED_FIELDS = new Set(['name', 'email'])

/**
 * The rules across fields and the references, on the portal as it will be (a create's body with
 * the defaults, or the stored portal with a change's fields): 422 at the field that breaks one.
 * The referenced groups are locked FOR KEY SHARE until `trx` commits, so none is deleted under it.
 */
export async function checkPortal(c: PortalContext, trx: Knex.Transaction, p: PortalFields, before: PortalFields | null, actor: Actor): Promise<void> {
  p.nas_ips.forEach((ip, i) => {
    if (!isIP(ip)) throw E.nasIpInvalid({ field: `nas_ips[${i}]` })
  })
  const seen = new Set<string>()
  p.self_registration_fields.forEach((f, i) => {
    if (RESERVED_FIELDS.has(f.name) || seen.has(f.name)) throw E.registrationFieldName({ field: `self_registration_fields[${i}].name`, vars: { name: f.name } })
    seen.add(f.name)
  })
  const guestMethod = p.methods.find((m) => (GUEST_METHODS as readonly string[]).includes(m))
  if (guestMethod && !p.guest_endpoint_group_id) throw E.methodNeedsGroup({ field: 'guest_endpoint_group_id', vars: { method: guestMethod } })
  if (p.methods.includes('byod') && !p.byod_endpoint_group_id) throw E.methodNeedsGroup({ field: 'byod_endpoint_group_id', vars: { method: 'byod' } })
  if (p.methods.includes('sponsored') && !p.sponsor_domains.length && !p.sponsor_group_id) throw E.sponsoredNeedsSponsors({ field: 'sponsor_domains' })
  if (p.byod_onboarding === 'certificate' && !c.pki) throw E.onboardingUnavailable({ field: 'byod_onboarding' })
  for (const field of ['guest_endpoint_group_id', 'byod_endpoint_group_id'] as const) {
    const id = p[field]
    if (id && !(await c.nac.references.endpoint_group.lockExisting([id], trx)).has(id.toLowerCase())) throw E.referenceNotFound({ field, vars: { id } })
  }
  const group = p.sponsor_group_id
  if (group && group !== before?.sponsor_group_id) {
    // Its members would hold portal.sponsor by membership: the rule of a role granting it (docs/security.md).
    if (!actor.isAdmin && !actor.permissions.has(PORTAL_SPONSOR)) throw E.sponsorGroupExceeds({ field: 'sponsor_group_id', vars: { permission: PORTAL_SPONSOR } })
    if (!(await c.identity.references.user_group.lockExisting([group], trx)).has(group.toLowerCase())) throw E.referenceNotFound({ field: 'sponsor_group_id', vars: { id: group } })
  }
}

/** The row to write: JSON columns as JSON text (the drivers would make a PostgreSQL array of a JS array). */
export function portalRow(p: Partial<PortalFields>): UpdateOf<typeof PortalTable> {
  const { methods, nas_ips, ssids, self_registration_fields, sponsor_domains, branding, ...plain } = p
  const json = <T>(v: T | undefined) => (v === undefined ? undefined : jsonText(v))
  return {
    ...plain,
    methods: json(methods),
    nas_ips: json(nas_ips),
    ssids: json(ssids),
    self_registration_fields: json(self_registration_fields),
    sponsor_domains: json(sponsor_domains),
    branding: json(branding),
  }
}

/** The portals' references to NAC endpoint groups and user groups: deleting one a portal names answers 409, naming the portal. */
export function registerPortalGuards(c: Pick<PortalContext, 'nac' | 'identity'>): void {
  const naming = (columns: string[]) => async (ids: readonly string[], db: Db) => {
    const rows = await db(PORTALS)
      .where((w) => {
        for (const col of columns) w.orWhereIn(col, ids as string[])
      })
      .select('id', 'name')
      .orderBy('name')
    return rows.map((r) => ({ type: 'captive_portal', id: r.id as string, name: r.name as string }))
  }
  c.nac.references.endpoint_group.registerGuard({ onDelete: 'restrict', referrers: naming(['guest_endpoint_group_id', 'byod_endpoint_group_id']) })
  c.identity.references.user_group.registerGuard({ onDelete: 'restrict', referrers: naming(['sponsor_group_id']) })
}
