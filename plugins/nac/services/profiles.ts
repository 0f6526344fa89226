/** Authorization profiles: reading them as the API shows them, and checking a profile as a whole before it is written. */
import type { Knex } from 'knex'
import type { NacAuthorization } from '../../../sdk/index.js'
import { CommonErrors } from '../../../sdk/index.js'
import { NacErrors, valueError } from '../errors.js'
import type { AuthorizationProfileCreate } from '../schemas/profiles.js'
import type { AuthorizationProfileRow } from '../tables.js'
import { replyOf, valueProblem, vlanProblem, type ProfileFields } from './values.js'

type Db = Knex | Knex.Transaction

export const PROFILES = 'nac_authorization_profiles'

const iso = (d: Date | string) => new Date(d).toISOString()

export const toProfile = (r: AuthorizationProfileRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  deny: r.deny,
  vlan: r.vlan,
  acl: r.acl,
  cisco_acl: r.cisco_acl,
  cisco_url_redirect: r.cisco_url_redirect,
  cisco_url_redirect_acl: r.cisco_url_redirect_acl,
  portal_redirect: r.portal_redirect,
  aruba_user_role: r.aruba_user_role,
  session_timeout: r.session_timeout,
  reauthenticate: r.reauthenticate,
  reply: replyOf(r),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export type ProfileResponse = ReturnType<typeof toProfile>

export async function loadProfile(db: Db, id: string): Promise<ProfileResponse | null> {
  const row = await db(PROFILES).where({ id }).first()
  return row ? toProfile(row) : null
}

/** What a profile decides, as the compiled policy carries it. */
export const authorizationOf = (r: AuthorizationProfileRow): NacAuthorization => ({ profile_id: r.id, profile_name: r.name, deny: r.deny, reply: r.deny ? [] : replyOf(r) })

/** The attribute fields (everything a deny must leave empty), in the order the checks report them. */
const ATTRIBUTE_FIELDS = ['vlan', 'acl', 'cisco_acl', 'cisco_url_redirect', 'cisco_url_redirect_acl', 'portal_redirect', 'aruba_user_role', 'session_timeout', 'reauthenticate'] as const

/**
 * The longest url-redirect that takes the signed parameters: a Cisco-AVPair holds 247 bytes; the
 * parameters take up to 134 with an IPv6 NAS (`url-redirect=`, `?mac=` 17, `&nas=` 39, `&ssid=`,
 * `&sig=` 40), which leaves the SSID of a wireless Called-Station-Id (`aa-bb-cc-dd-ee-ff%3AGuest%20WiFi`) room.
 */
export const PORTAL_URL_MAX = 100

type Body = Partial<AuthorizationProfileCreate>

/** The stored columns of `body` laid over `base` (a create starts from nothing), checked as a whole: the first fault answers 422 at its field. */
export function profileColumns(body: Body, base: ProfileFields | null): ProfileFields {
  const pick = <K extends keyof ProfileFields>(k: K, dflt: ProfileFields[K]): ProfileFields[K] => {
    const v = body[k as keyof Body]
    return v === undefined ? (base ? base[k] : dflt) : (v as ProfileFields[K])
  }
  const vlanIn = body.vlan
  const p: ProfileFields = {
    deny: pick('deny', false),
    vlan: vlanIn === undefined ? (base?.vlan ?? null) : vlanIn === null ? null : String(vlanIn).trim(),
    acl: pick('acl', null),
    cisco_acl: pick('cisco_acl', []),
    cisco_url_redirect: pick('cisco_url_redirect', null),
    cisco_url_redirect_acl: pick('cisco_url_redirect_acl', null),
    portal_redirect: pick('portal_redirect', false),
    aruba_user_role: pick('aruba_user_role', null),
    session_timeout: pick('session_timeout', null),
    reauthenticate: pick('reauthenticate', false),
  }
  if (p.vlan !== null) {
    const why = vlanProblem(p.vlan)
    if (why) throw NacErrors.vlanInvalid({ field: 'vlan', vars: { vlan: p.vlan } })
  }
  for (const k of ['acl', 'cisco_url_redirect', 'cisco_url_redirect_acl', 'aruba_user_role'] as const) {
    const v = p[k]
    const why = v === null ? null : valueProblem(v)
    if (why) throw valueError(why, k)
  }
  p.cisco_acl.forEach((line, i) => {
    const why = valueProblem(line)
    if (why) throw valueError(why, `cisco_acl[${i}]`)
  })
  if (p.cisco_url_redirect !== null && !/^https?:\/\/[^\s/]+/i.test(p.cisco_url_redirect)) throw NacErrors.redirectNotUrl({ field: 'cisco_url_redirect' })
  if (p.cisco_url_redirect !== null && p.cisco_url_redirect_acl === null) throw NacErrors.redirectNeedsAcl({ field: 'cisco_url_redirect_acl' })
  if (p.cisco_url_redirect_acl !== null && p.cisco_url_redirect === null) throw NacErrors.redirectNeedsAcl({ field: 'cisco_url_redirect' })
  if (p.portal_redirect && p.cisco_url_redirect === null) throw CommonErrors.validation({ field: 'portal_redirect' })
  if (p.portal_redirect && p.cisco_url_redirect!.length > PORTAL_URL_MAX) throw CommonErrors.validation({ field: body.cisco_url_redirect !== undefined ? 'cisco_url_redirect' : 'portal_redirect' })
  if (p.reauthenticate && p.session_timeout === null) throw NacErrors.reauthNeedsTimeout({ field: 'reauthenticate' })
  if (p.deny) {
    const set = ATTRIBUTE_FIELDS.find((k) => (k === 'cisco_acl' ? p.cisco_acl.length > 0 : k === 'reauthenticate' || k === 'portal_redirect' ? p[k] : p[k] !== null))
    // Name the field the request gave, when it gave one (`deny: true` over a profile with a VLAN names `deny`).
    if (set) throw NacErrors.denyWithAttributes({ field: body[set] !== undefined ? set : 'deny', vars: { field: set } })
  }
  return p
}
