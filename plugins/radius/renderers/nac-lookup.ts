/**
 * The hashed lookups of the NAC part of the tree (rlm_files users files, read by key, never walked,
 * like portcullis_users in users.ts): every key has a prefix, so none is ever the users file's DEFAULT.
 *
 *   portcullis/nac-endpoints  "m.<canonical MAC>": the endpoint's groups and device type
 *   portcullis/nac-users      "n.<lower-cased username>": the user's groups and expiry, or why refused
 *                             (PEAP inner identity, EAP-TLS certificate CN)
 *   portcullis/nac-clients    "c.<client shortname>": the device groups of the switch, ancestors included
 */
import type { FreeradiusConfigInput } from './input.js'
import type { FreeradiusNac } from './nac-input.js'
import { NAC_ATTRIBUTES as N, NAC_DEVICE_TYPE, NAC_ID } from './nac-attributes.js'
import { byteOrder, FreeradiusRenderError, HEADER, name, T, USERNAME } from './syntax.js'
import { quoteValue } from '../services/values.js'
import { epochSeconds } from './lockout.js'
import { writtenClients } from './policy.js'

/** The nac plugin's canonical MAC. */
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/
const item = (attr: string, op: ':=' | '+=', v: string, what: string) => {
  if (!(what === 'device type' ? NAC_DEVICE_TYPE : NAC_ID).test(v)) throw new FreeradiusRenderError(`${what} ${JSON.stringify(v)} is not an id the tree can compare`)
  return `${attr} ${op} ${quoteValue(v)}`
}

export function nacEndpoints(nac: FreeradiusNac): string {
  const out = [HEADER, '# The endpoints by canonical MAC (portcullis_nac_endpoints, keyed on "m.<MAC>"): groups and device type.']
  const seen = new Set<string>()
  for (const e of [...nac.endpoints].sort((a, b) => byteOrder(a.mac, b.mac))) {
    if (!MAC.test(e.mac)) throw new FreeradiusRenderError(`endpoint MAC ${JSON.stringify(e.mac)} is not in the canonical form aa:bb:cc:dd:ee:ff`)
    if (seen.has(e.mac)) continue
    seen.add(e.mac)
    const items = [...new Set(e.endpoint_group_ids)].sort(byteOrder).map((g) => item(N.endpointGroup, '+=', g, 'endpoint group'))
    if (e.device_type) items.push(item(N.deviceType, ':=', e.device_type, 'device type'))
    // An endpoint without groups or type is still known: an entry with no item is not valid, so the MAC itself.
    if (!items.length) items.push(`${N.mac} := "${e.mac}"`)
    out.push(`m.${e.mac}${T}${items.join(', ')}`)
  }
  out.push('')
  return out.join('\n')
}

/**
 * The users as 802.1X sees them, keyed on the lower-cased username (usernames are unique without
 * regard to case, so an EAP-TLS certificate's Common-Name names its user whatever its case, and a
 * disabled user cannot come back in through a certificate spelled "ALICE"): the groups, the expiry
 * (control:Expiration, which the `expiration` module checks and turns into the Session-Timeout of
 * the accept), or why the user may not use the network. A user with none of these needs no line:
 * it reads as a user in no group.
 */
export function nacUsers(input: FreeradiusConfigInput): string {
  const out = [HEADER, '# The users for 802.1X (portcullis_nac_users, keyed on "n.<lower-cased username>"): groups, expiry, or why refused.']
  const seen = new Set<string>()
  for (const u of [...input.users].sort((a, b) => byteOrder(a.username, b.username))) {
    name(u.username, 'username', USERNAME)
    const key = u.username.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    const items = [...new Set(u.group_ids)].sort(byteOrder).map((g) => item(N.userGroup, '+=', g, 'user group'))
    if (u.expires_at) items.push(`Expiration := ${epochSeconds(u.expires_at)}`)
    if (items.length) out.push(`n.${key}${T}${items.join(', ')}`)
  }
  for (const u of [...input.refusedUsers].sort((a, b) => byteOrder(a.username, b.username))) {
    name(u.username, 'username', USERNAME)
    const key = u.username.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    out.push(`n.${key}${T}${N.account} := ${quoteValue(u.reason)}`)
  }
  out.push('')
  return out.join('\n')
}

export function nacClients(input: FreeradiusConfigInput): string {
  const parent = new Map(input.deviceGroups.map((g) => [g.id, g.parent_id]))
  const out = [HEADER, '# The switches\' device groups, ancestors included (portcullis_nac_clients, keyed on "c.<client shortname>").']
  for (const { device } of [...writtenClients(input)].sort((a, b) => byteOrder(a.device.name, b.device.name))) {
    const groups: string[] = []
    for (let g = device.device_group_id; g && parent.has(g) && !groups.includes(g); g = parent.get(g) ?? null) groups.push(g)
    if (groups.length) out.push(`c.${name(device.name, 'device')}${T}${groups.map((g) => item(N.deviceGroup, '+=', g, 'device group')).join(', ')}`)
  }
  out.push('')
  return out.join('\n')
}

/** `mods-enabled/portcullis_nac`: the three lookups, and rlm_expr (which brings %{tolower:…} for the MAC). */
export const NAC_LOOKUP_MODULES = `${HEADER}
expr {
${T}safe_characters = "@abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_: /"
}
# 802.1X and MAB: hashed lookups (rlm_files) of the endpoints, the users' groups, the switches' groups.
files portcullis_nac_endpoints {
${T}key = "m.%{control:${N.mac}}"
${T}filename = \${confdir}/portcullis/nac-endpoints
}
files portcullis_nac_users {
${T}key = "n.%{tolower:%{control:${N.user}}}"
${T}filename = \${confdir}/portcullis/nac-users
}
files portcullis_nac_clients {
${T}key = "c.%{client:shortname}"
${T}filename = \${confdir}/portcullis/nac-clients
}
`
