/**
 * The NAC policy as unlang (`portcullis/nac-policy`, included in post-auth for 802.1X and MAB
 * requests only): the compiled policy of sdk/nac-policy.ts, the structure the policy test
 * evaluates too, written rule by rule. The first rule whose conditions all hold decides: it names
 * itself in control (CONTROL_ATTRIBUTES ruleName and ruleLabel, so the log row says which NAC rule
 * and which authorization profile) and gives its profile's reply attributes, or rejects; the
 * default decides last.
 *
 * What each condition reads (set before, by nac-site.ts and the lookups of nac-lookup.ts):
 *   method          control:Portcullis-NAC-Method (peap, eap-tls, mab)
 *   user_group      control:Portcullis-NAC-User-Group (portcullis/nac-users, by the authenticated user)
 *   endpoint_group  control:Portcullis-NAC-Endpoint-Group, device_type control:Portcullis-NAC-Device-Type
 *                   (portcullis/nac-endpoints, by the normalized Calling-Station-Id)
 *   device_group    control:Portcullis-NAC-Device-Group (portcullis/nac-clients, by the client's name)
 *   certificate     TLS-Client-Cert-Issuer (its CN), -Subject-Alt-Name-Email, -Subject-Alt-Name-Dns;
 *                   `template` cannot be read by FreeRADIUS 3.2 (it exposes no certificate policy
 *                   OID): such a condition never holds in the tree, and says so in a comment
 *   nas_port_type   NAS-Port-Type, time_window the request's local time (as the AAA policy)
 *
 * Speed: the conditions are tests of attributes already in the request (the lookups are hashed);
 * an `elsif` chain stops at the first rule that holds. bench/nac-freeradius.ts measures 500 rules.
 */
import type { CompiledNacPolicy, NacAuthorization, NacCondition } from '../../../sdk/nac-policy.js'
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { DICTIONARY } from '../services/dictionary.js'
import { formatValue, quoteValue } from '../services/values.js'
import { NAC_ATTRIBUTES as N } from './nac-attributes.js'
import { timeCondition } from './policy.js'
import { FreeradiusRenderError, HEADER, refusal, T } from './syntax.js'

/** NAS-Port-Type values of the FreeRADIUS 3.2 dictionary (RFC 2865, 4603, 7155 and the rest): any other name never arrives. */
export const NAS_PORT_TYPES = new Set(
  (
    'Async Sync ISDN ISDN-V120 ISDN-V110 Virtual PIAFS HDLC-Clear-Channel X.25 X.75 G.3-Fax SDSL ADSL-CAP ADSL-DMT IDSL Ethernet xDSL Cable ' +
    'Wireless-Other Wireless-802.11 Token-Ring FDDI Wireless-CDMA2000 Wireless-UMTS Wireless-1X-EV IAPP FTTP Wireless-802.16 Wireless-802.20 ' +
    'Wireless-802.22 PPPoA PPPoEoA PPPoEoE PPPoEoVLAN PPPoEoQinQ xPON Wireless-XGP WiMAX-Pre-Release-8-IWK-Function WIMAX-WiFi-IWK WIMAX-SFF ' +
    'WIMAX-HA-LMA WIMAX-DHCP WIMAX-LBS WIMAX-WVS'
  ).split(' '),
)

/** Ids (uuids) and device types compared as strings: what cannot break out of a double-quoted unlang string. */
const ID = /^[A-Za-z0-9._:@/ -]{1,128}$/

