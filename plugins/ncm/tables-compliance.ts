/** Compliance's tables (migrations/0003, helper ha): declared here, spread into tables.ts. */
import type { TableDefinition } from '../../sdk/index.js'

export const complianceTables: TableDefinition[] = []
