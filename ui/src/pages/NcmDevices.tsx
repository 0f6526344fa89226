/**
 * Configuration history, the list: the tracked devices with their last fetch and its outcome, each
 * opening its history; and a search over every device's latest configuration ("which devices still
 * have `ip http server`?"), by a contained text or a whole line (so `no ip http server` is not a hit).
 * Only masked text is searched: a secret cannot be guessed from here. The list sorts by the last and
 * the next fetch (the route's two sorts), filters by the last fetch's outcome, 20 a page (or 50, 100),
 * all of it in the address (list-state.ts); "Fetch now" also for the selected devices at once (BulkBar).
 */
import { Badge, Button, Group, SegmentedControl, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useAuth } from '../auth'
import { BulkBar } from '../components/BulkBar'
import { ErrorAlert } from '../components/errors'
import { useListState } from '../components/list-state'
import { SelectAllTh, SelectTd, SortTh, TableFooter, useSelection } from '../components/ListTable'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { when } from './format'
import { fetchNow, OTHER_COLOR, SEARCH_MIN, STATE_COLOR, useSearch, useTrackedDevices } from './ncm-data'

/** The columns GET /ncm/devices sorts by (its `sort_by` allow-list). */
const SORTS = ['next_due_at', 'last_fetch_at'] as const

export function NcmDevices() {
  const { t, language } = useI18n()
  const n = t.ncm
  const auth = useAuth()
  const qc = useQueryClient()
  // Page, size, sort and the last fetch's outcome in the address (the route's names).
  const list = useListState({ sorts: SORTS, sort: 'next_due_at', order: 'asc', filters: ['last_status'] })
  const [text, setText] = useState(() => new URLSearchParams(location.search).get('q') ?? '')
  const [match, setMatch] = useState<'contains' | 'line'>('line')
  const [q] = useDebouncedValue(text.trim(), 300)
  const tracked = useTrackedDevices({ ...list.query, last_status: list.filters.last_status ?? undefined })
  // The selection needs an `id`: a tracked device's is its device's.
  const rows = tracked.data?.items.map((d) => ({ ...d, id: d.device_id }))
  const sel = useSelection(rows, list.key)
  const search = useSearch(q, match)
  const [notice, setNotice] = useState<string | null>(null)
  const fetch = useMutation({ mutationFn: fetchNow, onSuccess: () => setNotice(n.fetchAsked) })
  const canFetch = auth.can('ncm.manage')
  return (
    <Stack>
      <Title order={1} size="h2">{n.devices}</Title>
      <Text size="sm" c="dimmed">{n.devicesHint}</Text>
      <Group align="flex-end">
        <TextInput label={n.search} placeholder={n.searchPlaceholder} type="search" value={text} onChange={(e) => setText(e.currentTarget.value)} w={360} maw="100%" ff="monospace" data-testid="ncm-search" />
        <SegmentedControl aria-label={n.matchMode} value={match} onChange={(v) => setMatch(v as 'contains' | 'line')} data={(['line', 'contains'] as const).map((m) => ({ value: m, label: n.matchModes[m] }))} />
      </Group>
      <Select label={t.lists.outcomeFilter} placeholder={t.lists.anyOutcome} clearable w={220} value={list.filters.last_status} onChange={(v) => list.setFilter('last_status', v)}
        data={Object.entries(n.statuses).map(([value, label]) => ({ value, label }))} />
      <ErrorAlert error={search.error ?? tracked.error ?? fetch.error} />
      {notice && <Text size="sm" role="status">{notice}</Text>}
      {q.length >= SEARCH_MIN && search.data && (
        <Stack gap="xs" data-testid="ncm-search-results">
          <Text size="sm" fw={500}>{n.searchResults(search.data.total)}</Text>
          <Table.ScrollContainer minWidth={640}>
            <Table striped aria-label={n.search}>
              <Table.Thead>
                <Table.Tr><Table.Th>{n.device}</Table.Th><Table.Th>{n.matchCount}</Table.Th><Table.Th>{n.matches}</Table.Th></Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {search.data.items.map((h) => (
                  <Table.Tr key={h.device_id} data-hit={h.device_name ?? h.device_id}>
                    <Table.Td fw={500}><Link href={`/ncm/devices/${h.device_id}`}>{h.device_name ?? h.device_id}</Link></Table.Td>
                    <Table.Td>{h.match_count}</Table.Td>
                    <Table.Td ff="monospace" fz="sm">
                      {h.lines.map((l) => (
                        <div key={l.n}><Text span c="dimmed" fz="xs">{l.n}:</Text> {l.line}</div>
                      ))}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Stack>
      )}
      {/* "Fetch now" for each selected device: its own route, a request to its collector (changes nothing but the history). */}
      <BulkBar sel={sel} name={(d) => d.name} onDone={() => qc.invalidateQueries({ queryKey: ['ncm', 'devices'] })} actions={canFetch ? [{ label: n.fetchNow, run: (d) => fetchNow(d.device_id) }] : []} />
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label={n.devices} data-testid="ncm-devices">
          <Table.Thead>
            <Table.Tr>
              {canFetch && <SelectAllTh sel={sel} />}
              <Table.Th>{n.device}</Table.Th><Table.Th>{n.host}</Table.Th><SortTh list={list} sort="last_fetch_at">{n.lastFetch}</SortTh><Table.Th>{n.status}</Table.Th>
              <SortTh list={list} sort="next_due_at">{t.lists.nextFetch}</SortTh>{canFetch && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows?.map((d) => (
              <Table.Tr key={d.device_id} data-device={d.name}>
                {canFetch && <SelectTd sel={sel} row={d} name={d.name} />}
                <Table.Td fw={500}><Link href={`/ncm/devices/${d.device_id}`}>{d.name}</Link></Table.Td>
                <Table.Td ff="monospace">{d.host ? `${d.host}:${d.port}` : t.common.none}</Table.Td>
                <Table.Td>{d.latest_version_id ? when(d.last_fetch_at, language) : n.noVersion}</Table.Td>
                <Table.Td>
                  {d.last_status ? <Badge variant="filled" color={STATE_COLOR[d.last_status] ?? OTHER_COLOR}>{n.statuses[d.last_status] ?? d.last_status}</Badge> : t.common.none}
                  {d.last_error && <Text size="xs" c="dimmed">{d.last_error}</Text>}
                </Table.Td>
                <Table.Td>{d.next_due_at ? when(d.next_due_at, language) : t.common.none}</Table.Td>
                {canFetch && (
                  <Table.Td>
                    <Button size="compact-sm" variant="subtle" onClick={() => fetch.mutate(d.device_id)} aria-label={`${n.fetchNow} ${d.name}`}>{n.fetchNow}</Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {tracked.data && tracked.data.items.length === 0 && <Text c="dimmed">{list.filters.last_status ? t.common.nothingFound : n.emptyDevices}</Text>}
      <TableFooter list={list} data={tracked.data} testId="ncm-devices-total" />
    </Stack>
  )
}
