/** Compliance's tables (migrations/0003_compliance.ts): declared here, spread into tables.ts. */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'
import type { EvidenceLine, MatchKind, Requirement, RuleStatus } from './services/evaluate.js'

export const RulesTable = defineTable('ncm_rules', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  device_group_id: column.uuid().nullable(),
  requirement: column.varchar<Requirement>(),
  match: column.varchar<MatchKind>(),
  pattern: column.varchar(),
  notify: column.boolean().defaulted(),
  enabled: column.boolean().defaulted(),
  revision: column.integer().defaulted(),
  evaluated_at: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type RuleRow = RowOf<typeof RulesTable>

export const RuleResultsTable = defineTable('ncm_rule_results', {
  rule_id: column.uuid(),
  device_id: column.uuid(),
  version_id: column.uuid(),
  status: column.varchar<RuleStatus>(),
  evidence: column.jsonb<EvidenceLine[]>(),
  match_count: column.integer(),
  since: column.timestamp(),
  evaluated_at: column.timestamp(),
  notified_at: column.timestamp().nullable(),
})
export type RuleResultRow = RowOf<typeof RuleResultsTable>

export const complianceTables = [RulesTable, RuleResultsTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    ncm_rules: TableType<typeof RulesTable>
    ncm_rule_results: TableType<typeof RuleResultsTable>
  }
}
