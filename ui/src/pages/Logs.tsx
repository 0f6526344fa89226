/**
 * AAA logs: the five kinds (a tab each), filters (user, NAS, dates, the
 * kind's own), free-text search, sort by a column header, pages, an entry's
 * every field in a drawer, and the filtered list as an xlsx or csv file.
 * The kind and the search are in the URL (/logs?kind=…&search=…). A range
 * back from now (the last 15 minutes … 7 days, `?range=`) or custom dates, and
 * a live tail (log-tail.ts): new entries on top, marked, pausable.
 */
import { Badge, Button, Code, Drawer, Group, Select, Stack, Switch, Table, Tabs, Text, TextInput, Title, UnstyledButton } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { api, download } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import { LOG_KINDS, type LogEntry, type LogKind, type LogPage } from './log-kinds'
import { useLiveTail } from './log-tail'
import { ListFooter } from '../components/crud'

const PER_PAGE = 50
// The five kinds share this screen; their generated types differ only in the kind's columns, read here by name.
const getLogs = api.get as unknown as (path: string, o: { query: object }) => Promise<LogPage>
const getEntry = api.get as unknown as (path: string) => Promise<LogEntry>
/** The ranges back from now, in ms; `custom` is the date fields (empty: any time). */
const RANGES = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const
type Range = keyof typeof RANGES | 'custom'
const isRange = (v: string | null): v is Range => v === 'custom' || (v !== null && v in RANGES)
const COLOR: Record<string, string> = { success: 'green', permit: 'green', accept: 'green', failure: 'red', deny: 'red', reject: 'red' }

