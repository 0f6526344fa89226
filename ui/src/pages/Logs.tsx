/**
 * AAA logs: the five kinds (a tab each), filters (user, NAS, dates, the
 * kind's own), free-text search, sort by a column header, pages, an entry's
 * every field in a drawer, and the filtered list as an xlsx or csv file.
 * The kind and the search are in the URL (/logs?kind=…&search=…).
 */
import { Badge, Button, Code, Drawer, Group, Select, Stack, Table, Tabs, Text, TextInput, Title, UnstyledButton } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { api, download } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import { LOG_KINDS, type LogEntry, type LogKind, type LogPage } from './log-kinds'
import { ListFooter } from '../components/crud'

const PER_PAGE = 50
// The five kinds share this screen; their generated types differ only in the kind's columns, read here by name.
const getLogs = api.get as unknown as (path: string, o: { query: object }) => Promise<LogPage>
const getEntry = api.get as unknown as (path: string) => Promise<LogEntry>
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
  // One object per change, not per render: the debounce restarts whenever its value is a new object, and its
  // own update re-rendered the screen, so a fresh literal here re-rendered the whole table every 300 ms, forever.
  const typed = useMemo(() => ({ search, ...f }), [search, f])
  const [debounced] = useDebouncedValue(typed, 300)
  // The tab, the search and the user filter live in the URL: a link (a user's entries, from the users screen) or a reload keeps them.
  const keep = (k: LogKind, s: string, user: string) => {
    const q = new URLSearchParams({ kind: k.path })
    if (s) q.set('search', s)
    if (user) q.set('username', user)
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
  const query = {
    search: debounced.search || undefined, username: debounced.username || undefined, nas_ip: debounced.nas_ip || undefined,
    date_from: debounced.date_from ? `${debounced.date_from}T00:00:00Z` : undefined, date_to: debounced.date_to ? `${debounced.date_to}T23:59:59.999Z` : undefined,
    ...enums, sort_by: sort.by, sort_order: sort.order,
  }
  const list = useQuery({
    queryKey: ['aaa-logs', kind.path, query, page],
    queryFn: () => getLogs(`/api/v1/aaa/logs/${kind.path}`, { query: { ...query, page, per_page: PER_PAGE } }),
    placeholderData: keepPreviousData,
  })
  const entry = useQuery({ queryKey: ['aaa-logs', kind.path, 'entry', open], queryFn: () => getEntry(`/api/v1/aaa/logs/${kind.path}/${open}`), enabled: !!open })
  const exp = useMutation({ mutationFn: (format: 'xlsx' | 'csv') => download(`/api/v1/aaa/logs/${kind.path}/export`, { ...query, format }) })
  const err = list.error ?? exp.error
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
        <TextInput label={t.logs.from} name="date_from" type="date" value={f.date_from} onChange={(e) => setFilter('date_from', e.currentTarget.value)} w={150} error={fieldError(err, 'date_from')} />
        <TextInput label={t.logs.to} name="date_to" type="date" value={f.date_to} onChange={(e) => setFilter('date_to', e.currentTarget.value)} w={150} error={fieldError(err, 'date_to')} />
        {Object.entries(kind.enums).map(([k, values]) => (
          <Select key={k} label={label(k)} clearable data={values} value={enums[k] ?? null} onChange={(v) => { setEnums((o) => ({ ...o, [k]: v })); setPage(1) }} w={140} />
        ))}
      </Group>
      <ErrorAlert error={err} fields={['search', 'username', 'nas_ip', 'date_from', 'date_to']} />
      {exp.data && <Text size="sm" c="green" role="status" data-testid="export-result">{t.logs.exported(exp.data.name, exp.data.rows)}</Text>}
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover aria-label={t.logs.kinds[kind.path]} data-testid="logs-table">
          <Table.Thead>
            <Table.Tr>{[header('timestamp', label('timestamp')), header('username', label('username')), header('nas_ip', label('nas_ip')), header('device_name', label('device_name')), ...kind.columns.map((c) => header(c, label(c)))]}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((e) => (
              <Table.Tr key={e.id} onClick={() => setOpen(e.id)} style={{ cursor: 'pointer' }} data-username={String(e.username ?? '')}>
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
      {list.data && list.data.items.length === 0 && <Text c="dimmed">{t.logs.empty}</Text>}
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
