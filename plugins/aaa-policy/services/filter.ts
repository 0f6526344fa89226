/**
 * The list filters. Four dimensions: WHO (who_user_id, who_group_id), WHERE
 * (where_device_id, where_device_group_id), the TACACS+ profile and the
 * RADIUS profile. Values within a dimension combine with OR, dimensions with
 * AND. With `resolve_groups`, a user also stands for the groups they belong
 * to and a device for its group and that group's ancestors, and the default
 * rule satisfies WHO and WHERE (it applies to anyone, anywhere): the answer is
 * then "the rules that apply to this user on this device", in order. Without
 * it, the filters compare what a rule literally targets.
 */
import type { Knex } from 'knex'
import type { IdentityService, Static } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { AaaPolicyRuleListQuery } from '../schemas/rules.js'

type Query = Static<typeof AaaPolicyRuleListQuery>

const uniq = (xs: Iterable<string>) => [...new Set(xs)]

/** Union of what each value resolves to; a lookup that fails (an unknown id) contributes nothing. */
async function expand(ids: string[], lookup: (id: string) => Promise<string[]>): Promise<string[]> {
  const lists = await Promise.all(ids.map((id) => lookup(id).catch(() => [] as string[])))
  return uniq(lists.flat())
}

interface Dimension {
  /** column → allowed values; a rule passes when any column holds one of its values. */
  columns: [string, string[]][]
  /** The default rule passes too. */
  orDefault: boolean
}

export async function applyFilters(qb: Knex.QueryBuilder, q: Query, d: { identity: IdentityService; inventory: InventoryService }): Promise<void> {
  const resolve = q.resolve_groups === true
  const users = uniq(q.who_user_id ?? [])
  const groups = uniq(q.who_group_id ?? [])
  const devices = uniq(q.where_device_id ?? [])
  const deviceGroups = uniq(q.where_device_group_id ?? [])

  const dims: Dimension[] = []
  if (users.length || groups.length) {
    const viaUsers = resolve ? await expand(users, (id) => d.identity.groupIdsOf(id)) : []
    dims.push({ columns: [['who_user_id', users], ['who_group_id', uniq([...groups, ...viaUsers])]], orDefault: resolve })
  }
  if (devices.length || deviceGroups.length) {
    const viaDevices = resolve ? await expand(devices, (id) => d.inventory.deviceGroupIds(id)) : []
    dims.push({ columns: [['where_device_id', devices], ['where_device_group_id', uniq([...deviceGroups, ...viaDevices])]], orDefault: resolve })
  }
  if (q.tacacs_profile_id?.length) dims.push({ columns: [['tacacs_profile_id', uniq(q.tacacs_profile_id)]], orDefault: false })
  if (q.radius_profile_id?.length) dims.push({ columns: [['radius_profile_id', uniq(q.radius_profile_id)]], orDefault: false })

  for (const dim of dims) {
    qb.where((w) => {
      // An always-false start, so a dimension whose value lists are all empty matches nothing.
      w.whereRaw('false')
      for (const [column, values] of dim.columns) if (values.length) w.orWhereIn(column, values)
      if (dim.orDefault) w.orWhere('is_default', true)
    })
  }
}
