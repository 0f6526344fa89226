/**
 * What the configuration screens share (command sets, TACACS+ and RADIUS
 * profiles, log exclusions): the schemas they edit, the list query of a
 * paginated, searchable resource, and the "what refers to it" report.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useDebouncedValue } from '@mantine/hooks'
import { useState } from 'react'
import { api } from '../api/client'
import type { components } from '../generated/api'
import { useNames } from '../components/SearchSelect'
import { commandSetPicker } from './pickers'

type S = components['schemas']
export type CommandSet = S['CommandSetResponse']
export type CommandSetItem = S['CommandSetListResponse']
export type CommandInput = S['CommandSetCommandInput']
export type ArgumentRule = S['CommandArgumentRule']
export type TacacsProfile = S['TacacsProfileResponse']
export type TacacsProfileBody = S['TacacsProfileUpdate']
export type RadiusProfile = S['RadiusProfileResponse']
export type LogExclusion = S['LogExclusionResponse']
export type References = S['ReferenceReport']

export const PER_PAGE = 20

/** The page, the search box (debounced) and their setters of one list screen. */
export function useListState() {
  const [page, setPage] = useState(1)
  // `?search=<name>` (a link from the audit trail) opens the list filtered to that name.
  const [search, setSearchState] = useState(() => new URLSearchParams(location.search).get('search') ?? '')
  const [q] = useDebouncedValue(search, 250)
  const setSearch = (s: string) => {
    setSearchState(s)
    setPage(1)
  }
  return { page, setPage, search, setSearch, q, query: { page, per_page: PER_PAGE, search: q || undefined, sort_by: 'name' as const, sort_order: 'asc' as const } }
}

/**
 * The first 100 command sets by name (one request names the sets most profiles use), and the name of
 * any set by id: `ids` past those 100 are asked for one by one.
 */
export function useCommandSetOptions(ids: readonly string[] = []) {
  const q = useQuery({
    queryKey: ['tacacs-command-sets', 'options'],
    queryFn: async () => (await api.get('/api/v1/tacacs/command-sets', { query: { page: 1, per_page: 100, sort_by: 'name', sort_order: 'asc' } })).items,
    placeholderData: keepPreviousData,
  })
  const options = (q.data ?? []).map((s) => ({ value: s.id, label: s.name }))
  return { options, name: useNames(commandSetPicker, q.isSuccess ? ids : [], options) }
}

/** Moves item i of a list by `by` places (a keyboard-usable reorder: the order is what matching follows). */
export function moved<T>(list: readonly T[], i: number, by: number): T[] {
  const j = i + by
  if (j < 0 || j >= list.length) return [...list]
  const out = [...list]
  const [x] = out.splice(i, 1)
  out.splice(j, 0, x)
  return out
}
