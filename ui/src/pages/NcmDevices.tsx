/**
 * Configuration history, the list: the tracked devices with their last fetch and its outcome, each
 * opening its history; and a search over every device's latest configuration ("which devices still
 * have `ip http server`?"), by a contained text or a whole line (so `no ip http server` is not a hit).
 * Only masked text is searched: a secret cannot be guessed from here.
 */
import { Badge, Button, Group, SegmentedControl, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { useAuth } from '../auth'
import { Pager } from '../components/crud'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { when } from './format'
import { fetchNow, OTHER_COLOR, SEARCH_MIN, STATE_COLOR, useSearch, useTrackedDevices } from './ncm-data'

export function NcmDevices() {
  const { t, language } = useI18n()
  const n = t.ncm
  const auth = useAuth()
  const [page, setPage] = useState(1)
  const [text, setText] = useState(() => new URLSearchParams(location.search).get('q') ?? '')
  const [match, setMatch] = useState<'contains' | 'line'>('line')
  const [q] = useDebouncedValue(text.trim(), 300)
  const list = useTrackedDevices({ page })
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
      <ErrorAlert error={search.error ?? list.error ?? fetch.error} />
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
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label={n.devices} data-testid="ncm-devices">
          <Table.Thead>
            <Table.Tr><Table.Th>{n.device}</Table.Th><Table.Th>{n.host}</Table.Th><Table.Th>{n.lastFetch}</Table.Th><Table.Th>{n.status}</Table.Th>{canFetch && <Table.Th />}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((d) => (
              <Table.Tr key={d.device_id} data-device={d.name}>
                <Table.Td fw={500}><Link href={`/ncm/devices/${d.device_id}`}>{d.name}</Link></Table.Td>
                <Table.Td ff="monospace">{d.host ? `${d.host}:${d.port}` : t.common.none}</Table.Td>
                <Table.Td>{d.latest_version_id ? when(d.last_fetch_at, language) : n.noVersion}</Table.Td>
                <Table.Td>
                  {d.last_status ? <Badge variant="filled" color={STATE_COLOR[d.last_status] ?? OTHER_COLOR}>{n.statuses[d.last_status] ?? d.last_status}</Badge> : t.common.none}
                  {d.last_error && <Text size="xs" c="dimmed">{d.last_error}</Text>}
                </Table.Td>
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
      {list.data && list.data.items.length === 0 && <Text c="dimmed">{n.emptyDevices}</Text>}
      {list.data && <Pager pages={list.data.pages} page={page} onPage={setPage} />}
    </Stack>
  )
}
