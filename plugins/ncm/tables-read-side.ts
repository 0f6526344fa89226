/** The read side's tables (migrations/0002, helper hd): declared here, spread into tables.ts. */
import type { TableDefinition } from '../../sdk/index.js'

export const readSideTables: TableDefinition[] = []
