/**
 * A table's columns, declared once: the TypeScript row type that knex's table
 * typings use (so a renamed column breaks the build, not production), and the
 * runtime shape the kernel checks against the migrated database at every boot
 * (so a migration and its declaration cannot drift apart unnoticed).
 *
 *   export const DeviceTable = defineTable('inventory_devices', {
 *     id: column.uuid().defaulted(),
 *     name: column.text(),
 *     description: column.text().nullable(),
 *     created_at: column.timestamp().defaulted(),
 *   })
 *   declare module 'knex/types/tables.js' {
 *     interface Tables { inventory_devices: TableType<typeof DeviceTable> }
 *   }
 *
 * Then `db('inventory_devices').where({ nme: x })` does not compile and
 * `await db('inventory_devices').first()` is a typed row, with no cast.
 * A plugin lists its tables in its manifest (`tables`); the kernel refuses to
 * start when a declared column is missing from the database, has another type,
 * or differs in nullability.
 */
import type { Knex } from 'knex'

/** PostgreSQL's names for the types we use, as information_schema.columns.data_type gives them. */
export type SqlType =
  | 'uuid'
  | 'text'
  | 'character varying'
  | 'integer'
  | 'smallint'
  | 'bigint'
  | 'boolean'
  | 'timestamp with time zone'
  | 'date'
  | 'jsonb'
  | 'cidr'
  | 'inet'
  | 'bytea'
  | 'tsvector'
  | 'ARRAY'

export interface Column<T, Nullable extends boolean = false, Defaulted extends boolean = false, W = T> {
  readonly sqlType: SqlType
  readonly isNullable: Nullable
  /** The database fills it in when an insert leaves it out (a default, a serial, a trigger). */
  readonly isDefaulted: Defaulted
  nullable(): Column<T, true, Defaulted, W>
  defaulted(): Column<T, Nullable, true, W>
  /** Phantom: the value type a query returns. */
  readonly __value?: T
  /** Phantom: what an insert or update may give (T itself, but for jsonb: see JsonText). */
  readonly __write?: W
}

function makeColumn<T, N extends boolean, D extends boolean, W = T>(sqlType: SqlType, isNullable: N, isDefaulted: D): Column<T, N, D, W> {
  return {
    sqlType,
    isNullable,
    isDefaulted,
    nullable: () => makeColumn<T, true, D, W>(sqlType, true, isDefaulted),
    defaulted: () => makeColumn<T, N, true, W>(sqlType, isNullable, true),
  }
}

declare const jsonOf: unique symbol
/**
 * A value's JSON text, for a jsonb column. node-postgres (and the embedded
 * engine, which uses its conversion) sends a JS array as a PostgreSQL array
 * literal, which jsonb refuses, so an array must go as its JSON text; the
 * brand keeps the element type checked: `permissions: jsonText(list)`.
 */
export type JsonText<T> = string & { readonly [jsonOf]: T }
export const jsonText = <T>(value: T): JsonText<T> => JSON.stringify(value) as JsonText<T>
/** What a jsonb column takes on write: its JSON text, or the value itself when that is not an array. */
type JsonWrite<T> = JsonText<T> | (T extends readonly unknown[] ? never : T)

const of = <T>(sqlType: SqlType) => () => makeColumn<T, false, false>(sqlType, false, false)
/** A text column whose values a check or the code keeps to a set: `column.varchar<'local' | 'directory'>()`. */
const ofText = (sqlType: SqlType) => <T extends string = string>() => makeColumn<NoInfer<T>, false, false>(sqlType, false, false)

/** The column kinds. Values are what both engines return after the SDK's database normalization. */
export const column = {
  uuid: of<string>('uuid'),
  text: ofText('text'),
  /** `varchar(n)`: knex's `t.string`. */
  varchar: ofText('character varying'),
  integer: of<number>('integer'),
  smallint: of<number>('smallint'),
  /** int8: a number on both engines (kernel/db/connect.ts parses it so; counts and offsets stay below 2^53). */
  bigint: of<number>('bigint'),
  boolean: of<boolean>('boolean'),
  timestamp: of<Date>('timestamp with time zone'),
  /** A calendar day: pg parses it to a Date at local midnight. */
  date: of<Date>('date'),
  /** A JSON document; T is what the owner stores there. */
  jsonb: <T = unknown>() => makeColumn<NoInfer<T>, false, false, JsonWrite<NoInfer<T>>>('jsonb', false, false),
  cidr: of<string>('cidr'),
  inet: of<string>('inet'),
  bytea: of<Buffer>('bytea'),
  tsvector: of<string>('tsvector'),
  /** A PostgreSQL array (`text[]`, `uuid[]`): T is the element type. */
  array: <T>() => makeColumn<NoInfer<T>[], false, false>('ARRAY', false, false),
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyColumn = Column<any, boolean, boolean>
export type Columns = Record<string, AnyColumn>

export interface TableDefinition<C extends Columns = Columns> {
  readonly name: string
  readonly columns: C
}

export function defineTable<const C extends Columns>(name: string, columns: C): TableDefinition<C> {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`defineTable: "${name}" is not a plain table name`)
  return { name, columns }
}

type ValueOf<K> = K extends Column<infer T, infer N, boolean, unknown> ? (N extends true ? T | null : T) : never
type WriteOf<K> = K extends Column<unknown, infer N, boolean, infer W> ? (N extends true ? W | null : W) : never

