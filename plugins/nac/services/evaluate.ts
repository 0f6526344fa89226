/**
 * The NAC policy evaluated in JavaScript: what the rendered FreeRADIUS tree
 * decides for a request, read from the same compiled structure
 * (sdk/nac-policy.ts), with the reason. Pure: no database, no clock (the
 * request carries its local time), so the renderer's differential test and the
 * property tests can call it millions of times.
 */
import { certificateValueMatches, inWindowAt, sayFrom, type CompiledNacPolicy, type NacAuthorization, type NacCondition, type NacReplyAttribute, type NacRequest, type Say } from '../../../sdk/index.js'
import en from '../locales/en.js'

/** English from the plugin's catalogue: the default where no request asks for a language (tests, bench, the service). */
export const ENGLISH: Say = sayFrom(en)

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

/** Null when the condition holds for the request; otherwise why not, in `say`'s language (the route passes `req.t`). */
export function conditionFailure(c: NacCondition, r: NacRequest, say: Say = ENGLISH): string | null {
  const tr = (key: string, vars?: Record<string, unknown>) => say(`nac:trace.${key}`, vars)
  switch (c.type) {
    case 'method':
      return c.methods.includes(r.method) ? null : tr('method', { method: r.method, methods: c.methods.join(` ${tr('or')} `) })
    case 'user_group': {
      if (any(c.groups, (g) => r.user_group_ids.includes(g.id))) return null
      return r.username === null ? tr('no_user', { method: r.method, groups: names(c.groups) }) : tr('user_groups', { username: JSON.stringify(r.username), groups: names(c.groups) })
    }
    case 'endpoint_group':
      if (any(c.groups, (g) => r.endpoint_group_ids.includes(g.id))) return null
      return r.mac === null ? tr('no_mac', { groups: names(c.groups) }) : tr('endpoint_groups', { mac: r.mac, groups: names(c.groups) })
    case 'device_type':
      if (r.device_type !== null && c.device_types.includes(r.device_type)) return null
      return r.device_type === null ? tr('no_device_type', { types: list(c.device_types) }) : tr('device_type', { type: JSON.stringify(r.device_type), types: list(c.device_types) })
    case 'device_group':
      return any(c.groups, (g) => r.device_group_ids.includes(g.id)) ? null : tr('device_groups', { groups: names(c.groups) })
    case 'certificate': {
      // As the tree: every SAN of the type (any one equal holds), ASCII letters caseless only (sdk certificateValueMatches).
      const field = r.certificate?.[c.field]
      const have: readonly string[] = field === undefined ? [] : typeof field === 'string' ? [field] : field
      if (any(c.values, (x) => have.some((v) => certificateValueMatches(x, v)))) return null
      if (r.certificate === null) return tr('no_certificate', { method: r.method, field: c.field })
      return have.length ? tr('certificate', { field: c.field, have: list(have), values: list(c.values) }) : tr('certificate_lacks', { field: c.field })
    }
    case 'nas_port_type':
      if (r.nas_port_type !== null && c.values.includes(r.nas_port_type)) return null
      return r.nas_port_type === null ? tr('no_nas_port_type', { values: c.values.join(', ') }) : tr('nas_port_type', { type: r.nas_port_type, values: c.values.join(', ') })
    case 'time_window': {
      const { day, minute } = r.local_time
      if (inWindowAt(c.window, day, minute)) return null
      return tr('outside_window', { day: tr(`days.${day}`), time: `${pad(Math.floor(minute / 60))}:${pad(minute % 60)}`, window: c.window.label })
    }
  }
}

/** The first enabled rule whose conditions all hold decides; otherwise the default rule. `say`: the reasons' language. */
export function evaluateNacPolicy(compiled: CompiledNacPolicy, request: NacRequest, say: Say = ENGLISH): NacEvaluation {
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
      reason = conditionFailure(c, request, say)
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
