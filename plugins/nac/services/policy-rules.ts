/**
 * NAC policy rules as the API shows them, the compiled policy
 * (sdk/nac-policy.ts) the renderer and the policy test read, and the guards
 * that keep what rules reference from vanishing under them.
 *
 * What a rule names in other plugins (user groups, device groups) and this
 * plugin's endpoint groups are blocking references, as the AAA policy's WHO
 * and WHERE are: deleting a group a rule names answers 409 naming the rules.
 * An access rule must never change meaning as a side effect of a clean-up (a
 * condition losing its only group would hold for nobody, or, cleared, for
 * everybody). Names are read when answering and compiling; a rename bumps the
 * policy's version, so the policy test's cached compiled policy is reloaded.
 */
import type { Knex } from 'knex'
import { applySearch, uuidArray, type CompiledNacPolicy, type Referrer } from '../../../sdk/index.js'
import type { NacPolicyRuleRow } from '../tables.js'
import { compileCondition, groupNames, presentCondition, type ConditionTargets, type GroupKind } from './conditions.js'
import { RULES } from './policy-order.js'
import { authorizationOf, PROFILES } from './profiles.js'

type Db = Knex | Knex.Transaction

const iso = (d: Date | string) => new Date(d).toISOString()

/** Every rule in evaluation order, with its profile's name. */
const selectRules = (db: Db) =>
  db(RULES)
    .join(PROFILES, `${PROFILES}.id`, `${RULES}.authorization_profile_id`)
    .orderBy(`${RULES}.position`)
    .select(`${RULES}.*`, `${PROFILES}.name as authorization_profile_name`) as unknown as Promise<(NacPolicyRuleRow & { authorization_profile_name: string })[]>

export async function loadRules(db: Db, targets: ConditionTargets, filter?: { authorization_profile_id?: string; id?: string; search?: string }) {
  let q = selectRules(db) as unknown as Knex.QueryBuilder
  if (filter?.authorization_profile_id) q = q.where(`${RULES}.authorization_profile_id`, filter.authorization_profile_id)
  if (filter?.id) q = q.where(`${RULES}.id`, filter.id)
  applySearch(q, [`${RULES}.name`, `${RULES}.description`], filter?.search)
  const rows = (await q) as (NacPolicyRuleRow & { authorization_profile_name: string })[]
  const names = await groupNames(db, targets, rows.map((r) => r.conditions))
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    enabled: r.enabled,
    position: r.position,
    is_default: r.is_default,
    conditions: r.conditions.map((c) => presentCondition(c, names)),
    authorization_profile_id: r.authorization_profile_id,
    authorization_profile_name: r.authorization_profile_name,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  }))
}

export type RuleResponse = Awaited<ReturnType<typeof loadRules>>[number]

export const loadRule = async (db: Db, targets: ConditionTargets, id: string): Promise<RuleResponse | null> => (await loadRules(db, targets, { id }))[0] ?? null

/**
 * The policy compiled once (sdk/nac-policy.ts): enabled rules in order, names resolved, each with
 * its profile's reply. `position` is the rule's place in the API's list counted from 1, so a
 * disabled rule leaves a gap and the trace's numbers match what the operator sees (plus one).
 */
export async function compileNacPolicy(db: Db, targets: ConditionTargets): Promise<CompiledNacPolicy> {
  const rows = await db(RULES).orderBy('position').select('id', 'name', 'position', 'enabled', 'is_default', 'conditions', 'authorization_profile_id')
  const profiles = new Map((await db(PROFILES).select('*')).map((p) => [p.id, authorizationOf(p)]))
  const names = await groupNames(db, targets, rows.map((r) => r.conditions))
  const def = rows.find((r) => r.is_default)
  if (!def) throw new Error('nac_policy_rules has no default rule')
  return {
    rules: rows
      .filter((r) => r.enabled && !r.is_default)
      .map((r) => ({ id: r.id, name: r.name, position: r.position + 1, conditions: r.conditions.map((c) => compileCondition(c, names)), authorization: profiles.get(r.authorization_profile_id)! })),
    default: { id: def.id, name: def.name, authorization: profiles.get(def.authorization_profile_id)! },
  }
}

const COLUMN: Record<GroupKind, 'user_group_ids' | 'endpoint_group_ids' | 'device_group_ids'> = {
  user_group: 'user_group_ids',
  endpoint_group: 'endpoint_group_ids',
  device_group: 'device_group_ids',
}

/** The rules whose conditions name one of `ids` of a kind, by name. */
export async function rulesNaming(db: Db, kind: GroupKind, ids: readonly string[]): Promise<Referrer[]> {
  const rows = await db(RULES).whereRaw('?? && ?::uuid[]', [COLUMN[kind], uuidArray(ids)]).orderBy('name').select('id', 'name')
  return rows.map((r) => ({ type: 'nac_policy_rule', id: r.id, name: r.name }))
}

/** A name the compiled policy carries changed: the cached one is stale from this transaction on. */
const bumpVersion = async (_ids: readonly string[], trx: Knex.Transaction) => {
  await trx('nac_policy_version').where({ id: 1 }).increment('version', 1)
}

/** Register the policy's guards with every owner of what conditions name (once, from init). */
export function registerPolicyGuards(targets: ConditionTargets): void {
  for (const kind of ['user_group', 'endpoint_group', 'device_group'] as const) {
    targets[kind]?.registerGuard({ onDelete: 'restrict', referrers: (ids, db) => rulesNaming(db, kind, ids), renamed: bumpVersion })
  }
}
