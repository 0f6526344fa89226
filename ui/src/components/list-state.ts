/**
 * A list screen's state, kept in the address: the page, the page size, the sort (one of the names
 * the list's API route allows), the search and the screen's own filters (`group`, `state`…), with
 * the API's own parameter names (`?page=2&per_page=50&sort_by=address&sort_order=desc&search=sw`).
 * A reload, a link, Back and the quick search (which opens `/devices?search=…` on the page already
 * shown) all land on the same list. Defaults stay out of the address; a value the route would
 * refuse (an unknown sort, a page size it does not offer) falls back to the default.
 */
import { useDebouncedValue } from '@mantine/hooks'
import { navigate, useQueryString } from '../router'

/** The page sizes offered (every list route allows up to 100). */
export const PAGE_SIZES = [20, 50, 100] as const

export type SortOrder = 'asc' | 'desc'

export interface ListSpec<S extends string, F extends string> {
  /** The route's `sort_by` allow-list (those the screen offers), and the default among them. */
  sorts: readonly S[]
  sort: S
  order?: SortOrder
  perPage?: number
  /** Further query parameters of the screen, kept in the address too. */
  filters?: readonly F[]
}

export interface ListState<S extends string, F extends string> {
  page: number
  perPage: number
  sortBy: S
  sortOrder: SortOrder
  /** The search as typed, and as sent (a moment after the last key). */
  search: string
  q: string
  filters: Record<F, string | null>
  /** What the list shows, as one text: the query key's part, and the selection is dropped when it changes. */
  key: string
  setPage(page: number): void
  setPerPage(n: number): void
  /** A header's click: that column ascending, or the other way when it is already the sort. */
  sortOn(s: S): void
  setSearch(s: string): void
  setFilter(f: F, v: string | null): void
  /**
   * Several parameters at once (null or '' removes one), back to page 1 unless `page` is among
   * them: a tab that resets its sort and filters, a switch that also sorts (`sort_by`…).
   */
  setParams(changes: Partial<Record<F | 'sort_by' | 'sort_order' | 'page', string | null>>): void
  /** The route's paging and sort parameters (and the search), for its query. */
  query: { page: number; per_page: number; sort_by: S; sort_order: SortOrder; search?: string }
}

export function useListState<S extends string, F extends string = never>(spec: ListSpec<S, F>): ListState<S, F> {
  const qs = new URLSearchParams(useQueryString())
  const defaultOrder = spec.order ?? 'asc'
  const defaultPerPage = spec.perPage ?? PAGE_SIZES[0]
  const wantedSort = qs.get('sort_by')
  const sortBy = spec.sorts.find((s) => s === wantedSort) ?? spec.sort
  const wantedOrder = qs.get('sort_order')
  const sortOrder: SortOrder = wantedOrder === 'asc' || wantedOrder === 'desc' ? wantedOrder : defaultOrder
  const wantedSize = Number(qs.get('per_page'))
  const perPage = (PAGE_SIZES as readonly number[]).includes(wantedSize) ? wantedSize : defaultPerPage
  const page = Math.max(1, Math.floor(Number(qs.get('page'))) || 1)
  const search = qs.get('search') ?? ''
  const [q] = useDebouncedValue(search, 250)
  const filters = Object.fromEntries((spec.filters ?? []).map((f) => [f, qs.get(f)])) as Record<F, string | null>

  /** Writes `changes` (null or '' removes the parameter) into the address, back to page 1 unless the page is what changes. */
  const write = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(location.search)
    if (!('page' in changes)) next.delete('page')
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === '') next.delete(k)
      else next.set(k, v)
    }
    const text = next.toString()
    navigate(location.pathname + (text ? `?${text}` : ''), { replace: true })
  }
  const sortOn = (s: S) => {
    const order: SortOrder = s === sortBy ? (sortOrder === 'asc' ? 'desc' : 'asc') : 'asc'
    const isDefault = s === spec.sort && order === defaultOrder
    write({ sort_by: isDefault ? null : s, sort_order: isDefault ? null : order })
  }
  return {
    page, perPage, sortBy, sortOrder, search, q, filters,
    key: JSON.stringify([page, perPage, sortBy, sortOrder, q, filters]),
    setPage: (p) => write({ page: p > 1 ? String(p) : null }),
    setPerPage: (n) => write({ per_page: n === defaultPerPage ? null : String(n) }),
    sortOn,
    setSearch: (s) => write({ search: s }),
    setFilter: (f, v) => write({ [f]: v }),
    setParams: (changes) => write(changes as Record<string, string | null>),
    query: { page, per_page: perPage, sort_by: sortBy, sort_order: sortOrder, ...(q ? { search: q } : {}) },
  }
}

/**
 * The screen's typed filters (a name, an address, a date) as sent, a moment after the last key:
 * the address follows every key, the route is asked once the typing stops. Compared as text, so
 * a new object of the same values does not restart the wait.
 */
export function useTypedFilters<F extends string>(filters: Record<F, string | null>, ms = 300): Record<F, string | null> {
  const [text] = useDebouncedValue(JSON.stringify(filters), ms)
  return JSON.parse(text) as Record<F, string | null>
}
