/**
 * The profiling verdict: the enabled rules against an endpoint's evidence.
 * Matching is equals, contains or starts-with, case-insensitively, never a
 * regular expression from a user (no ReDoS). Every condition of a rule must
 * hold; of the rules that hold, the highest certainty wins, then the lowest
 * position, then the name. The reason names the rule and the evidence.
 */
import type { Knex } from 'knex'
import type { ProfilingConditionRow } from '../tables.js'
import type { Evidence } from './evidence.js'

export interface ProfilingRule {
  id: string
  name: string
  conditions: ProfilingConditionRow[]
  device_type: string
  certainty: number
  position: number
}

export interface Verdict {
  device_type: string
  confidence: number
  reason: string
  rule_id: string
}

const OPS = { equals: 'is', contains: 'contains', starts_with: 'starts with' } as const

function holds(c: ProfilingConditionRow, seen: string | undefined): boolean {
  if (seen === undefined) return false
  const a = seen.toLowerCase()
  const b = c.value.toLowerCase()
  return c.operator === 'equals' ? a === b : c.operator === 'contains' ? a.includes(b) : a.startsWith(b)
}

/** The enabled rules, in the order a tie is broken. */
export async function loadRules(db: Knex | Knex.Transaction): Promise<ProfilingRule[]> {
  const rows = await db('nac_profiling_rules').where({ enabled: true }).orderBy('certainty', 'desc').orderBy('position').orderBy('name').select('id', 'name', 'conditions', 'device_type', 'certainty', 'position')
  return rows.map((r) => ({ ...r, conditions: r.conditions ?? [] }))
}

/** The winning rule's verdict, or null when no rule holds. `rules` as `loadRules` orders them. */
export function profile(rules: readonly ProfilingRule[], evidence: Evidence): Verdict | null {
  for (const r of rules) {
    if (!r.conditions.length || !r.conditions.every((c) => holds(c, evidence[c.attribute]))) continue
    const why = r.conditions.map((c) => `${c.attribute} ${OPS[c.operator]} "${c.value}" (seen "${evidence[c.attribute]}")`).join(', ')
    return { device_type: r.device_type, confidence: r.certainty, reason: `rule "${r.name}": ${why}`.slice(0, 500), rule_id: r.id }
  }
  return null
}
