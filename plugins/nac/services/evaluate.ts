/**
 * The NAC policy evaluated in JavaScript: what the rendered FreeRADIUS tree
 * decides for a request, read from the same compiled structure
 * (sdk/nac-policy.ts), with the reason. Pure: no database, no clock (the
 * request carries its local time), so the renderer's differential test and the
 * property tests can call it millions of times.
 */
import { certificateValueMatches, inWindowAt, type CompiledNacPolicy, type NacAuthorization, type NacCondition, type NacReplyAttribute, type NacRequest } from '../../../sdk/index.js'

/** One rule considered, in order: whether it held, and if not the first condition that failed and why. */
export interface NacTraceStep {
  rule_id: string
  rule_name: string
  /** The rule's compiled position (1-based); null for the default rule, which is always last. */
  position: number | null
  is_default: boolean
  matched: boolean
  /** The first condition that did not hold; null when the rule matched. */
  failed_condition: NacCondition | null
  /** Why, for a person; null when the rule matched. */
  reason: string | null
}

export interface NacEvaluation {
  rule: { id: string; name: string; position: number | null; is_default: boolean }
  authorization: NacAuthorization
  /** Access-Accept with `reply`, or Access-Reject. */
  decision: 'accept' | 'reject'
  reply: readonly NacReplyAttribute[]
  /** Every rule up to the one that matched, in order (the default rule last when it decided). */
  trace: NacTraceStep[]
}

const any = <T>(values: readonly T[], has: (v: T) => boolean) => values.some(has)
const list = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ')
const names = (groups: readonly { name: string }[]) => groups.map((g) => g.name).join(', ')
const pad = (n: number) => String(n).padStart(2, '0')
const DAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

/** Null when the condition holds for the request; otherwise why not. */
export function conditionFailure(c: NacCondition, r: NacRequest): string | null {
  switch (c.type) {
    case 'method':
      return c.methods.includes(r.method) ? null : `method is ${r.method}, not ${c.methods.join(' or ')}`
    case 'user_group': {
      if (any(c.groups, (g) => r.user_group_ids.includes(g.id))) return null
      return r.username === null ? `no user (${r.method}), so in no user group of ${names(c.groups)}` : `user ${JSON.stringify(r.username)} is in none of the user groups ${names(c.groups)}`
    }
    case 'endpoint_group':
      if (any(c.groups, (g) => r.endpoint_group_ids.includes(g.id))) return null
      return r.mac === null ? `no MAC address given, so in no endpoint group of ${names(c.groups)}` : `endpoint ${r.mac} is in none of the endpoint groups ${names(c.groups)}`
    case 'device_type':
      if (r.device_type !== null && c.device_types.includes(r.device_type)) return null
      return r.device_type === null ? `the endpoint has no device type (not ${list(c.device_types)})` : `device type is ${JSON.stringify(r.device_type)}, not ${list(c.device_types)}`
    case 'device_group':
      return any(c.groups, (g) => r.device_group_ids.includes(g.id)) ? null : `the switch is in none of the device groups ${names(c.groups)}`
    case 'certificate': {
      // As the tree: every SAN of the type (any one equal holds), ASCII letters caseless only (sdk certificateValueMatches).
      const field = r.certificate?.[c.field]
      const have: readonly string[] = field === undefined ? [] : typeof field === 'string' ? [field] : field
      if (any(c.values, (x) => have.some((v) => certificateValueMatches(x, v)))) return null
      if (r.certificate === null) return `no client certificate (${r.method}), so no ${c.field}`
      return have.length ? `certificate ${c.field} is ${list(have)}, not ${list(c.values)}` : `the certificate has no ${c.field}`
    }
    case 'nas_port_type':
      if (r.nas_port_type !== null && c.values.includes(r.nas_port_type)) return null
      return r.nas_port_type === null ? `no NAS-Port-Type (not ${c.values.join(', ')})` : `NAS-Port-Type is ${r.nas_port_type}, not ${c.values.join(', ')}`
    case 'time_window': {
      const { day, minute } = r.local_time
      if (inWindowAt(c.window, day, minute)) return null
      return `${DAY[day]} ${pad(Math.floor(minute / 60))}:${pad(minute % 60)} is outside ${c.window.label}`
    }
  }
}

/** The first enabled rule whose conditions all hold decides; otherwise the default rule. */
export function evaluateNacPolicy(compiled: CompiledNacPolicy, request: NacRequest): NacEvaluation {
  const trace: NacTraceStep[] = []
  const decide = (rule: NacEvaluation['rule'], authorization: NacAuthorization): NacEvaluation => ({
    rule,
    authorization,
    decision: authorization.deny ? 'reject' : 'accept',
    reply: authorization.deny ? [] : authorization.reply,
    trace,
  })
  for (const rule of compiled.rules) {
    let failed: NacCondition | null = null
    let reason: string | null = null
    for (const c of rule.conditions) {
      reason = conditionFailure(c, request)
      if (reason !== null) {
        failed = c
        break
      }
    }
    trace.push({ rule_id: rule.id, rule_name: rule.name, position: rule.position, is_default: false, matched: failed === null, failed_condition: failed, reason })
    if (failed === null) return decide({ id: rule.id, name: rule.name, position: rule.position, is_default: false }, rule.authorization)
  }
  const d = compiled.default
  trace.push({ rule_id: d.id, rule_name: d.name, position: null, is_default: true, matched: true, failed_condition: null, reason: null })
  return decide({ id: d.id, name: d.name, position: null, is_default: true }, d.authorization)
}
