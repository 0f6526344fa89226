/**
 * Compliance rules as stored and shown: reading a rule with its group's name, checking what a
 * request writes (the group exists, the regex is safe), and the guard that keeps a device group
 * from being deleted while a rule is scoped to it (deleting the group would otherwise widen the
 * rule to every device).
 */
import type { Knex } from 'knex'
import { checkSafeRegex, uniqueColumn, uuidArray, type ReferenceTarget } from '../../../sdk/index.js'
import { NcmComplianceErrors, ruleRegexUnsafe } from '../errors-compliance.js'
import { NcmErrors } from '../errors.js'
import type { RuleResponse } from '../schemas/compliance.js'
import type { RuleRow } from '../tables-compliance.js'
import type { MatchKind } from './evaluate.js'

type Db = Knex | Knex.Transaction

export const ruleNames = uniqueColumn({ table: 'ncm_rules', taken: NcmComplianceErrors.ruleNameTaken })

const iso = (d: Date | null) => (d ? d.toISOString() : null)

export function ruleResponse(r: RuleRow, groupName: string | null): RuleResponse {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    device_group_id: r.device_group_id,
    device_group_name: groupName,
    requirement: r.requirement,
    match: r.match,
    pattern: r.pattern,
    notify: r.notify,
    enabled: r.enabled,
    evaluating: r.enabled && r.evaluated_at === null,
    evaluated_at: iso(r.evaluated_at),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  }
}

/** Rows as answers, with their groups' names in one read. */
export async function ruleResponses(db: Db, groups: ReferenceTarget, rows: RuleRow[]): Promise<RuleResponse[]> {
  const names = await groups.names(
    rows.flatMap((r) => (r.device_group_id ? [r.device_group_id] : [])),
    db,
  )
  return rows.map((r) => ruleResponse(r, r.device_group_id ? (names.get(r.device_group_id.toLowerCase()) ?? null) : null))
}

export async function getRule(db: Db, groups: ReferenceTarget, id: string): Promise<RuleResponse | null> {
  const row = await db('ncm_rules').where({ id }).first()
  return row ? (await ruleResponses(db, groups, [row]))[0] : null
}

/** The pattern as stored: a literal trimmed (lines are compared trimmed), a regex checked. 422 at `pattern`. */
export function preparePattern(match: MatchKind, pattern: string): string {
  if (match === 'literal') return pattern.trim()
  const problem = checkSafeRegex(pattern, { allowSlash: true })
  if (problem) throw ruleRegexUnsafe(problem, 'pattern')
  return pattern
}

/** The group exists, locked until the transaction ends (sdk/references.ts); 422 NCM_GROUP_NOT_FOUND otherwise. */
export async function lockGroup(trx: Knex.Transaction, groups: ReferenceTarget, id: string | null | undefined): Promise<void> {
  if (!id) return
  const found = await groups.lockExisting([id], trx)
  if (!found.has(id.toLowerCase())) throw NcmErrors.groupNotFound({ field: 'device_group_id' })
}

/** Registered once from init: a group that scopes a rule is not deleted (409 naming the rules). */
export function guardRuleGroups(groups: ReferenceTarget): void {
  groups.registerGuard({
    onDelete: 'restrict',
    async referrers(ids, db) {
      const rows = (await db('ncm_rules').whereRaw('device_group_id = ANY(?::uuid[])', [uuidArray(ids)]).select('id', 'name')) as { id: string; name: string }[]
      return rows.map((r) => ({ type: 'ncm_rule', id: r.id, name: r.name }))
    },
  })
}
