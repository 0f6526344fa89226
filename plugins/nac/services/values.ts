/**
 * The values an authorization profile or a NAC rule writes into the FreeRADIUS
 * configuration (reply attributes, device types, certificate fields), and the
 * reply a profile gives.
 *
 * Every value is rendered inside a double-quoted unlang string by another
 * plugin (the radius renderer), so rather than trusting its escaping we keep
 * out everything that could change the meaning of the tree: quotes and
 * backslashes (the end of the string, an escape), control characters (a line
 * break ends the statement), `%` (unlang expands `%{…}` and one-letter
 * `%x` at request time: `%{control:Cleartext-Password}` would send a password
 * to the switch), `${` and `$ENV{` (replaced while the daemon reads its
 * configuration, with no escape), and braces (they open and close sections).
 * The radius plugin's rules for device-administration values are looser
 * (it escapes `"` and `\`); nothing a NAC attribute needs uses these characters.
 */
import { NAME_REFUSED_CHAR, type NacReplyAttribute } from '../../../sdk/index.js'

export type ValueProblem = 'quote' | 'backslash' | 'control' | 'percent' | 'variable' | 'brace'

/** A lone surrogate: no character at all, and no daemon or switch reads it alike. */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * The first reason `value` cannot be written into the tree, or null. Control, line-break and
 * direction characters (the bidirectional overrides, embeddings, isolates and marks) are refused as
 * in names (sdk NAME_REFUSED_CHAR): `staff\u202Eloof` must not read as another ACL or role.
 */
export function valueProblem(value: string): ValueProblem | null {
  if (NAME_REFUSED_CHAR.test(value) || LONE_SURROGATE.test(value)) return 'control'
  if (/["'`]/.test(value)) return 'quote'
  if (value.includes('\\')) return 'backslash'
  if (/\$(ENV)?\{/.test(value)) return 'variable'
  if (value.includes('%')) return 'percent'
  if (/[{}]/.test(value)) return 'brace'
  return null
}

/** A VLAN as Tunnel-Private-Group-Id carries it: an id 1–4094 (no leading zero) or a name the switch maps. */
export function vlanProblem(vlan: string): 'range' | 'name' | null {
  if (/^[0-9]+$/.test(vlan)) return /^[1-9][0-9]{0,3}$/.test(vlan) && Number(vlan) <= 4094 ? null : 'range'
  return /^[A-Za-z][A-Za-z0-9._-]{0,31}$/.test(vlan) ? null : 'name'
}

/** What a profile holds that makes its reply. */
export interface ProfileFields {
  deny: boolean
  vlan: string | null
  acl: string | null
  cisco_acl: readonly string[]
  cisco_url_redirect: string | null
  cisco_url_redirect_acl: string | null
  /** The url-redirect carries the session's signed parameters (services/portal-redirect.ts). */
  portal_redirect: boolean
  aruba_user_role: string | null
  session_timeout: number | null
  reauthenticate: boolean
}

/**
 * The reply attributes, in a fixed order (VLAN, ACLs, vendor attributes, timers), so the rendered
 * tree and the policy test list them alike. A deny has none.
 */
export function replyOf(p: ProfileFields): NacReplyAttribute[] {
  if (p.deny) return []
  const out: NacReplyAttribute[] = []
  const add = (attribute: string, value: string) => out.push({ attribute, value })
  if (p.vlan !== null) {
    add('Tunnel-Type', 'VLAN')
    add('Tunnel-Medium-Type', 'IEEE-802')
    add('Tunnel-Private-Group-Id', p.vlan)
  }
  if (p.acl !== null) add('Filter-Id', p.acl)
  p.cisco_acl.forEach((ace, i) => add('Cisco-AVPair', `ip:inacl#${i + 1}=${ace}`))
  if (p.cisco_url_redirect !== null) {
    // The renderer appends the signed mac, nas, ssid and sig at request time (radius renderers/nac-portal.ts).
    if (p.portal_redirect) out.push({ attribute: 'Cisco-AVPair', value: `url-redirect=${p.cisco_url_redirect}`, portal_session: true })
    else add('Cisco-AVPair', `url-redirect=${p.cisco_url_redirect}`)
  }
  if (p.cisco_url_redirect_acl !== null) add('Cisco-AVPair', `url-redirect-acl=${p.cisco_url_redirect_acl}`)
  if (p.aruba_user_role !== null) add('Aruba-User-Role', p.aruba_user_role)
  if (p.session_timeout !== null) add('Session-Timeout', String(p.session_timeout))
  if (p.reauthenticate) add('Termination-Action', 'RADIUS-Request')
  return out
}
