/**
 * AAA logs: the five kinds (a tab each), filters (user, NAS, dates, the
 * kind's own), free-text search, sort by a column header (the kind's route's
 * sorts), pages of 50 (or 20, 100), an entry's every field in a drawer, and the
 * filtered list as an xlsx or csv file. The kind, page, size, sort, search and
 * filters are in the address under the routes' names (list-state.ts;
 * /logs?kind=…&username=…&status=failure). A range back from now (the last 15
 * minutes … 7 days, `?range=`) or custom dates, and a live tail (log-tail.ts):
 * new entries on top, marked, pausable. The routes page by number (their count
 * may stop early: "at least N"); the tail is the keyset walk, by time.
 */
import { Badge, Button, Code, Drawer, Group, Select, Stack, Switch, Table, Tabs, Text, TextInput, Title, UnstyledButton } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api, download } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useListState, useTypedFilters } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { useI18n } from '../i18n'
import { useQueryString } from '../router'
import { when } from './format'
import { LOG_KINDS, type LogEntry, type LogPage } from './log-kinds'
import { useLiveTail } from './log-tail'

// The five kinds share this screen; their generated types differ only in the kind's columns, read here by name.
const getLogs = api.get as unknown as (path: string, o: { query: object }) => Promise<LogPage>
const getEntry = api.get as unknown as (path: string) => Promise<LogEntry>
/** The ranges back from now, in ms; `custom` is the date fields (empty: any time). */
const RANGES = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const
type Range = keyof typeof RANGES | 'custom'
const isRange = (v: string | null): v is Range => v === 'custom' || (v !== null && Object.hasOwn(RANGES, v))
const COLOR: Record<string, string> = { success: 'green', permit: 'green', accept: 'green', failure: 'red', deny: 'red', reject: 'red' }
/** Every kind's enum filters (a kind reads its own). */
const ENUMS = ['status', 'action', 'auth_type', 'acct_status_type'] as const
/** What the address keeps beside the page, size, sort and search: the kind, the typed filters, the range, the enums. */
const FILTERS = ['kind', 'username', 'nas_ip', 'date_from', 'date_to', 'range', ...ENUMS] as const