/** A literal inside an unlang regex `/…/i`: ASCII printable only, `%` refused (it would be expanded), the rest escaped. */
function regexLiteral(value: string, what: string): string {
  if (!/^[\x20-\x7e]{1,255}$/.test(value) || value.includes('%')) throw new FreeradiusRenderError(`${what} ${JSON.stringify(value)}: only printable ASCII without "%" can be compared by FreeRADIUS`)
  return value.replace(/[\\^$.|?*+()[\]{}/"-]/g, (c) => `\\${c}`)
}

const anyOf = (tests: string[]) => (tests.length === 1 ? tests[0] : `(${tests.join(' || ')})`)
/**
 * Compared only when present: FreeRADIUS 3.2 logs an error (and sets Module-Failure-Message) comparing an
 * absent attribute. The policy's own attributes need no guard: SENTINELS gives each one a value first.
 */
const present = (attr: string, tests: string[]) => `(${attr} && ${anyOf(tests)})`
const str = (v: string, what: string) => {
  if (!ID.test(v)) throw new FreeradiusRenderError(`${what} ${JSON.stringify(v)} is not an id the tree can compare`)
  return quoteValue(v)
}
/** A condition that never holds (a certificate template; a NAS-Port-Type FreeRADIUS cannot name): an attribute never set. */
const NEVER = `&control:${N.method} == "never"`

/** A value no id or device type can take (ID refuses "~"): every list the policy reads has at least it. */
const SENTINEL = '"~"'
const SENTINELS = ['# Every attribute the conditions read has a value (one no rule names), so no test needs a guard.', 'update control {', ...[N.endpointGroup, N.userGroup, N.deviceGroup, N.deviceType].map((a) => `${T}&${a} += ${SENTINEL}`), '}']

/**
 * The cheapest test that most often fails first: an `&&` chain stops at the first false, so a rule of
 * another endpoint group costs one comparison. Method last: nearly every rule names one, most requests pass it.
 */
const RANK: Record<NacCondition['type'], number> = { endpoint_group: 0, user_group: 1, device_type: 2, certificate: 3, device_group: 4, nas_port_type: 5, time_window: 6, method: 7 }

/** One condition as an unlang test, and a comment when the tree cannot test what it says. */
export function nacConditionUnlang(c: NacCondition): { test: string; note?: string } {
  switch (c.type) {
    case 'method':
      return { test: anyOf(c.methods.map((m) => `&control:${N.method} == ${quoteValue(m)}`)) }
    case 'user_group':
      return { test: anyOf(c.groups.map((g) => `&control:${N.userGroup}[*] == ${str(g.id, 'user group')}`)) }
    case 'endpoint_group':
      return { test: anyOf(c.groups.map((g) => `&control:${N.endpointGroup}[*] == ${str(g.id, 'endpoint group')}`)) }
    case 'device_group':
      return { test: anyOf(c.groups.map((g) => `&control:${N.deviceGroup}[*] == ${str(g.id, 'device group')}`)) }
    case 'device_type':
      return { test: anyOf(c.device_types.map((d) => `&control:${N.deviceType}[*] == ${str(d, 'device type')}`)) }
    case 'nas_port_type': {
      const known = c.values.filter((v) => NAS_PORT_TYPES.has(v))
      if (!known.length) return { test: NEVER, note: `NAS-Port-Type ${c.values.join(', ')} is not a name FreeRADIUS knows: never holds` }
      return { test: present('&NAS-Port-Type', known.map((v) => `&NAS-Port-Type == ${v}`)) }
    }
    case 'time_window':
      return { test: timeCondition(c.window.spans) }
    case 'certificate': {
      if (c.field === 'template') return { test: NEVER, note: 'a certificate template condition: FreeRADIUS 3.2 does not expose the certificate policy, never holds' }
      const attr = c.field === 'issuer_cn' ? 'TLS-Client-Cert-Issuer' : c.field === 'san_email' ? 'TLS-Client-Cert-Subject-Alt-Name-Email' : 'TLS-Client-Cert-Subject-Alt-Name-Dns'
      // The issuer is a one-line DN ("/O=Example/CN=Issuing CA"): its CN component, whole.
      const re = (v: string) => (c.field === 'issuer_cn' ? `/\\/CN=${regexLiteral(v, 'issuer CN')}(\\/|$)/i` : `/^${regexLiteral(v, 'certificate field')}$/i`)
      return { test: present(`&${attr}`, c.values.map((v) => `&${attr} =~ ${re(v)}`)) }
    }
  }
}

/** The statements of an authorization: the rule's name and profile in control, then its replies or a reject. */
function decide(ruleName: string, a: NacAuthorization, indent: string): string[] {
  const out = [`${indent}update control {`, `${indent}${T}&${CONTROL_ATTRIBUTES.ruleName} := ${quoteValue(ruleName)}`, `${indent}${T}&${CONTROL_ATTRIBUTES.ruleLabel} := ${quoteValue(a.profile_name)}`, `${indent}}`]
  if (a.deny) return [...out, ...refusal('nac_denied', `NAC rule ${ruleName.replace(/%/g, '')} denies access`, indent), `${indent}reject`]
  if (a.reply.length) {
    out.push(`${indent}update reply {`)
    for (const r of a.reply) {
      if (!DICTIONARY.has(r.attribute)) throw new FreeradiusRenderError(`authorization profile ${a.profile_name}: attribute ${r.attribute} is not in the dictionary`)
      let v: string
      try {
        v = formatValue({ name: r.attribute, value: r.value })
      } catch {
        throw new FreeradiusRenderError(`authorization profile ${a.profile_name}: the value of ${r.attribute} breaks the attribute rules`)
      }
      out.push(`${indent}${T}&${r.attribute} += ${v}`)
    }
    out.push(`${indent}}`)
  }
  return out
}

/**
 * The policy as unlang: a pure function of the compiled policy (a differential test renders it and
 * asks FreeRADIUS). Same policy, same bytes.
 */
export function nacPolicyUnlang(policy: CompiledNacPolicy): string {
  const out = [HEADER, '# The NAC policy (renderers/nac-policy.ts): rules in order, the first whose conditions hold decides; the default last.', ...SENTINELS]
  let first = true
  for (const r of policy.rules) {
    const tests = [...r.conditions].sort((a, b) => RANK[a.type] - RANK[b.type]).map(nacConditionUnlang)
    out.push(`# rule ${r.position} ${r.name.replace(/[\r\n]/g, ' ')} → ${r.authorization.deny ? 'deny' : r.authorization.profile_name.replace(/[\r\n]/g, ' ')}`)
    for (const t of tests) if (t.note) out.push(`#   ${t.note}`)
    const cond = tests.length ? tests.map((t) => t.test).join(' && ') : 'true'
    out.push(`${first ? 'if' : 'elsif'} (${cond}) {`, ...decide(r.name, r.authorization, T), '}')
    first = false
  }
  out.push(`# default ${policy.default.name.replace(/[\r\n]/g, ' ')}`)
  const body = decide(policy.default.name, policy.default.authorization, first ? '' : T)
  if (first) out.push(...body)
  else out.push('else {', ...body, '}')
  out.push('')
  return out.join('\n')
}
