/**
 * Pickers over lists that grow without bound (100,000 users, thousands of
 * devices, directory groups): the browser never holds the whole list. What is
 * typed goes to the server as the list's `search`, and the first page of
 * matches by name is offered. A value already chosen keeps its name even when
 * the current page lacks it (an existing rule's user past the first page): the
 * caller passes the name it knows, or the picker asks for it once by id.
 */
import { MultiSelect, Select, type ComboboxItem, type OptionsFilter, type MultiSelectProps, type SelectProps } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query'
import { useRef, useState } from 'react'
import { useI18n } from '../i18n'

export type Option = ComboboxItem & { value: string; label: string }

/** A list the server searches: one page of matches for a text, and one entry by id. */
export interface PickerSource {
  /** The query-cache key of the resource (['users']…): a change that invalidates it refreshes the pickers too. */
  key: readonly string[]
  search(text: string): Promise<Option[]>
  byId(id: string): Promise<Option>
}

// The server filters; Mantine's own filter would hide matches on fields the label lacks (a user's e-mail).
const asFound: OptionsFilter = ({ options }) => options

/** The names of `ids`: those `known` gives, each other one asked for once by id (an unknown id stays as it is). */
export function useNames(source: PickerSource, ids: readonly string[], known: readonly Option[], enabled = true): (id: string) => string {
  const names = new Map(known.map((o) => [o.value, o.label]))
  const named = useQueries({ queries: ids.filter((id) => !names.has(id)).map((id) => ({ queryKey: [...source.key, 'picker', 'id', id], queryFn: () => source.byId(id), enabled, staleTime: 60_000, retry: false })) })
  for (const q of named) if (q.data) names.set(q.data.value, q.data.label)
  return (id) => names.get(id) ?? id
}

function usePickerData(source: PickerSource, values: string[], known: Option[], typed: string, enabled: boolean) {
  // Every name a search has shown: a value chosen from an earlier page keeps its name without a lookup.
  const seen = useRef(new Map<string, string>())
  for (const o of known) seen.current.set(o.value, o.label)
  // A Select shows the chosen option's name in its input: that name is not a search (as with Mantine's own filter).
  const text = values.length === 1 && seen.current.get(values[0]) === typed ? '' : typed.trim()
  const [debounced] = useDebouncedValue(text, 200)
  const found = useQuery({ queryKey: [...source.key, 'picker', debounced], queryFn: () => source.search(debounced), placeholderData: keepPreviousData, enabled, staleTime: 30_000 })
  for (const o of found.data ?? []) seen.current.set(o.value, o.label)
  const name = useNames(source, values, [...seen.current].map(([value, label]) => ({ value, label })), enabled)
  const page = found.data ?? []
  const onPage = new Set(page.map((o) => o.value))
  const chosen = values.filter((v) => !onPage.has(v)).map((v) => ({ value: v, label: name(v) }))
  return { data: [...chosen, ...page], fetching: found.isFetching }
}

type Common = { source: PickerSource; enabled?: boolean }
type Managed = 'data' | 'searchable' | 'searchValue' | 'onSearchChange' | 'filter' | 'value' | 'onChange' | 'nothingFoundMessage'

/**
 * One value from a server-searched list. `selectedLabel`: the chosen value's name, when the caller has
 * it; `extra`: choices that are not in the list (a filter's "no group"), always offered first.
 */
export function SearchSelect({ source, enabled = true, value, onChange, selectedLabel, extra = [], ...rest }: Omit<SelectProps, Managed> & Common & { value: string | null; onChange(v: string | null): void; selectedLabel?: string | null; extra?: Option[] }) {
  const { t } = useI18n()
  const [typed, setTyped] = useState('')
  const fixed = extra.find((o) => o.value === value)
  const known = value && selectedLabel ? [{ value, label: selectedLabel }] : []
  const { data, fetching } = usePickerData(source, value && !fixed ? [value] : [], known, fixed?.label === typed ? '' : typed, enabled)
  return (
    <Select {...rest} searchable data={[...extra, ...data]} filter={asFound} value={value} onChange={(v) => onChange(v)} searchValue={typed} onSearchChange={setTyped}
      nothingFoundMessage={fetching ? t.common.loading : t.common.nothingFound} />
  )
}

/** Several values from a server-searched list; `known`: names the caller already has. */
export function SearchMultiSelect({ source, enabled = true, value, onChange, known = [], ...rest }: Omit<MultiSelectProps, Managed> & Common & { value: string[]; onChange(v: string[]): void; known?: Option[] }) {
  const { t } = useI18n()
  const [typed, setTyped] = useState('')
  const { data, fetching } = usePickerData(source, value, known, typed, enabled)
  return (
    <MultiSelect {...rest} searchable data={data} filter={asFound} value={value} onChange={onChange} searchValue={typed} onSearchChange={setTyped}
      nothingFoundMessage={fetching ? t.common.loading : t.common.nothingFound} />
  )
}
