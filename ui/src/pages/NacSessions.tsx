/**
 * NAC sessions (what RADIUS accounting says is or was on the network): the
 * list, newest first, with filters (state live / stale / ended, MAC,
 * username, NAS), the filtered list exported as xlsx or csv, and, with
 * `nac.coa.send`, a Change of Authorization for a session's endpoint
 * (re-authenticate, disconnect, bounce the port) whose outcome (the NAS's ACK
 * or NAK with its Error-Cause, a timeout, a refusal) shows above the list.
 * The selected sessions get one CoA each at once (BulkBar), with one summary.
 * Sort, page, filters in the address. With `nac.read`, a second tab: the CoA
 * history (CoaHistory.tsx; `?tab=coa`).
 */
import { Alert, Badge, Button, Group, Loader, Menu, SegmentedControl, Stack, Table, Tabs, Text, TextInput, Title } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query'
import { api, ApiError, download } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import type { NacSession } from './nac-data'
import { BulkBar, type BulkAction } from '../components/BulkBar'
import { useListState } from '../components/list-state'
import { SelectAllTh, SelectTd, SortTh, TableFooter, useSelection } from '../components/ListTable'
import { navigate } from '../router'
import { CoaHistory } from './CoaHistory'
import { useConfirm } from '../components/Confirm'

type Action = 'reauthenticate' | 'disconnect' | 'bounce-port'
const STATE_COLOR = { live: 'green', stale: 'yellow', ended: 'gray' } as const
/** The columns GET /nac/sessions sorts by (its `sort_by` allow-list). */
const SORTS = ['mac', 'username', 'nas_ip', 'started_at', 'last_update_at'] as const
type Session = NacSession
/** A CoA goes to a session's endpoint (by its MAC): an ended session, or one without a MAC, has none. */
const coaAble = (s: Session) => s.mac !== null && s.state !== 'ended'

