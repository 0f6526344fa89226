/**
 * The one pagination helper. Every list endpoint declares its query with
 * `listQuery` (bounds, sort allow-list, extra filters) and answers with
 * `paginate`, so `page`/`per_page`/`search`/`sort_by`/`sort_order` behave
 * the same everywhere and an unknown sort name is a 422 from the schema.
 */
import type { Knex } from 'knex'
import { Type, StringEnum, type TSchema, type Static } from './schema.js'

export interface ListQueryOptions<S extends readonly string[], X extends Record<string, TSchema>> {
  maxPerPage: number
  defaultPerPage: number
  sortBy: S
  defaultSortOrder?: 'asc' | 'desc'
  filters?: X
}

export function listQuery<const S extends readonly string[], X extends Record<string, TSchema> = {}>(o: ListQueryOptions<S, X>) {
  return Type.Object(
    {
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
      per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: o.maxPerPage, default: o.defaultPerPage })),
      search: Type.Optional(Type.String({ maxLength: 200 })),
      sort_by: Type.Optional(StringEnum(o.sortBy)),
      sort_order: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: o.defaultSortOrder ?? 'asc' })),
      ...((o.filters ?? {}) as X),
    },
    { additionalProperties: false },
  )
}

export interface ListParams {
  page?: number
  per_page?: number
  search?: string
  sort_by?: string
  sort_order?: 'asc' | 'desc'
}

/** `{ items, total, total_by_filter, page, per_page, pages }` for item schema T. */
export function Paginated<T extends TSchema>(item: T, title: string) {
  return Type.Object(
    {
      items: Type.Array(item),
      total: Type.Integer({ minimum: 0, description: 'All records, before filters and search.' }),
      total_by_filter: Type.Integer({ minimum: 0, description: 'Records matching the filters and search.' }),
      page: Type.Integer({ minimum: 1 }),
      per_page: Type.Integer({ minimum: 1 }),
      pages: Type.Integer({ minimum: 0 }),
    },
    { title, additionalProperties: false },
  )
}

export interface Page<T> {
  items: T[]
  total: number
  total_by_filter: number
  page: number
  per_page: number
  pages: number
}

export interface PaginateSpec<Row, Item, P extends ListParams = ListParams> {
  /** All records of the resource (the `total`). */
  base: () => Knex.QueryBuilder
  /**
   * The plain filters: a query parameter that, when given, keeps the rows whose
   * column equals it (`{ enabled: 'users.enabled' }`). Combined with AND, like `filter`.
   */
  equals?: { [K in Exclude<keyof P, keyof ListParams>]?: string }
  /** Narrow to the other filters (not search); applied to the `total_by_filter` and items queries. */
  filter?: (qb: Knex.QueryBuilder) => void
  /** Columns `search` matches (case-insensitive substring). */
  searchColumns: string[]
  /** Allowed sort names mapped to columns. */
  sortColumns: Record<string, string>
  defaultSort: string
  defaultPerPage: number
  /** A unique column to make ordering stable across pages. */
  tieBreaker?: string
  map: (row: Row) => Item
}

/** Escape LIKE wildcards so a search for `50%` means that text. */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => '\\' + c)

export function applySearch(qb: Knex.QueryBuilder, columns: string[], search: string | undefined): void {
  const term = search?.trim()
  if (!term) return
  const pattern = `%${likeEscape(term)}%`
  qb.where((w) => {
    for (const c of columns) w.orWhereRaw(`?? ILIKE ?`, [c, pattern])
  })
}

export async function paginate<Row, Item, P extends ListParams = ListParams>(params: P, spec: PaginateSpec<Row, Item, P>): Promise<Page<Item>> {
  const page = params.page ?? 1
  const perPage = params.per_page ?? spec.defaultPerPage
  const sortColumn = spec.sortColumns[params.sort_by ?? spec.defaultSort] ?? spec.sortColumns[spec.defaultSort]
  const order = params.sort_order ?? 'asc'

  const filtered = () => {
    const qb = spec.base()
    for (const [param, column] of Object.entries(spec.equals ?? {}) as [keyof P, string][]) {
      const value = params[param]
      if (value !== undefined && value !== null && value !== '') qb.where(column, value as Knex.Value)
    }
    spec.filter?.(qb)
    applySearch(qb, spec.searchColumns, params.search)
    return qb
  }
  const count = async (qb: Knex.QueryBuilder) => Number(((await qb.clearSelect().count({ n: '*' }).first()) as { n: string | number }).n)

  const [total, totalByFilter] = await Promise.all([count(spec.base()), count(filtered())])
  const items = filtered()
    .orderBy(sortColumn, order)
    .limit(perPage)
    .offset((page - 1) * perPage)
  if (spec.tieBreaker) items.orderBy(spec.tieBreaker, order)
  const rows = (await items) as Row[]
  return {
    items: rows.map(spec.map),
    total,
    total_by_filter: totalByFilter,
    page,
    per_page: perPage,
    pages: Math.ceil(totalByFilter / perPage),
  }
}

export type ListQuery<T extends TSchema> = Static<T>
