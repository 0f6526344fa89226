/** The read side's tables (migrations/0002_latest_lines.ts): declared here, spread into tables.ts. */
import { column, defineTable, type TableDefinition, type TableType } from '../../sdk/index.js'

/**
 * The latest configuration of every tracked device, masked, one row a line: what search reads.
 * `line_lc` is the line lower-cased by JavaScript (not SQL's lower()), so both engines compare alike.
 */
export const LatestLinesTable = defineTable('ncm_latest_lines', {
  device_id: column.uuid(),
  n: column.integer(),
  line: column.text(),
  line_lc: column.text(),
})

export const readSideTables: TableDefinition[] = [LatestLinesTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    ncm_latest_lines: TableType<typeof LatestLinesTable>
  }
}
