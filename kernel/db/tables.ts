/**
 * The kernel's own tables as its code reads them (see sdk/tables.ts): the row
 * types knex's table typings use, checked against the database at every boot.
 */
import type { TableDefinition } from '../../sdk/index.js'

export const kernelTables: TableDefinition[] = []
