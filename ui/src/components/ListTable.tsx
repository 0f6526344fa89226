/**
 * The pieces every list screen's table is built from, around its state in the address
 * (list-state.ts): a sortable column header (a button, its state in `aria-sort`), the row
 * checkboxes with the page's select-all (each labelled with what it selects; the select-all
 * is mixed while only some are), and the footer with the count, the page size and the pager.
 * The actions on the selected rows are BulkBar.tsx.
 */
import { Checkbox, Group, NativeSelect, Table, Text, UnstyledButton } from '@mantine/core'
import { useEffect, useId, useState, type ReactNode } from 'react'
import { useI18n } from '../i18n'
import { Pager } from './crud'
import { PAGE_SIZES, type ListState } from './list-state'

/** A column the list's route can sort by: the header is a button; `aria-sort` says how the list is sorted. */
export function SortTh<S extends string>({ list, sort, children }: { list: ListState<S, string>; sort: S; children: ReactNode }) {
  const active = list.sortBy === sort
  const state = !active ? 'none' : list.sortOrder === 'asc' ? 'ascending' : 'descending'
  return (
    <Table.Th aria-sort={state}>
      <UnstyledButton onClick={() => list.sortOn(sort)} data-sort={sort} fz="sm" fw={700} style={{ whiteSpace: 'nowrap' }}>
        {children}
        <Text span aria-hidden c={active ? undefined : 'dimmed'} ml={4} fz="xs">{!active ? '↕' : list.sortOrder === 'asc' ? '▲' : '▼'}</Text>
      </UnstyledButton>
    </Table.Th>
  )
}

/** The rows chosen on the page shown (by id; the row itself kept, for the actions to name it). */
export interface Selection<T extends { id: string }> {
  rows: T[]
  has(id: string): boolean
  toggle(row: T): void
  /** Every row of the page, or none when all are chosen. */
  toggleAll(): void
  set(rows: T[]): void
  all: boolean
  some: boolean
}

/** The selection over `items`, emptied when `key` (what the list shows: page, sort, filters) changes. */
export function useSelection<T extends { id: string }>(items: T[] | undefined, key: string): Selection<T> {
  const [rows, setRows] = useState<T[]>([])
  useEffect(() => setRows([]), [key])
  const page = items ?? []
  // Only rows still on the page count (a row deleted elsewhere, or by a bulk action, drops out).
  const shown = rows.filter((r) => page.some((x) => x.id === r.id))
  const all = page.length > 0 && shown.length === page.length
  return {
    rows: shown,
    has: (id) => shown.some((r) => r.id === id),
    toggle: (row) => setRows((o) => (o.some((r) => r.id === row.id) ? o.filter((r) => r.id !== row.id) : [...o, row])),
    toggleAll: () => setRows(all ? [] : page),
    set: setRows,
    all,
    some: shown.length > 0,
  }
}

/** The select-all header cell (for the page shown). */
export function SelectAllTh<T extends { id: string }>({ sel }: { sel: Selection<T> }) {
  const { t } = useI18n()
  return (
    <Table.Th w={36}>
      <Checkbox aria-label={t.table.selectAll} checked={sel.all} indeterminate={sel.some && !sel.all} onChange={sel.toggleAll} data-testid="select-all" />
    </Table.Th>
  )
}

/** A row's checkbox, labelled with the row's name. */
export function SelectTd<T extends { id: string }>({ sel, row, name }: { sel: Selection<T>; row: T; name: string }) {
  const { t } = useI18n()
  return (
    <Table.Td>
      <Checkbox aria-label={t.table.select(name)} checked={sel.has(row.id)} onChange={() => sel.toggle(row)} />
    </Table.Td>
  )
}

/**
 * Under the table: how many rows match (or `total`, the screen's own words, such as the logs'
 * "at least N" when the server stopped counting), the page size, and the pager past one page.
 */
export function TableFooter<S extends string, F extends string>({ list, data, testId, total }: { list: ListState<S, F>; data: { total_by_filter: number; pages: number } | undefined; testId?: string; total?: string }) {
  const { t } = useI18n()
  const sizeId = useId()
  if (!data) return null
  return (
    <Group justify="space-between">
      <Group gap="md">
        <Text size="sm" c="dimmed" data-testid={testId}>{total ?? t.common.total(data.total_by_filter)}</Text>
        {/* A visible label, tied to the select (its accessible name is the words shown). */}
        <Group gap={6} wrap="nowrap">
          <Text component="label" htmlFor={sizeId} size="sm" c="dimmed">{t.table.perPage}</Text>
          <NativeSelect id={sizeId} size="xs" w={80} data={PAGE_SIZES.map(String)} value={String(list.perPage)} onChange={(e) => list.setPerPage(Number(e.currentTarget.value))} data-testid="per-page" />
        </Group>
      </Group>
      <Pager pages={data.pages} page={list.page} onPage={list.setPage} />
    </Group>
  )
}
