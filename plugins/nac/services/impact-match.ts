/**
 * The NAC policy's first holding rule, for the change impact's batch: the same decision as
 * evaluateNacPolicy (services/evaluate.ts, the policy test's evaluator; proven equal on random
 * policies and requests in test/impact-side.test.ts), without the trace and its reasons in words,
 * which a replay of hundreds of thousands of requests does not show. Each condition is compiled once
 * into a test over sets.
 *
 * What the log does not keep is a third answer: a certificate field (EAP-TLS) or a time window when
 * the time is not known. A rule failing on a known condition is skipped whatever the rest says; a
 * rule whose known conditions hold and that tests an unknown one could decide or not: `unknown`.
 */
import { inWindowAt, type CompiledNacPolicy, type NacCondition, type NacMethod } from '../../../sdk/index.js'

export type Unknown = 'certificate' | 'time'

/** What the policy reads of a request. */
export interface MatchInput {
  method: NacMethod
  user_group_ids: readonly string[]
  endpoint_group_ids: readonly string[]
  device_type: string | null
  device_group_ids: readonly string[]
  nas_port_type: string | null
  /** Null: not known (the log grouped several times). */
  local_time: { day: number; minute: number } | null
}

/** true: holds; false: fails; an Unknown: depends on what the log does not keep. */
type Test = (r: MatchInput) => boolean | Unknown

const anyIn = (set: ReadonlySet<string>, ids: readonly string[]) => {
  for (const id of ids) if (set.has(id)) return true
  return false
}

function compile(c: NacCondition): Test {
  switch (c.type) {
    case 'method': {
      const s = new Set<string>(c.methods)
      return (r) => s.has(r.method)
    }
    case 'user_group': {
      const s = new Set(c.groups.map((g) => g.id))
      return (r) => anyIn(s, r.user_group_ids)
    }
    case 'endpoint_group': {
      const s = new Set(c.groups.map((g) => g.id))
      return (r) => anyIn(s, r.endpoint_group_ids)
    }
    case 'device_group': {
      const s = new Set(c.groups.map((g) => g.id))
      return (r) => anyIn(s, r.device_group_ids)
    }
    case 'device_type': {
      const s = new Set(c.device_types)
      return (r) => r.device_type !== null && s.has(r.device_type)
    }
    case 'nas_port_type': {
      const s = new Set(c.values)
      return (r) => r.nas_port_type !== null && s.has(r.nas_port_type)
    }
    // Only EAP-TLS presents a certificate; its fields are not logged.
    case 'certificate':
      return (r) => (r.method === 'eap-tls' ? 'certificate' : false)
    case 'time_window': {
      const w = c.window
      return (r) => (r.local_time === null ? 'time' : inWindowAt(w, r.local_time.day, r.local_time.minute))
    }
  }
}

type Dim = 'method' | 'user_group' | 'endpoint_group' | 'device_group' | 'device_type' | 'nas_port_type'
const DIMS: readonly Dim[] = ['method', 'user_group', 'endpoint_group', 'device_group', 'device_type', 'nas_port_type']

const valuesOf = (c: NacCondition): readonly string[] | null => {
  switch (c.type) {
    case 'method':
      return c.methods
    case 'user_group':
    case 'endpoint_group':
    case 'device_group':
      return c.groups.map((g) => g.id)
    case 'device_type':
      return c.device_types
    case 'nas_port_type':
      return c.values
    default:
      return null
  }
}

const requestValues = (r: MatchInput, d: Dim): readonly string[] => {
  switch (d) {
    case 'method':
      return [r.method]
    case 'user_group':
      return r.user_group_ids
    case 'endpoint_group':
      return r.endpoint_group_ids
    case 'device_group':
      return r.device_group_ids
    case 'device_type':
      return r.device_type === null ? [] : [r.device_type]
    case 'nas_port_type':
      return r.nas_port_type === null ? [] : [r.nas_port_type]
  }
}

/**
 * The policy compiled for the batch: `first(r)` is the index of the deciding rule, -1 for the
 * default, or what is unknown. A prefilter narrows the rules first: per kind of condition, a bit set
 * of the rules that kind lets through for each value (a rule without that kind: always), ANDed over
 * the kinds, so a request costs a few words per kind instead of a walk of every rule. The candidates
 * left are then tested in order with every condition, so the answer is the walk's.
 */
export function policyMatcher(policy: CompiledNacPolicy): (r: MatchInput) => number | Unknown {
  const rules = policy.rules.map((rule) => rule.conditions.map(compile))
  const n = rules.length
  const words = (n + 31) >>> 5
  const free = new Map<Dim, Uint32Array>(DIMS.map((d) => [d, new Uint32Array(words)]))
  const byValue = new Map<Dim, Map<string, Uint32Array>>(DIMS.map((d) => [d, new Map()]))
  policy.rules.forEach((rule, i) => {
    const bit = 1 << (i & 31)
    const w = i >>> 5
    for (const d of DIMS) {
      const conds = rule.conditions.filter((c) => c.type === d)
      // None of the kind, or several (each must hold: left to the full test): let the rule through.
      if (conds.length !== 1) {
        free.get(d)![w] |= bit
        continue
      }
      const m = byValue.get(d)!
      for (const v of valuesOf(conds[0])!) {
        let b = m.get(v)
        if (!b) m.set(v, (b = new Uint32Array(words)))
        b[w] |= bit
      }
    }
  })
  const acc = new Uint32Array(words)
  const dim = new Uint32Array(words)
  return (r) => {
    acc.fill(0xffffffff)
    for (const d of DIMS) {
      dim.set(free.get(d)!)
      const m = byValue.get(d)!
      for (const v of requestValues(r, d)) {
        const b = m.get(v)
        if (b) for (let k = 0; k < words; k++) dim[k] |= b[k]
      }
      for (let k = 0; k < words; k++) acc[k] &= dim[k]
    }
    for (let k = 0; k < words; k++) {
      let bits = acc[k]
      while (bits !== 0) {
        const low = bits & -bits
        const i = (k << 5) + (31 - Math.clz32(low))
        bits ^= low
        if (i >= n) return -1
        let unknown: Unknown | null = null
        let holds = true
        for (const test of rules[i]) {
          const v = test(r)
          if (v === false) {
            holds = false
            break
          }
          if (v !== true) unknown ??= v
        }
        if (holds) return unknown ?? i
      }
    }
    return -1
  }
}
