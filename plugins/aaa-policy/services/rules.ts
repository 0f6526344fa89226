/**
 * Reading rules: the rule rows from the policy's own table, and the names of
 * what they reference from each owner (`names`, through the reference contract
 * in services/references.ts), so the API, the renderers (through `listRules`)
 * and the policy test see the same thing. Each kind's names are asked once per
 * read, whatever the number of rules.
 */
import type { Knex } from 'knex'
import type { Static } from '../../../sdk/index.js'
import type { PolicyRuleView } from '../api.js'
import type { AaaPolicyRuleResponse } from '../schemas/rules.js'
import type { RuleRow } from '../tables.js'
import { toPolicyWindow } from './conditions.js'
import { COLUMN, type PolicyTargets, type TargetKind } from './targets.js'

export type { RuleRow } from '../tables.js'

export const RULES = 'aaa_policy_rules'

type Db = Knex | Knex.Transaction
export type RuleResponse = Static<typeof AaaPolicyRuleResponse>

const REF_COLUMNS = Object.values(COLUMN)
/** The optional conditions (services/conditions.ts), read with the references. */
const CONDITION_COLUMNS = ['time_window', 'client_prefixes'] as const

/** Every rule, in evaluation order. */
export const selectRules = (db: Db) =>
  db(RULES).select('id', 'name', 'description', 'enabled', 'position', 'is_default', ...REF_COLUMNS, ...CONDITION_COLUMNS, 'created_at', 'updated_at').orderBy('position')

/** What `toView` reads: a rule row without the columns only the API's answers carry. */
export type ViewRow = Omit<RuleRow, 'description' | 'created_at' | 'updated_at'>

/**
 * Every rule as `listRules` needs it, in evaluation order: without the description and the two
 * timestamps. The policy test and the renderers read the whole list, and with thousands of rules
 * those columns (the timestamps above all, parsed into dates and thrown away) took a third of the time.
 */
export const selectViewRows = (db: Db) => db(RULES).select('id', 'name', 'enabled', 'position', 'is_default', ...REF_COLUMNS, ...CONDITION_COLUMNS).orderBy('position')

/** Names by kind, then by id. */
export type Names = Record<TargetKind, Map<string, string>>

/** The names of what `rows` reference, for `kinds`, each kind asked of its owner once (one after another: one connection in a transaction). */
export async function namesOf(rows: readonly ViewRow[], targets: PolicyTargets, db: Db, kinds: readonly TargetKind[]): Promise<Names> {
  const out = Object.fromEntries((Object.keys(COLUMN) as TargetKind[]).map((k) => [k, new Map<string, string>()])) as Names
  for (const kind of kinds) {
    const target = targets[kind]
    const ids = new Set<string>()
    for (const r of rows) {
      const id = r[COLUMN[kind]]
      if (id) ids.add(id)
    }
    if (target && ids.size) out[kind] = await target.names([...ids], db)
  }
  return out
}

const WHO_WHERE: readonly TargetKind[] = ['user', 'group', 'device', 'device_group']
const ALL: readonly TargetKind[] = [...WHO_WHERE, 'tacacs_profile', 'radius_profile']

const iso = (d: Date | string) => new Date(d).toISOString()
const nameOf = (names: Names, kind: TargetKind, id: string | null) => (id ? (names[kind].get(id) ?? null) : null)

export const toResponse = (r: RuleRow, names: Names): RuleResponse => ({
  id: r.id,
  name: r.name,
  description: r.description,
  enabled: r.enabled,
  position: r.position,
  is_default: r.is_default,
  who_user_id: r.who_user_id,
  who_group_id: r.who_group_id,
  where_device_id: r.where_device_id,
  where_device_group_id: r.where_device_group_id,
  tacacs_profile_id: r.tacacs_profile_id,
  radius_profile_id: r.radius_profile_id,
  who_name: nameOf(names, 'user', r.who_user_id) ?? nameOf(names, 'group', r.who_group_id),
  where_name: nameOf(names, 'device', r.where_device_id) ?? nameOf(names, 'device_group', r.where_device_group_id),
  tacacs_profile_name: nameOf(names, 'tacacs_profile', r.tacacs_profile_id),
  radius_profile_name: nameOf(names, 'radius_profile', r.radius_profile_id),
  time_window: r.time_window,
  client_prefixes: r.client_prefixes,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

/**
 * The renderers' view: WHO and WHERE as tagged values, `any` for the default rule. A name the
 * owner does not know (only a record deleted behind its back, in bare SQL, can do that) shows as
 * the id, so a renderer names something its daemon check will refuse rather than a blank.
 */
export const toView = (r: ViewRow, names: Names): PolicyRuleView => ({
  id: r.id,
  name: r.name,
  position: r.position,
  enabled: r.enabled,
  is_default: r.is_default,
  who: r.who_user_id
    ? { type: 'user', user_id: r.who_user_id, username: nameOf(names, 'user', r.who_user_id) ?? r.who_user_id }
    : r.who_group_id
      ? { type: 'group', group_id: r.who_group_id, group_name: nameOf(names, 'group', r.who_group_id) ?? r.who_group_id }
      : { type: 'any' },
  where: r.where_device_id
    ? { type: 'device', device_id: r.where_device_id, device_name: nameOf(names, 'device', r.where_device_id) ?? r.where_device_id }
    : r.where_device_group_id
      ? { type: 'device_group', device_group_id: r.where_device_group_id, device_group_name: nameOf(names, 'device_group', r.where_device_group_id) ?? r.where_device_group_id }
      : { type: 'any' },
  tacacs_profile_id: r.tacacs_profile_id,
  radius_profile_id: r.radius_profile_id,
  time_window: r.time_window ? toPolicyWindow(r.time_window) : null,
  client_prefixes: r.client_prefixes,
})

/** Rows as the API answers them, with every name. */
export async function toResponses(rows: RuleRow[], targets: PolicyTargets, db: Db): Promise<RuleResponse[]> {
  const names = await namesOf(rows, targets, db, ALL)
  return rows.map((r) => toResponse(r, names))
}

export async function loadRows(db: Db): Promise<RuleRow[]> {
  return selectRules(db)
}

/** Every rule in evaluation order as the renderers and the policy test see it (`listRules`). */
export async function loadViews(db: Db, targets: PolicyTargets): Promise<PolicyRuleView[]> {
  const rows = await selectViewRows(db)
  const names = await namesOf(rows, targets, db, WHO_WHERE)
  return rows.map((r) => toView(r, names))
}

export async function loadRow(db: Db, id: string): Promise<RuleRow | null> {
  return (await selectRules(db).where('id', id).first()) ?? null
}

/** One rule with every name, as the API answers it; null when there is none. */
export async function loadResponse(db: Db, targets: PolicyTargets, id: string): Promise<RuleResponse | null> {
  const row = await loadRow(db, id)
  return row ? (await toResponses([row], targets, db))[0] : null
}

/** One rule as the renderers see it. */
export async function toViewOf(row: ViewRow, targets: PolicyTargets, db: Db): Promise<PolicyRuleView> {
  return toView(row, await namesOf([row], targets, db, WHO_WHERE))
}
