/**
 * The AAA policy's tables as its code reads them (sdk/tables.ts), from
 * migrations/ (0001 the rules, 0002 the version row, 0004 the rules' conditions): knex types every query on
 * them, and the kernel checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'
import type { StoredTimeWindow } from './services/conditions.js'

export const PolicyRuleTable = defineTable('aaa_policy_rules', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  enabled: column.boolean().defaulted(),
  /** Evaluation order, dense 0..n-1, the default rule last (services/order.ts). */
  position: column.integer(),
  is_default: column.boolean().defaulted(),
  // What a rule references, through each owner's contract (services/references.ts), not foreign keys.
  who_user_id: column.uuid().nullable(),
  who_group_id: column.uuid().nullable(),
  where_device_id: column.uuid().nullable(),
  where_device_group_id: column.uuid().nullable(),
  tacacs_profile_id: column.uuid().nullable(),
  radius_profile_id: column.uuid().nullable(),
  /** Optional conditions (migration 0004, services/conditions.ts): null, any time. */
  time_window: column.jsonb<StoredTimeWindow>().nullable(),
  /** Canonical CIDR prefixes the request's source address must be inside one of; empty, any source. */
  client_prefixes: column.array<string>().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

/** One row (id 1): bumped by every change the cached rule views must see (services/cache.ts). */
export const PolicyVersionTable = defineTable('aaa_policy_version', {
  id: column.integer(),
  version: column.bigint(),
})

export type RuleRow = RowOf<typeof PolicyRuleTable>

export const policyTables = [PolicyRuleTable, PolicyVersionTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    aaa_policy_rules: TableType<typeof PolicyRuleTable>
    aaa_policy_version: TableType<typeof PolicyVersionTable>
  }
}