export function Logs() {
  const { t, language } = useI18n()
  const wanted = new URLSearchParams(useQueryString()).get('kind')
  const kind = LOG_KINDS.find((k) => k.path === wanted) ?? LOG_KINDS[0]
  // Newest first, 50 a page (the routes' defaults); the kind's own sorts; all of it in the address.
  const list = useListState({ sorts: kind.sortBy, sort: 'timestamp', order: 'desc', perPage: 50, filters: FILTERS })
  const typed = useTypedFilters({ username: list.filters.username, nas_ip: list.filters.nas_ip, date_from: list.filters.date_from, date_to: list.filters.date_to })
  const [open, setOpen] = useState<string | null>(null)
  const range: Range = isRange(list.filters.range) ? list.filters.range : 'custom'
  const [live, setLive] = useState(false)
  const [paused, setPaused] = useState(false)
  // Another kind: its own columns, sorts and enums, from its first page.
  const setKind = (p: string | null) => {
    const k = LOG_KINDS.find((x) => x.path === p) ?? LOG_KINDS[0]
    list.setParams({ kind: k === LOG_KINDS[0] ? null : k.path, sort_by: null, sort_order: null, ...Object.fromEntries(ENUMS.map((e) => [e, null])) })
  }
  const custom = range === 'custom'
  const enums = Object.fromEntries(Object.keys(kind.enums).map((e) => [e, list.filters[e as (typeof ENUMS)[number]] ?? undefined]))
  const filters = {
    search: list.q || undefined, username: typed.username || undefined, nas_ip: typed.nas_ip || undefined,
    date_from: custom && typed.date_from ? `${typed.date_from}T00:00:00Z` : undefined, date_to: custom && typed.date_to ? `${typed.date_to}T23:59:59.999Z` : undefined,
    ...enums,
  }
  const query = { ...filters, sort_by: list.sortBy, sort_order: list.sortOrder }
  // A range back from now is taken when the page is read (each refetch moves it on), not when the screen drew.
  const since = () => (custom ? {} : { date_from: new Date(Date.now() - RANGES[range]).toISOString() })
  const logs = useQuery({
    queryKey: ['aaa-logs', kind.path, query, range, list.page, list.perPage],
    queryFn: () => getLogs(`/api/v1/aaa/logs/${kind.path}`, { query: { ...query, ...since(), page: list.page, per_page: list.perPage } }),
    placeholderData: keepPreviousData,
  })
  // The tail starts after the newest entry the list holds (sorted newest first), or now.
  const newest = () => {
    const items = list.sortBy === 'timestamp' && list.sortOrder === 'desc' ? (logs.data?.items ?? []) : []
    return { at: items[0]?.timestamp ?? new Date().toISOString(), ids: items.filter((e) => e.timestamp === items[0]?.timestamp).map((e) => e.id) }
  }
  const tail = useLiveTail(kind.path, filters, live, !paused, newest)
  const fresh = new Set(tail.rows.map((e) => e.id))
  const shown = [...tail.rows, ...(logs.data?.items ?? []).filter((e) => !fresh.has(e.id))]
  const entry = useQuery({ queryKey: ['aaa-logs', kind.path, 'entry', open], queryFn: () => getEntry(`/api/v1/aaa/logs/${kind.path}/${open}`), enabled: !!open })
  const exp = useMutation({ mutationFn: (format: 'xlsx' | 'csv') => download(`/api/v1/aaa/logs/${kind.path}/export`, { ...query, ...since(), format }) })
  const err = logs.error ?? exp.error ?? tail.error
  const text = (k: 'username' | 'nas_ip' | 'date_from' | 'date_to') => ({ value: list.filters[k] ?? '', onChange: (e: { currentTarget: { value: string } }) => list.setFilter(k, e.currentTarget.value), error: fieldError(err, k) })
  const header = (col: string, label: string) =>
    kind.sortBy.includes(col) ? <SortTh key={col} list={list} sort={col}>{label}</SortTh> : <Table.Th key={col}>{label}</Table.Th>
  const cell = (v: unknown) => (v === null || v === undefined || v === '' ? t.common.none : Array.isArray(v) ? v.join(' ') : String(v))
  const label = (c: string) => t.logs.columns[c as keyof typeof t.logs.columns] ?? c

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">{t.logs.title}</Title>
        <Group gap="xs">
          <Button variant="default" onClick={() => exp.mutate('xlsx')} loading={exp.isPending && exp.variables === 'xlsx'}>{t.logs.export('xlsx')}</Button>
          <Button variant="default" onClick={() => exp.mutate('csv')} loading={exp.isPending && exp.variables === 'csv'}>{t.logs.export('csv')}</Button>
        </Group>
      </Group>
      <Tabs value={kind.path} onChange={setKind} keepMounted={false}>
        <Tabs.List>
          {LOG_KINDS.map((k) => <Tabs.Tab key={k.path} value={k.path}>{t.logs.kinds[k.path]}</Tabs.Tab>)}
        </Tabs.List>
      </Tabs>
      <Group align="flex-end" gap="sm">
        <TextInput label={t.common.search} name="search" type="search" placeholder={t.logs.searchPlaceholder} value={list.search} w={260} error={fieldError(err, 'search')}
          onChange={(e) => list.setSearch(e.currentTarget.value)} />
        <TextInput label={t.logs.columns.username} name="username" {...text('username')} w={150} />
        <TextInput label={t.logs.columns.nas_ip} name="nas_ip" {...text('nas_ip')} w={150} />
        <Select label={t.dash.range} name="range" allowDeselect={false} w={190} value={range} onChange={(v) => list.setFilter('range', isRange(v) && v !== 'custom' ? v : null)}
          data={[...Object.keys(RANGES), 'custom'].map((r) => ({ value: r, label: t.dash.ranges[r as Range] }))} />
        {custom && <>
          <TextInput label={t.logs.from} name="date_from" type="date" {...text('date_from')} w={150} />
          <TextInput label={t.logs.to} name="date_to" type="date" {...text('date_to')} w={150} />
        </>}
        {Object.entries(kind.enums).map(([k, values]) => (
          <Select key={k} label={label(k)} clearable data={values} value={enums[k] ?? null} onChange={(v) => list.setFilter(k as (typeof ENUMS)[number], v)} w={140} />
        ))}
      </Group>
      <Group gap="sm">
        <Switch label={t.dash.live} checked={live} onChange={(e) => { setLive(e.currentTarget.checked); setPaused(false) }} data-testid="live-tail" />
        {live && <Button size="xs" variant="default" onClick={() => setPaused((p) => !p)}>{paused ? t.dash.resume : t.dash.pause}</Button>}
        {live && <Text size="sm" c="dimmed" role="status">{paused ? t.dash.paused : tail.rows.length ? t.dash.newRows(tail.rows.length) : t.dash.liveHint}</Text>}
      </Group>
      <ErrorAlert error={err} fields={['search', 'username', 'nas_ip', 'date_from', 'date_to']} />
      {exp.data && <Text size="sm" c="green" role="status" data-testid="export-result">{t.logs.exported(exp.data.name, exp.data.rows)}</Text>}
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover aria-label={t.logs.kinds[kind.path]} data-testid="logs-table">
          <Table.Thead>
            <Table.Tr>{[header('timestamp', label('timestamp')), header('username', label('username')), header('nas_ip', label('nas_ip')), header('device_name', label('device_name')), ...kind.columns.map((c) => header(c, label(c)))]}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((e) => (
              <Table.Tr key={e.id} onClick={() => setOpen(e.id)} data-username={String(e.username ?? '')} data-new={fresh.has(e.id) || undefined}
                style={{ cursor: 'pointer', ...(fresh.has(e.id) ? { backgroundColor: 'var(--mantine-color-yellow-light)', transition: 'background-color 2s' } : {}) }}>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <UnstyledButton fz="sm" onClick={() => setOpen(e.id)} aria-label={t.logs.details(String(e.username ?? ''), when(e.timestamp, language))}>{when(e.timestamp, language)}</UnstyledButton>
                </Table.Td>
                <Table.Td>{cell(e.username)}</Table.Td>
                <Table.Td ff="monospace">{cell(e.nas_ip)}</Table.Td>
                <Table.Td>{cell(e.device_name)}</Table.Td>
                {kind.columns.map((c) => (
                  <Table.Td key={c}>{COLOR[String(e[c])] ? <Badge size="sm" color={COLOR[String(e[c])]}>{String(e[c])}</Badge> : cell(e[c])}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {logs.data && shown.length === 0 && <Text c="dimmed">{t.logs.empty}</Text>}
      <TableFooter list={list} data={logs.data} total={logs.data?.total_by_filter_capped ? t.logs.atLeast(logs.data.total_by_filter) : undefined} testId="logs-total" />
      <Drawer opened={!!open} onClose={() => setOpen(null)} position="right" size="lg" title={t.logs.entry}>
        <ErrorAlert error={entry.error} />
        {entry.data && (
          <Table data-testid="log-entry">
            <Table.Tbody>
              {Object.entries(entry.data).map(([k, v]) => (
                <Table.Tr key={k}><Table.Th w={180}>{label(k)}</Table.Th><Table.Td>{typeof v === 'object' && v !== null ? <Code block>{JSON.stringify(v, null, 2)}</Code> : cell(v)}</Table.Td></Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Drawer>
    </Stack>
  )
}
