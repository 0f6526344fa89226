/** The plugin's tables as its code reads them (from migrations/0001_reports.ts); the kernel checks them at boot. */
import { column, defineTable, type RowOf, type TableType } from '@portcullis/sdk'
import type { ReportFormat } from './render/document.js'

export type { ReportFormat }

export type RangeKind = 'last_24h' | 'last_7d' | 'last_30d' | 'last_month' | 'custom'
export type RunState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled'
export type RunTrigger = 'manual' | 'schedule'
export type MailState = 'none' | 'sent' | 'failed'

/** What a run read, as it read it: the definition may change afterwards. */
export interface RunParameters {
  from: string
  to: string
  time_zone: string
  language: 'en' | 'ru'
  sources: string[]
  device_group_id: string | null
  user_group_id: string | null
  formats: ReportFormat[]
  recipients: string[]
  row_limit: number
}

export interface RowCount {
  source: string
  rows: number
  total_rows: number | null
  truncated: boolean
}

export const DefinitionsTable = defineTable('reports_definitions', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.text().nullable(),
  sources: column.jsonb<string[]>(),
  range_kind: column.varchar<RangeKind>(),
  range_from: column.timestamp().nullable(),
  range_to: column.timestamp().nullable(),
  device_group_id: column.uuid().nullable(),
  user_group_id: column.uuid().nullable(),
  formats: column.jsonb<ReportFormat[]>(),
  schedule_cron: column.varchar().nullable(),
  time_zone: column.varchar().defaulted(),
  language: column.varchar<'en' | 'ru'>().defaulted(),
  recipients: column.jsonb<string[]>().defaulted(),
  owner_id: column.uuid().nullable(),
  next_run_at: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type DefinitionRow = RowOf<typeof DefinitionsTable>

export const RunsTable = defineTable('reports_runs', {
  id: column.uuid().defaulted(),
  definition_id: column.uuid(),
  state: column.varchar<RunState>().defaulted(),
  trigger: column.varchar<RunTrigger>(),
  actor_id: column.uuid().nullable(),
  actor_name: column.varchar().nullable(),
  scheduled_for: column.timestamp().nullable(),
  node_id: column.varchar(),
  parameters: column.jsonb<RunParameters>(),
  row_counts: column.jsonb<RowCount[]>().defaulted(),
  truncated: column.boolean().defaulted(),
  error_code: column.varchar().nullable(),
  error_vars: column.jsonb<Record<string, string>>().nullable(),
  mail_state: column.varchar<MailState>().defaulted(),
  mail_error: column.text().nullable(),
  queued_at: column.timestamp().defaulted(),
  started_at: column.timestamp().nullable(),
  finished_at: column.timestamp().nullable(),
})
export type RunRow = RowOf<typeof RunsTable>

export const FilesTable = defineTable('reports_files', {
  id: column.uuid().defaulted(),
  run_id: column.uuid(),
  format: column.varchar<ReportFormat>(),
  content_type: column.varchar(),
  content: column.bytea(),
  size: column.integer(),
  created_at: column.timestamp().defaulted(),
})

export const reportTables = [DefinitionsTable, RunsTable, FilesTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    reports_definitions: TableType<typeof DefinitionsTable>
    reports_runs: TableType<typeof RunsTable>
    reports_files: TableType<typeof FilesTable>
  }
}