/** The row a select of every column returns. */
export type RowOf<T extends TableDefinition> = { -readonly [K in keyof T['columns']]: ValueOf<T['columns'][K]> }

type Required_<C extends Columns> = { [K in keyof C as C[K] extends Column<unknown, false, false, unknown> ? K : never]: WriteOf<C[K]> }
type Optional_<C extends Columns> = { [K in keyof C as C[K] extends Column<unknown, false, false, unknown> ? never : K]?: WriteOf<C[K]> | Knex.Raw }

/** What an insert must give: columns without a default and not nullable are required. */
export type InsertOf<T extends TableDefinition> = Required_<T['columns']> & Optional_<T['columns']>

/** What an update may set: any subset of the columns. */
export type UpdateOf<T extends TableDefinition> = Partial<{ -readonly [K in keyof T['columns']]: WriteOf<T['columns'][K]> | Knex.Raw }>

/** knex's composite table type: rows for selects, InsertOf for inserts, any subset for updates. */
export type TableType<T extends TableDefinition> = Knex.CompositeTableType<RowOf<T>, InsertOf<T>, UpdateOf<T>>

/**
 * The fields a partial update gave (those not undefined), for the columns they set as they are:
 * `const cols: UpdateOf<typeof RolesTable> = { updated_at: now, ...givenFields(b, ['name', 'description']) }`.
 */
export function givenFields<B extends object, const K extends keyof B>(body: B, keys: readonly K[]): { [P in K]?: Exclude<B[P], undefined> } {
  const out: { [P in K]?: Exclude<B[P], undefined> } = {}
  for (const k of keys) if (body[k] !== undefined) out[k] = body[k] as Exclude<B[K], undefined>
  return out
}

/** One difference between a declaration and the migrated database. */
export interface TableDrift {
  table: string
  column: string | null
  problem: string
}

/**
 * information_schema.columns' answer (data_type, is_nullable) for the named tables of the current
 * schema, read from the catalog directly: the view costs about twice as much (its privilege checks
 * and joins), which every boot pays, most on the embedded engine. The CASEs are the view's own
 * definition: a domain takes its base type, an array is ARRAY, a type outside pg_catalog USER-DEFINED.
 */
const COLUMNS_SQL = `
SELECT c.relname AS table_name, a.attname AS column_name,
  CASE
    WHEN t.typtype = 'd' THEN
      CASE WHEN bt.typelem <> 0 AND bt.typlen = -1 THEN 'ARRAY' WHEN bt.typnamespace = 'pg_catalog'::regnamespace THEN format_type(t.typbasetype, NULL) ELSE 'USER-DEFINED' END
    ELSE
      CASE WHEN t.typelem <> 0 AND t.typlen = -1 THEN 'ARRAY' WHEN t.typnamespace = 'pg_catalog'::regnamespace THEN format_type(a.atttypid, NULL) ELSE 'USER-DEFINED' END
  END AS data_type,
  CASE WHEN a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) THEN 'NO' ELSE 'YES' END AS is_nullable
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'v', 'f', 'p') AND c.relname = ANY(?)
  AND a.attnum > 0 AND NOT a.attisdropped`

/**
 * Compares declarations with the connected database's columns (as information_schema
 * names their types): a declared column that is missing, of another type or of other
 * nullability is drift. Columns the database has beyond the declaration are allowed (an
 * index-only column, a column being retired), so declarations may stay partial.
 */
export async function checkTables(db: Knex, tables: readonly TableDefinition[]): Promise<TableDrift[]> {
  if (tables.length === 0) return []
  const { rows } = (await db.raw(COLUMNS_SQL, [tables.map((t) => t.name)])) as { rows: { table_name: string; column_name: string; data_type: string; is_nullable: 'YES' | 'NO' }[] }
  const found = new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r]))
  const present = new Set(rows.map((r) => r.table_name))
  const drift: TableDrift[] = []
  for (const t of tables) {
    if (!present.has(t.name)) {
      drift.push({ table: t.name, column: null, problem: 'table missing' })
      continue
    }
    for (const [name, c] of Object.entries(t.columns)) {
      const r = found.get(`${t.name}.${name}`)
      if (!r) drift.push({ table: t.name, column: name, problem: 'column missing' })
      else if (r.data_type !== c.sqlType) drift.push({ table: t.name, column: name, problem: `type is ${r.data_type}, declared ${c.sqlType}` })
      else if ((r.is_nullable === 'YES') !== c.isNullable) drift.push({ table: t.name, column: name, problem: r.is_nullable === 'YES' ? 'nullable, declared not null' : 'not null, declared nullable' })
    }
  }
  return drift
}

/**
 * For a migration: creates the pg_trgm extension where the server offers it and the role may create
 * it (the embedded engine loads it; a managed PostgreSQL may refuse), and says whether it is there.
 * A trigram index is an optimisation: without it the searches it serves still answer, more slowly.
 * Applied migrations call it: never change what it does (add another function instead).
 */
export async function ensurePgTrgm(knex: Knex): Promise<boolean> {
  const available = await knex.raw(`SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'`)
  if (!available.rows?.length) return false
  await knex.raw(`DO $$ BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pg_trgm not created: %', SQLERRM;
    END $$`)
  const has = await knex.raw(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)
  return Boolean(has.rows?.length)
}
