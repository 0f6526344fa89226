/**
 * Reading rules: one query joins the names of what a rule references, so the
 * API, the renderers (through `listRules`) and the policy test see the same
 * thing. The referenced tables are the ones the rule's foreign keys point at.
 */
import type { Knex } from 'knex'
import type { Static } from '../../../sdk/index.js'
import type { PolicyRuleView } from '../api.js'
import type { AaaPolicyRuleResponse } from '../schemas/rules.js'

export const RULES = 'aaa_policy_rules'

type Db = Knex | Knex.Transaction
export type RuleResponse = Static<typeof AaaPolicyRuleResponse>

export interface RuleRow {
  id: string
  name: string
  description: string | null
  enabled: boolean
  position: number
  is_default: boolean
  who_user_id: string | null
  who_group_id: string | null
  where_device_id: string | null
  where_device_group_id: string | null
  tacacs_profile_id: string | null
  radius_profile_id: string | null
  who_user_name: string | null
  who_group_name: string | null
  where_device_name: string | null
  where_device_group_name: string | null
  tacacs_profile_name: string | null
  radius_profile_name: string | null
  created_at: Date
  updated_at: Date
}

/** Every rule with the names it references, in evaluation order. */
export const selectRules = (db: Db) =>
  db(`${RULES} as r`)
    .leftJoin('users as u', 'u.id', 'r.who_user_id')
    .leftJoin('user_groups as g', 'g.id', 'r.who_group_id')
    .leftJoin('inventory_devices as d', 'd.id', 'r.where_device_id')
    .leftJoin('inventory_device_groups as dg', 'dg.id', 'r.where_device_group_id')
    .leftJoin('tacacs_profiles as tp', 'tp.id', 'r.tacacs_profile_id')
    .leftJoin('radius_profiles as rp', 'rp.id', 'r.radius_profile_id')
    .select(
      'r.id', 'r.name', 'r.description', 'r.enabled', 'r.position', 'r.is_default',
      'r.who_user_id', 'r.who_group_id', 'r.where_device_id', 'r.where_device_group_id', 'r.tacacs_profile_id', 'r.radius_profile_id',
      'u.username as who_user_name', 'g.name as who_group_name', 'd.name as where_device_name', 'dg.name as where_device_group_name',
      'tp.name as tacacs_profile_name', 'rp.name as radius_profile_name', 'r.created_at', 'r.updated_at',
    )
    .orderBy('r.position')

/** What `toView` reads: a rule row without the columns only the API's answers carry. */
export type ViewRow = Omit<RuleRow, 'description' | 'tacacs_profile_name' | 'radius_profile_name' | 'created_at' | 'updated_at'>

/**
 * Every rule as `listRules` needs it, in evaluation order: the same rows and WHO/WHERE names as
 * `selectRules`, without the description, the profile names and the two timestamps. The policy
 * test and the renderers read the whole list, and with thousands of rules those columns (the
 * timestamps above all, parsed into dates and thrown away) took a third of the time.
 */
export const selectViewRows = (db: Db) =>
  db(`${RULES} as r`)
    .leftJoin('users as u', 'u.id', 'r.who_user_id')
    .leftJoin('user_groups as g', 'g.id', 'r.who_group_id')
    .leftJoin('inventory_devices as d', 'd.id', 'r.where_device_id')
    .leftJoin('inventory_device_groups as dg', 'dg.id', 'r.where_device_group_id')
    .select(
      'r.id', 'r.name', 'r.enabled', 'r.position', 'r.is_default',
      'r.who_user_id', 'r.who_group_id', 'r.where_device_id', 'r.where_device_group_id', 'r.tacacs_profile_id', 'r.radius_profile_id',
      'u.username as who_user_name', 'g.name as who_group_name', 'd.name as where_device_name', 'dg.name as where_device_group_name',
    )
    .orderBy('r.position')

const iso = (d: Date | string) => new Date(d).toISOString()

export const toResponse = (r: RuleRow): RuleResponse => ({
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
  who_name: r.who_user_name ?? r.who_group_name,
  where_name: r.where_device_name ?? r.where_device_group_name,
  tacacs_profile_name: r.tacacs_profile_name,
  radius_profile_name: r.radius_profile_name,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

/** The renderers' view: WHO and WHERE as tagged values, `any` for the default rule. */
export const toView = (r: ViewRow): PolicyRuleView => ({
  id: r.id,
  name: r.name,
  position: r.position,
  enabled: r.enabled,
  is_default: r.is_default,
  who: r.who_user_id
    ? { type: 'user', user_id: r.who_user_id, username: r.who_user_name! }
    : r.who_group_id
      ? { type: 'group', group_id: r.who_group_id, group_name: r.who_group_name! }
      : { type: 'any' },
  where: r.where_device_id
    ? { type: 'device', device_id: r.where_device_id, device_name: r.where_device_name! }
    : r.where_device_group_id
      ? { type: 'device_group', device_group_id: r.where_device_group_id, device_group_name: r.where_device_group_name! }
      : { type: 'any' },
  tacacs_profile_id: r.tacacs_profile_id,
  radius_profile_id: r.radius_profile_id,
})

export async function loadRows(db: Db): Promise<RuleRow[]> {
  return (await selectRules(db)) as RuleRow[]
}

/** Every rule in evaluation order as the renderers and the policy test see it (`listRules`). */
export async function loadViews(db: Db): Promise<PolicyRuleView[]> {
  return ((await selectViewRows(db)) as ViewRow[]).map(toView)
}

export async function loadRow(db: Db, id: string): Promise<RuleRow | null> {
  return ((await selectRules(db).where('r.id', id).first()) as RuleRow | undefined) ?? null
}