export function Logs() {
  const { t, language } = useI18n()
  const url = new URLSearchParams(location.search)
  const [kind, setKindState] = useState<LogKind>(() => LOG_KINDS.find((k) => k.path === url.get('kind')) ?? LOG_KINDS[0])
  const [search, setSearch] = useState(url.get('search') ?? '')
  const [f, setF] = useState({ username: url.get('username') ?? '', nas_ip: '', date_from: '', date_to: '' })
  const [enums, setEnums] = useState<Record<string, string | null>>({})
  const [sort, setSort] = useState<{ by: string; order: 'asc' | 'desc' }>({ by: 'timestamp', order: 'desc' })
  const [page, setPage] = useState(1)
  const [open, setOpen] = useState<string | null>(null)
  const [range, setRangeState] = useState<Range>(() => { const r = url.get('range'); return isRange(r) ? r : 'custom' })
  const [live, setLive] = useState(false)
  const [paused, setPaused] = useState(false)
  // One object per change, not per render: the debounce restarts whenever its value is a new object, and its
  // own update re-rendered the screen, so a fresh literal here re-rendered the whole table every 300 ms, forever.
  const typed = useMemo(() => ({ search, ...f }), [search, f])
  const [debounced] = useDebouncedValue(typed, 300)
  // The tab, the search and the user filter live in the URL: a link (a user's entries, from the users screen) or a reload keeps them.
  const keep = (k: LogKind, s: string, user: string) => {
    const q = new URLSearchParams({ kind: k.path })
    if (s) q.set('search', s)
    if (user) q.set('username', user)
    if (range !== 'custom') q.set('range', range)
    history.replaceState(null, '', `/logs?${q}`)
  }
  const setKind = (p: string | null) => {
    const k = LOG_KINDS.find((x) => x.path === p) ?? LOG_KINDS[0]
    setKindState(k)
    setEnums({})
    setSort({ by: 'timestamp', order: 'desc' })
    setPage(1)
    keep(k, search, f.username)
  }
  const setRange = (r: Range) => {
    setRangeState(r)
    setPage(1)
    const q = new URLSearchParams(location.search)
    if (r === 'custom') q.delete('range')
    else q.set('range', r)
    history.replaceState(null, '', `/logs?${q}`)
  }
  const custom = range === 'custom'
  const filters = {
    search: debounced.search || undefined, username: debounced.username || undefined, nas_ip: debounced.nas_ip || undefined,
    date_from: custom && debounced.date_from ? `${debounced.date_from}T00:00:00Z` : undefined, date_to: custom && debounced.date_to ? `${debounced.date_to}T23:59:59.999Z` : undefined,
    ...enums,
  }
  const query = { ...filters, sort_by: sort.by, sort_order: sort.order }
  // A range back from now is taken when the page is read (each refetch moves it on), not when the screen drew.
  const since = () => (custom ? {} : { date_from: new Date(Date.now() - RANGES[range]).toISOString() })
  const list = useQuery({
    queryKey: ['aaa-logs', kind.path, query, range, page],
    queryFn: () => getLogs(`/api/v1/aaa/logs/${kind.path}`, { query: { ...query, ...since(), page, per_page: PER_PAGE } }),
    placeholderData: keepPreviousData,
  })
  // The tail starts after the newest entry the list holds (sorted newest first), or now.
  const newest = () => {
    const items = sort.by === 'timestamp' && sort.order === 'desc' ? (list.data?.items ?? []) : []
    return { at: items[0]?.timestamp ?? new Date().toISOString(), ids: items.filter((e) => e.timestamp === items[0]?.timestamp).map((e) => e.id) }
  }
  const tail = useLiveTail(kind.path, filters, live, !paused, newest)
  const fresh = new Set(tail.rows.map((e) => e.id))
  const shown = [...tail.rows, ...(list.data?.items ?? []).filter((e) => !fresh.has(e.id))]
  const entry = useQuery({ queryKey: ['aaa-logs', kind.path, 'entry', open], queryFn: () => getEntry(`/api/v1/aaa/logs/${kind.path}/${open}`), enabled: !!open })
  const exp = useMutation({ mutationFn: (format: 'xlsx' | 'csv') => download(`/api/v1/aaa/logs/${kind.path}/export`, { ...query, ...since(), format }) })
  const err = list.error ?? exp.error ?? tail.error
  const setFilter = (k: keyof typeof f, v: string) => {
    setF((o) => ({ ...o, [k]: v }))
    setPage(1)
    if (k === 'username') keep(kind, search, v)
  }
  const header = (col: string, label: string) => {
    if (!kind.sortBy.includes(col)) return <Table.Th key={col}>{label}</Table.Th>
    const on = sort.by === col
    return (
      <Table.Th key={col} aria-sort={on ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <UnstyledButton fw={600} fz="sm" onClick={() => setSort({ by: col, order: on && sort.order === 'desc' ? 'asc' : 'desc' })}>{label} {on ? (sort.order === 'asc' ? '▲' : '▼') : ''}</UnstyledButton>
      </Table.Th>
    )
  }
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
        <TextInput label={t.common.search} name="search" type="search" placeholder={t.logs.searchPlaceholder} value={search} w={260} error={fieldError(err, 'search')}
          onChange={(e) => { setSearch(e.currentTarget.value); setPage(1); keep(kind, e.currentTarget.value, f.username) }} />
        <TextInput label={t.logs.columns.username} name="username" value={f.username} onChange={(e) => setFilter('username', e.currentTarget.value)} w={150} error={fieldError(err, 'username')} />
        <TextInput label={t.logs.columns.nas_ip} name="nas_ip" value={f.nas_ip} onChange={(e) => setFilter('nas_ip', e.currentTarget.value)} w={150} error={fieldError(err, 'nas_ip')} />
        <Select label={t.dash.range} name="range" allowDeselect={false} w={190} value={range} onChange={(v) => setRange(isRange(v) ? v : 'custom')}
          data={[...Object.keys(RANGES), 'custom'].map((r) => ({ value: r, label: t.dash.ranges[r as Range] }))} />
        {custom && <>
          <TextInput label={t.logs.from} name="date_from" type="date" value={f.date_from} onChange={(e) => setFilter('date_from', e.currentTarget.value)} w={150} error={fieldError(err, 'date_from')} />
          <TextInput label={t.logs.to} name="date_to" type="date" value={f.date_to} onChange={(e) => setFilter('date_to', e.currentTarget.value)} w={150} error={fieldError(err, 'date_to')} />
        </>}
        {Object.entries(kind.enums).map(([k, values]) => (
          <Select key={k} label={label(k)} clearable data={values} value={enums[k] ?? null} onChange={(v) => { setEnums((o) => ({ ...o, [k]: v })); setPage(1) }} w={140} />
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
      {list.data && shown.length === 0 && <Text c="dimmed">{t.logs.empty}</Text>}
      <ListFooter data={list.data} page={page} onPage={setPage} total={list.data?.total_by_filter_capped ? t.logs.atLeast(list.data.total_by_filter) : undefined} testId="logs-total" />
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
