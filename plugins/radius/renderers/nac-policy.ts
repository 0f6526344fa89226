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
 *   certificate     TLS-Cert-Common-Name (the issuer's CN), TLS-Client-Cert-Subject-Alt-Name-Email, -Dns (every one);
 *                   (no certificate template: FreeRADIUS 3.2 exposes no certificate policy OID)
 *   nas_port_type   NAS-Port-Type, time_window the request's local time (as the AAA policy)
 *
 * Speed: the conditions are tests of attributes already in the request (the lookups are hashed);
 * an `elsif` chain stops at the first rule that holds. bench/nac-freeradius.ts measures 500 rules.
 */
import { certificateValueProblem, type CompiledNacPolicy, type NacAuthorization, type NacCondition } from '../../../sdk/nac-policy.js'
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { DICTIONARY } from '../services/dictionary.js'
import { formatValue, quoteValue } from '../services/values.js'
import { NAC_ATTRIBUTES as N, NAC_DEVICE_TYPE, NAC_ID } from './nac-attributes.js'
import { PORTAL_SIGN_FILE, portalRedirectValue } from './nac-portal.js'
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


/**
 * A certificate value as an unlang regex matching exactly it, ASCII letters caseless (`/…/i`, PCRE without
 * UTF mode folds only those: sdk certificateValueMatches): `^`, the value, `\z`. Every character but a letter
 * or digit is written `\xHH`, so nothing in the value reaches unlang (no quote, `%` expansion, `${`
 * variable, `/` ending the regex) or means anything to PCRE. Any value sdk certificateValueProblem takes.
 */
function certRegex(value: string, what: string): string {
  const problem = certificateValueProblem(value)
  if (problem) throw new FreeradiusRenderError(`${what} ${JSON.stringify(value)}: ${problem}`)
  return `/^${value.replace(/[^A-Za-z0-9]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}\\z/i`
}

const anyOf = (tests: string[]) => (tests.length === 1 ? tests[0] : `(${tests.join(' || ')})`)
/**
 * Compared only when present: FreeRADIUS 3.2 logs an error (and sets Module-Failure-Message) comparing an
 * absent attribute. The policy's own attributes need no guard: SENTINELS gives each one a value first.
 */
const present = (attr: string, tests: string[]) => `(${attr} && ${anyOf(tests)})`
const str = (v: string, what: string) => {
  if (!(what === 'device type' ? NAC_DEVICE_TYPE : NAC_ID).test(v)) throw new FreeradiusRenderError(`${what} ${JSON.stringify(v)} is not an id the tree can compare`)
  return quoteValue(v)
}
/** A condition that never holds (a NAS-Port-Type FreeRADIUS cannot name): an attribute never set. */
const NEVER = `&control:${N.method} == "never"`

/** A value no id or device type can take (NAC_ID and NAC_DEVICE_TYPE refuse "~"): every list the policy reads has at least it. */
const SENTINEL = '"~"'
const SENTINELS = ['# Every attribute the conditions read has a value (one no rule names), so no test needs a guard.', 'update control {', ...[N.endpointGroup, N.userGroup, N.deviceGroup, N.deviceType].map((a) => `${T}&${a} += ${SENTINEL}`), '}']

/**
 * The cheapest test that most often fails first: an `&&` chain stops at the first false, so a rule of
 * another endpoint group costs one comparison. Method last: nearly every rule names one, most requests pass it.
 */
const RANK: Record<NacCondition['type'], number> = { endpoint_group: 0, user_group: 1, device_type: 2, certificate: 3, device_group: 4, nas_port_type: 5, time_window: 6, method: 7 }

/** One condition as unlang: its alternatives (any holds), the guard they need, a note when the tree cannot test it. */
export interface NacConditionUnlang {
  test: string
  alternatives: string[]
  guard?: string
  note?: string
}

const made = (alternatives: string[], guard?: string, note?: string): NacConditionUnlang => ({ test: guard ? `(${guard} && ${anyOf(alternatives)})` : anyOf(alternatives), alternatives, ...(guard ? { guard } : {}), ...(note ? { note } : {}) })

/** One condition as an unlang test, and a comment when the tree cannot test what it says. */
export function nacConditionUnlang(c: NacCondition): NacConditionUnlang {
  switch (c.type) {
    case 'method':
      return made(c.methods.map((m) => `&control:${N.method} == ${quoteValue(m)}`))
    case 'user_group':
      return made(c.groups.map((g) => `&control:${N.userGroup}[*] == ${str(g.id, 'user group')}`))
    case 'endpoint_group':
      return made(c.groups.map((g) => `&control:${N.endpointGroup}[*] == ${str(g.id, 'endpoint group')}`))
    case 'device_group':
      return made(c.groups.map((g) => `&control:${N.deviceGroup}[*] == ${str(g.id, 'device group')}`))
    case 'device_type':
      return made(c.device_types.map((d) => `&control:${N.deviceType}[*] == ${str(d, 'device type')}`))
    case 'nas_port_type': {
      const known = c.values.filter((v) => NAS_PORT_TYPES.has(v))
      if (!known.length) return made([NEVER], undefined, `NAS-Port-Type ${c.values.join(', ')} is not a name FreeRADIUS knows: never holds`)
      return made(known.map((v) => `&NAS-Port-Type == ${v}`), '&NAS-Port-Type')
    }
    case 'time_window':
      return made([timeCondition(c.window.spans)])
    case 'certificate': {
      // issuer_cn: TLS-Cert-Common-Name, the CN of the certificate one above the client's in the verified chain (its
      // issuer), as bytes; not TLS-Client-Cert-Issuer, a one-line DN in which OpenSSL escapes "/" and "+".
      // A SAN: every instance ([*]): a certificate may carry several e-mail addresses or DNS names, any one matches.
      if (c.field === 'issuer_cn') return made(c.values.map((v) => `&TLS-Cert-Common-Name =~ ${certRegex(v, 'issuer CN')}`), '&TLS-Cert-Common-Name')
      const attr = c.field === 'san_email' ? 'TLS-Client-Cert-Subject-Alt-Name-Email' : 'TLS-Client-Cert-Subject-Alt-Name-Dns'
      return made(c.values.map((v) => `&${attr}[*] =~ ${certRegex(v, c.field === 'san_email' ? 'SAN e-mail' : 'SAN DNS name')}`), `&${attr}`)
    }
  }
}

/**
 * FreeRADIUS 3.2 reads a configuration line of at most 8 KiB ("Line too long"): a rule whose
 * conditions are longer (a condition listing hundreds of groups) is written as nested `if`s, each
 * condition's alternatives in chunks (`if (chunk 1) {…} elsif (chunk 2) {…}`, the rest repeated inside).
 */
export const NAC_LINE_MAX = 4000

function chunks(c: NacConditionUnlang): string[] {
  if (c.test.length <= NAC_LINE_MAX) return [c.test]
  const out: string[] = []
  let cur: string[] = []
  let len = 0
  for (const a of c.alternatives) {
    if (cur.length && len + a.length + 4 > NAC_LINE_MAX) {
      out.push(made(cur, c.guard).test)
      cur = []
      len = 0
    }
    cur.push(a)
    len += a.length + 4
  }
  if (cur.length) out.push(made(cur, c.guard).test)
  return out
}

function nested(conds: NacConditionUnlang[], body: (indent: string) => string[], indent: string): string[] {
  if (!conds.length) return body(indent)
  const [c, ...rest] = conds
  return chunks(c).flatMap((t, i) => [`${indent}${i ? 'elsif' : 'if'} (${t}) {`, ...nested(rest, body, indent + T), `${indent}}`])
}

/** The statements of an authorization: the rule's name and profile in control, then its replies or a reject. */
function decide(ruleName: string, a: NacAuthorization, indent: string): string[] {
  const out = [`${indent}update control {`, `${indent}${T}&${CONTROL_ATTRIBUTES.ruleName} := ${quoteValue(ruleName)}`, `${indent}${T}&${CONTROL_ATTRIBUTES.ruleLabel} := ${quoteValue(a.profile_name)}`, `${indent}}`]
  if (a.deny) return [...out, ...refusal('nac_denied', `NAC rule ${ruleName.replace(/%/g, '')} denies access`, indent), `${indent}reject`]
  if (a.reply.length) {
    // A signed portal redirection: the signature is computed first (nac-portal.ts), beside this file.
    if (a.reply.some((r) => r.portal_session)) out.push(`${indent}$INCLUDE ${PORTAL_SIGN_FILE.replace('portcullis/', '')}`)
    out.push(`${indent}update reply {`)
    for (const r of a.reply) {
      if (!DICTIONARY.has(r.attribute)) throw new FreeradiusRenderError(`authorization profile ${a.profile_name}: attribute ${r.attribute} is not in the dictionary`)
      let v: string
      try {
        v = formatValue({ name: r.attribute, value: r.value })
      } catch {
        throw new FreeradiusRenderError(`authorization profile ${a.profile_name}: the value of ${r.attribute} breaks the attribute rules`)
      }
      if (r.portal_session) {
        if (r.attribute !== 'Cisco-AVPair' || !r.value.startsWith('url-redirect=')) throw new FreeradiusRenderError(`authorization profile ${a.profile_name}: only a Cisco url-redirect carries the portal's session parameters`)
        v = portalRedirectValue(r.value)
      }
      out.push(`${indent}${T}&${r.attribute} += ${v}`)
    }
    out.push(`${indent}}`)
  }
  return out
}

/** A render failure names the NAC rule it is in (its position and name), so the deploy error says which rule to fix. */
function inRule<T>(r: { position: number; name: string }, f: () => T): T {
  try {
    return f()
  } catch (e) {
    if (e instanceof FreeradiusRenderError) throw new FreeradiusRenderError(`NAC rule ${r.position} ${JSON.stringify(r.name)}: ${e.message.replace(/^freeradius: /, '')}`)
    throw e
  }
}

/**
 * The policy as unlang: a pure function of the compiled policy (a differential test renders it and
 * asks FreeRADIUS). Same policy, same bytes.
 */
export function nacPolicyUnlang(policy: CompiledNacPolicy): string {
  const out = [HEADER, '# The NAC policy (renderers/nac-policy.ts): rules in order, the first whose conditions hold decides; the default last.', ...SENTINELS]
  const rules = policy.rules.map((r) => {
    const tests = [...r.conditions].sort((a, b) => RANK[a.type] - RANK[b.type]).map((c) => inRule(r, () => nacConditionUnlang(c)))
    const cond = tests.length ? tests.map((t) => t.test).join(' && ') : 'true'
    const comment = [`# rule ${r.position} ${r.name.replace(/[\r\n]/g, ' ')} → ${r.authorization.deny ? 'deny' : r.authorization.profile_name.replace(/[\r\n]/g, ' ')}`, ...tests.filter((t) => t.note).map((t) => `#   ${t.note}`)]
    return { r, tests, cond, comment }
  })
  const defaultComment = `# default ${policy.default.name.replace(/[\r\n]/g, ' ')}`
  if (rules.every((x) => x.cond.length <= NAC_LINE_MAX)) {
    // One if/elsif chain: it stops at the first rule that holds.
    rules.forEach((x, i) => out.push(...x.comment, `${i ? 'elsif' : 'if'} (${x.cond}) {`, ...decide(x.r.name, x.r.authorization, T), '}'))
    out.push(defaultComment)
    if (!rules.length) out.push(...decide(policy.default.name, policy.default.authorization, ''))
    else out.push('else {', ...decide(policy.default.name, policy.default.authorization, T), '}')
    out.push('')
    return out.join('\n')
  }
  // Segments of the chain between the rules written nested, each run only while no rule decided (control:Tmp-String-0 unset).
  const open = `if (!&control:${CONTROL_ATTRIBUTES.ruleName}) {`
  let inChain = false
  for (const x of rules) {
    if (x.cond.length <= NAC_LINE_MAX) {
      if (!inChain) out.push(open)
      out.push(...x.comment.map((l) => T + l), `${T}${inChain ? 'elsif' : 'if'} (${x.cond}) {`, ...decide(x.r.name, x.r.authorization, T + T), `${T}}`)
      inChain = true
      continue
    }
    if (inChain) out.push('}')
    inChain = false
    out.push(...x.comment, '#   (long conditions: nested)', open, ...nested(x.tests, (i) => decide(x.r.name, x.r.authorization, i), T), '}')
  }
  if (inChain) out.push('}')
  out.push(defaultComment, open, ...decide(policy.default.name, policy.default.authorization, T), '}', '')
  return out.join('\n')
}