export function NacSessions() {
  const { t, language } = useI18n()
  const ask = useConfirm()
  const auth = useAuth()
  // Page, size, sort, filters and the tab in the address: a reload or a link shows the same list.
  const list = useListState({ sorts: SORTS, sort: 'last_update_at', order: 'desc', perPage: 50, filters: ['state', 'mac', 'username', 'nas_ip', 'tab'] })
  const f = { mac: list.filters.mac ?? '', username: list.filters.username ?? '', nas_ip: list.filters.nas_ip ?? '' }
  const [q] = useDebouncedValue(f, 300)
  const state = list.filters.state ?? 'all'
  const filters = { mac: q.mac || undefined, username: q.username || undefined, nas_ip: q.nas_ip || undefined, state: state === 'all' ? undefined : (state as 'live') }
  const canHistory = auth.can('nac.read')
  const setTab = (x: string | null) => navigate(x === 'coa' ? '/nac/sessions?tab=coa' : '/nac/sessions', { replace: true })
  const showHistory = canHistory && list.filters.tab === 'coa'
  const sessions = useQuery({
    // Not fetched (nor refreshed every 30 s) while the CoA history tab is the one shown.
    enabled: !showHistory,
    queryKey: ['nac', 'sessions', list.key, filters],
    queryFn: () => api.get('/api/v1/nac/sessions', { query: { ...list.query, ...filters } }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  })
  const sel = useSelection(sessions.data?.items.filter(coaAble), list.key)
  const exporter = useMutation({ mutationFn: (format: 'xlsx' | 'csv') => download('/api/v1/nac/sessions/export', { ...filters, sort_by: list.sortBy, sort_order: list.sortOrder, format }) })
  // A session names its endpoint by MAC: the CoA goes to the endpoint of that MAC (the NAS that last saw it).
  const send = async (o: { mac: string; action: Action }) => {
    const found = (await api.get('/api/v1/nac/endpoints', { query: { mac: o.mac, page: 1, per_page: 1 } })).items[0]
    if (!found) throw new ApiError(404, t.nac.noEndpoint(o.mac), 'NOT_FOUND', null)
    return api.post('/api/v1/nac/endpoints/{endpoint_id}/coa', { params: { endpoint_id: found.id }, body: { action: o.action } })
  }
  const coa = useMutation({ mutationFn: send })
  const canCoa = auth.can('nac.coa.send')
  // A disconnect or a port bounce cuts the session: the dialog names it (the device, its NAS and port, its user).
  type Row = { mac: string | null; username: string | null; nas_ip: string; nas_port: string | null; framed_ip: string | null }
  const askCoa = (a: Exclude<Action, 'reauthenticate'>, s: Row) => ask({
    title: t.confirm.title(t.nac.coaActions[a], s.mac!),
    message: t.nac.coaConfirm(t.nac.coaActions[a], s.mac!),
    touches: [t.confirm.session(s.mac! + (s.framed_ip ? ` (${s.framed_ip})` : '')), t.confirm.nas(s.nas_ip + (s.nas_port ? ` ${s.nas_port}` : '')), ...(s.username ? [t.confirm.user(s.username)] : [])],
    confirmLabel: t.nac.coaActions[a],
  })
  // The selected sessions' CoA, one endpoint after the other; a NAK or a timeout is that session's failure.
  const bulkCoa = (a: Action): BulkAction<Session> => ({
    label: t.nac.coaActions[a], color: a === 'reauthenticate' ? undefined : 'red',
    confirm: a === 'reauthenticate' ? undefined : (rows) => ({ title: t.table.coaTitle(t.nac.coaActions[a], rows.length), message: t.table.coaQuestion(t.nac.coaActions[a], rows.length) }),
    run: async (s) => {
      const r = await send({ mac: s.mac!, action: a })
      if (r.result !== 'ack' && r.result !== 'pending') throw new Error(t.nac.coaResults[r.result] + (r.error_cause !== null ? ` (${r.error_cause}${r.error_cause_name ? ` ${r.error_cause_name}` : ''})` : ''))
    },
  })
  const label = (s: Session) => s.mac! + (s.username ? ` (${s.username})` : '')
  const setFilter = (k: keyof typeof f, v: string) => list.setFilter(k, v)
  const r = coa.data
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">{t.nac.sessions}</Title>
        {!showHistory && (
          <Group>
            {(['xlsx', 'csv'] as const).map((x) => (
              <Button key={x} variant="default" loading={exporter.isPending && exporter.variables === x} onClick={() => exporter.mutate(x)}>{t.nac.export(x)}</Button>
            ))}
          </Group>
        )}
      </Group>
      {canHistory && (
        <Tabs value={showHistory ? 'coa' : 'sessions'} onChange={setTab}>
          <Tabs.List>
            <Tabs.Tab value="sessions">{t.nac.sessions}</Tabs.Tab>
            <Tabs.Tab value="coa">{t.nac.coaHistory}</Tabs.Tab>
          </Tabs.List>
        </Tabs>
      )}
      {showHistory ? <CoaHistory /> : <>
      <Group align="flex-end">
        <SegmentedControl aria-label={t.nac.state} value={state} onChange={(x) => list.setFilter('state', x === 'all' ? null : x)}
          data={[{ value: 'all', label: t.nac.allStates }, ...(['live', 'stale', 'ended'] as const).map((s) => ({ value: s, label: t.nac.states[s] }))]} />
        <TextInput aria-label={t.nac.mac} placeholder={t.nac.mac} value={f.mac} onChange={(e) => setFilter('mac', e.currentTarget.value)} w={190} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
        <TextInput aria-label={t.nac.username} placeholder={t.nac.username} value={f.username} onChange={(e) => setFilter('username', e.currentTarget.value)} w={180} />
        <TextInput aria-label={t.nac.nasIp} placeholder={t.nac.nasIp} value={f.nas_ip} onChange={(e) => setFilter('nas_ip', e.currentTarget.value)} w={160} />
      </Group>
      <ErrorAlert error={sessions.error ?? exporter.error ?? coa.error} />
      <BulkBar sel={sel} name={label} onDone={() => sessions.refetch()} actions={canCoa ? (['reauthenticate', 'disconnect', 'bounce-port'] as const).map(bulkCoa) : []} />
      {exporter.data && <Text size="sm" role="status">{t.nac.exported(exporter.data.name, exporter.data.rows)}</Text>}
      {coa.isPending && coa.variables && (
        <Group gap="xs" role="status"><Loader size="xs" /><Text size="sm">{t.nac.coaSending(t.nac.coaActions[coa.variables.action], coa.variables.mac)}</Text></Group>
      )}
      {r && !coa.isPending && (
        <Alert color={r.result === 'ack' ? 'green' : r.result === 'pending' ? 'blue' : 'red'} role="status" data-testid="coa-result" title={t.nac.coaActions[r.action]}>
          {t.nac.coaResult(r.mac, r.nas_ip ?? '—', t.nac.coaResults[r.result])}
          {r.error_cause !== null && ` (${r.error_cause}${r.error_cause_name ? ` ${r.error_cause_name}` : ''})`}
          {r.error_detail && ` ${r.error_detail}`}
        </Alert>
      )}
      <Table.ScrollContainer minWidth={1000}>
        <Table striped aria-label={t.nac.sessions} data-testid="sessions-table">
          <Table.Thead>
            <Table.Tr>
              {canCoa && <SelectAllTh sel={sel} />}
              <Table.Th>{t.nac.state}</Table.Th><SortTh list={list} sort="mac">{t.nac.mac}</SortTh><SortTh list={list} sort="username">{t.nac.username}</SortTh><SortTh list={list} sort="nas_ip">{t.nac.nasIp}</SortTh>
              <Table.Th>VLAN / ACL</Table.Th><Table.Th>IP</Table.Th><SortTh list={list} sort="started_at">{t.nac.started}</SortTh><SortTh list={list} sort="last_update_at">{t.nac.lastUpdate}</SortTh>{canCoa && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sessions.data?.items.map((s) => (
              <Table.Tr key={s.id} data-session={s.acct_session_id}>
                {canCoa && (coaAble(s) ? <SelectTd sel={sel} row={s} name={label(s)} /> : <Table.Td />)}
                <Table.Td><Badge size="sm" tt="none" styles={{ label: { overflow: 'visible' } }} color={STATE_COLOR[s.state]}>{t.nac.states[s.state]}</Badge></Table.Td>
                <Table.Td ff="monospace">{s.mac ?? t.common.none}</Table.Td>
                <Table.Td>{s.username ?? t.common.none}</Table.Td>
                <Table.Td ff="monospace">{s.nas_ip}{s.nas_port ? ` ${s.nas_port}` : ''}</Table.Td>
                <Table.Td>{[s.vlan, s.acl].filter(Boolean).join(' / ') || t.common.none}</Table.Td>
                <Table.Td ff="monospace">{s.framed_ip ?? t.common.none}</Table.Td>
                <Table.Td>{when(s.started_at, language)}</Table.Td>
                <Table.Td>{when(s.stopped_at ?? s.last_update_at, language)}</Table.Td>
                {canCoa && (
                  <Table.Td>
                    {s.mac && s.state !== 'ended' && (
                      <Menu position="bottom-end">
                        <Menu.Target>
                          <Button size="compact-sm" variant="light" disabled={coa.isPending} aria-label={`${t.nac.coa} ${s.mac}`}>{t.nac.coa}</Button>
                        </Menu.Target>
                        <Menu.Dropdown>
                          {(['reauthenticate', 'disconnect', 'bounce-port'] as const).map((a) => (
                            <Menu.Item key={a} color={a === 'reauthenticate' ? undefined : 'red'} onClick={() => void (a === 'reauthenticate' ? Promise.resolve(true) : askCoa(a, s)).then((ok) => ok && coa.mutate({ mac: s.mac!, action: a }))}>
                              {t.nac.coaActions[a]}
                            </Menu.Item>
                          ))}
                        </Menu.Dropdown>
                      </Menu>
                    )}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {sessions.data?.total === 0 && <Text c="dimmed">{t.nac.noSessions}</Text>}
      <TableFooter list={list} data={sessions.data} />
      </>}
    </Stack>
  )
}
