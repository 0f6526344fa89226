/**
 * Rules in force and results as stored: which enabled rules cover a device (its group and that
 * group's ancestors, or every device), their compiled form (cached per revision), and writing a
 * device's results so that `since` moves only when the status does.
 */
import type { Knex } from 'knex'
import { jsonText } from '../../../sdk/index.js'
import type { RuleResultRow, RuleRow } from '../tables-compliance.js'
import { compileRule, type CompiledRule, type RuleOutcome } from './evaluate.js'

type Db = Knex | Knex.Transaction

const compiled = new Map<string, { revision: number; rule: CompiledRule }>()

/** A stored rule ready to run (its pattern was checked when written). */
export function compiledRule(r: Pick<RuleRow, 'id' | 'revision' | 'requirement' | 'match' | 'pattern'>): CompiledRule {
  const hit = compiled.get(r.id)
  if (hit && hit.revision === r.revision) return hit.rule
  const rule = compileRule({ id: r.id, requirement: r.requirement, match: r.match, pattern: r.pattern })
  if (compiled.size > 10_000) compiled.clear()
  compiled.set(r.id, { revision: r.revision, rule })
  return rule
}

/** The enabled rules that cover a device in these groups (its own group and its ancestors). */
export async function rulesCovering(db: Db, groupIds: readonly string[]): Promise<RuleRow[]> {
  const lower = new Set(groupIds.map((g) => g.toLowerCase()))
  const rows = await db('ncm_rules').where({ enabled: true }).orderBy('name')
  return rows.filter((r) => r.device_group_id === null || lower.has(r.device_group_id.toLowerCase()))
}

export interface WrittenResult {
  ruleId: string
  status: RuleOutcome['status']
  /** Failing now, and passing (or not evaluated) before. */
  newlyFailing: boolean
}

/**
 * Stores one device's results for the given rules, at this version. `since` keeps its value while the
 * status stays; `notified_at` is cleared when a rule passes again, so the next violation is mailed.
 */
export async function writeResults(trx: Knex.Transaction, deviceId: string, versionId: string, outcomes: Map<string, RuleOutcome>, now: Date): Promise<WrittenResult[]> {
  const ids = [...outcomes.keys()]
  if (!ids.length) return []
  const before = new Map<string, RuleResultRow>()
  for (const r of await trx('ncm_rule_results').where({ device_id: deviceId }).whereIn('rule_id', ids)) before.set(r.rule_id, r)
  const rows = ids.map((ruleId) => {
    const o = outcomes.get(ruleId)!
    const prev = before.get(ruleId)
    const same = prev?.status === o.status
    return {
      rule_id: ruleId,
      device_id: deviceId,
      version_id: versionId,
      status: o.status,
      evidence: jsonText(o.evidence),
      match_count: o.match_count,
      since: same ? prev.since : now,
      evaluated_at: now,
      notified_at: o.status === 'fail' && same ? prev.notified_at : null,
    }
  })
  await trx('ncm_rule_results').insert(rows).onConflict(['rule_id', 'device_id']).merge()
  return ids.map((ruleId) => ({ ruleId, status: outcomes.get(ruleId)!.status, newlyFailing: outcomes.get(ruleId)!.status === 'fail' && before.get(ruleId)?.status !== 'fail' }))
}
