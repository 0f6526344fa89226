/**
 * What the database holds, read from PostgreSQL's own catalog (the same
 * queries on both engines): every table of the schema, whoever owns it (the
 * kernel, a plugin, knex's migration tables), so a table a plugin forgot to
 * declare is backed up too; the partitions of partitioned tables; the
 * sequences; and the foreign keys that decide the order tables are loaded in.
 */
import type { Knex } from 'knex'

export interface CatalogTable {
  name: string
  partitioned: boolean
  columns: string[]
}

type Rows<T> = { rows: T[] }

const SCHEMA = 'c.relnamespace = current_schema()::regnamespace'

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`

export async function listTables(db: Knex): Promise<CatalogTable[]> {
  const r = (await db.raw(`
    SELECT c.relname AS name, c.relkind = 'p' AS partitioned,
           array_agg(a.attname::text ORDER BY a.attnum) AS columns
      FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     WHERE ${SCHEMA} AND c.relkind IN ('r', 'p') AND NOT c.relispartition
     GROUP BY c.relname, c.relkind
     ORDER BY c.relname`)) as Rows<{ name: string; partitioned: boolean; columns: string[] | string }>
  // An array of names comes back parsed from pg; a text[] literal from a driver that does not parse name[] arrays.
  return r.rows.map((t) => ({ name: t.name, partitioned: t.partitioned, columns: Array.isArray(t.columns) ? t.columns : parseTextArray(t.columns) }))
}

function parseTextArray(s: string): string[] {
  const inner = s.replace(/^\{|\}$/g, '')
  return inner ? inner.split(',').map((x) => x.replace(/^"|"$/g, '')) : []
}

export async function listPartitions(db: Knex): Promise<{ name: string; parent: string; bound: string }[]> {
  const r = (await db.raw(`
    SELECT c.relname AS name, p.relname AS parent, pg_get_expr(c.relpartbound, c.oid) AS bound
      FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid JOIN pg_class p ON p.oid = i.inhparent
     WHERE ${SCHEMA} AND c.relispartition AND c.relkind IN ('r', 'p')
     ORDER BY p.relname, c.relname`)) as Rows<{ name: string; parent: string; bound: string }>
  return r.rows
}

export async function listSequences(db: Knex): Promise<{ name: string; last_value: number; is_called: boolean }[]> {
  const names = ((await db.raw(`SELECT c.relname AS name FROM pg_class c WHERE ${SCHEMA} AND c.relkind = 'S' ORDER BY 1`)) as Rows<{ name: string }>).rows
  const out: { name: string; last_value: number; is_called: boolean }[] = []
  for (const { name } of names) {
    const v = ((await db.raw(`SELECT last_value, is_called FROM ${quoteIdent(name)}`)) as Rows<{ last_value: number | string; is_called: boolean }>).rows[0]
    out.push({ name, last_value: Number(v.last_value), is_called: v.is_called })
  }
  return out
}

/** Referencing → referenced table names (a table's self-reference left out). */
export async function foreignKeys(db: Knex): Promise<{ child: string; parent: string }[]> {
  const r = (await db.raw(`
    SELECT c.relname AS child, p.relname AS parent
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
     WHERE k.contype = 'f' AND ${SCHEMA} AND k.conrelid <> k.confrelid`)) as Rows<{ child: string; parent: string }>
  return r.rows
}

/** `names` ordered so that a referenced table comes before the tables referencing it (name order otherwise). */
export function loadOrder(names: string[], edges: { child: string; parent: string }[]): string[] {
  const set = new Set(names)
  const parents = new Map<string, Set<string>>(names.map((n) => [n, new Set()]))
  for (const e of edges) if (set.has(e.child) && set.has(e.parent)) parents.get(e.child)!.add(e.parent)
  const out: string[] = []
  const done = new Set<string>()
  const pending = [...names].sort()
  while (pending.length) {
    const i = pending.findIndex((n) => [...parents.get(n)!].every((p) => done.has(p)))
    // A cycle of foreign keys: load the rest in name order and let the database say which row is missing.
    const next = pending.splice(i < 0 ? 0 : i, 1)[0]
    out.push(next)
    done.add(next)
  }
  return out
}

export interface IndexDef {
  name: string
  table: string
  definition: string
}

/**
 * The indexes of a table that no constraint owns (not its primary key or a
 * unique constraint): a restore drops them before loading many rows and builds
 * them again after, as pg_restore does, which is much faster than updating
 * them row by row. An index of a partitioned table is taken at the parent
 * (its partitions' indexes come back with it).
 */
export async function plainIndexes(db: Knex, table: string): Promise<IndexDef[]> {
  const r = (await db.raw(`
    SELECT i.relname AS name, pg_get_indexdef(i.oid) AS definition
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
     WHERE ${SCHEMA} AND c.relname = ?
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid)
       AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = i.oid)
     ORDER BY i.relname`, [table])) as Rows<{ name: string; definition: string }>
  // The definition of a partitioned table's index says ON ONLY (pg_dump attaches each partition's index after): build it whole.
  return r.rows.map((x) => ({ name: x.name, table, definition: x.definition.replace(/ ON ONLY /, ' ON ') }))
}

/**
 * The primary-key and unique constraints of a table that no foreign key
 * leans on: dropped for a large load and added back after, like the plain
 * indexes (pg_restore adds them after the data too). Its definition is
 * PostgreSQL's own (pg_get_constraintdef, as pg_dump writes it).
 */
export async function keyConstraints(db: Knex, table: string): Promise<IndexDef[]> {
  const r = (await db.raw(`
    SELECT k.conname AS name, pg_get_constraintdef(k.oid) AS definition
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
     WHERE ${SCHEMA} AND c.relname = ? AND k.contype IN ('p', 'u') AND k.conparentid = 0
       AND NOT EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = k.conindid)
     ORDER BY k.conname`, [table])) as Rows<{ name: string; definition: string }>
  return r.rows.map((x) => ({ name: x.name, table, definition: x.definition }))
}

/** Whether the kernel's migration table exists: a database never set up has no schema at all. */
export async function hasSchema(db: Knex): Promise<boolean> {
  const r = (await db.raw(`SELECT to_regclass('knex_migrations') AS t`)) as Rows<{ t: string | null }>
  return r.rows[0].t !== null
}
