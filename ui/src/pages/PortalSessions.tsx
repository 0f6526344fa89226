/**
 * Portal sessions: each device that came to a portal, newest first, 50 a
 * page, refreshed every 30 s: filters (state, method, portal, MAC) and a
 * search; a row opens its details in a drawer; with portal.guests, "End
 * session" (after a confirmation): the device leaves the portal's endpoint
 * group and is disconnected by a CoA.
 */
import { Anchor, Badge, Button, Drawer, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { useListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import { SESSION_METHODS, SESSION_STATES, STATUS_COLOR, type PortalSession } from './portal-data'
import { PortalSelect } from './portal-pickers'
import { useConfirm } from '../components/Confirm'

/** The columns GET /captive-portal/sessions sorts by (its `sort_by` allow-list); newest first by default. */
const SORTS = ['created_at', 'expires_at', 'mac', 'state'] as const
type State = (typeof SESSION_STATES)[number]
type Method = (typeof SESSION_METHODS)[number]
const OPEN: readonly string[] = ['started', 'pending_code', 'pending_approval', 'active']
/** The MAC filter is sent once it is a whole address (12 hex digits, any notation): the server refuses a part of one. */
const fullMac = (s: string) => (s.replace(/[^0-9a-f]/gi, '').length === 12 ? s.trim() : undefined)

export function PortalSessions() {
  const { t, language } = useI18n()
  const ask = useConfirm()
  const p = t.portal
  const auth = useAuth()
  const qc = useQueryClient()
  const canEnd = auth.can('portal.guests')
  // Page, size, sort, search and filters in the address: a reload or a link shows the same list.
  const ls = useListState({ sorts: SORTS, sort: 'created_at', order: 'desc', perPage: 50, filters: ['state', 'method', 'portal_id', 'mac'] })
  const f = ls.filters
  const [mac] = useDebouncedValue(f.mac ?? '', 250)
  const set = (k: 'state' | 'method' | 'portal_id' | 'mac', x: string | null) => ls.setFilter(k, x)
  const query = { state: (f.state ?? undefined) as State | undefined, method: (f.method ?? undefined) as Method | undefined, portal_id: f.portal_id ?? undefined, mac: fullMac(mac) }
  const list = useQuery({
    queryKey: ['portal', 'sessions', ls.key, query],
    queryFn: () => api.get('/api/v1/captive-portal/sessions', { query: { ...ls.query, ...query } }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  })
  const [open, setOpen] = useState<string | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const end = useMutation({
    mutationFn: (s: PortalSession) => api.post('/api/v1/captive-portal/sessions/{session_id}/end', { params: { session_id: s.id } }),
    onSuccess: async () => {
      setNotice(p.ended)
      await qc.invalidateQueries({ queryKey: ['portal'] })
    },
  })
  const who = (s: PortalSession) => s.guest_name ?? s.guest_username ?? t.common.none
  // Ending a session disconnects the device (a CoA): the dialog names the device and its guest.
  const askEnd = (s: PortalSession) =>
    void ask({ title: t.confirm.title(p.end, s.mac), message: p.endConfirm(s.mac), touches: [t.confirm.session(s.mac), t.confirm.user(who(s))], confirmLabel: p.end }).then((ok) => ok && end.mutate(s))
  return (
    <Stack>
      <Title order={1} size="h2">{p.sessions}</Title>
      <Group align="flex-end">
        <TextInput type="search" aria-label={t.common.search} placeholder={p.searchSessions} value={ls.search} onChange={(e) => ls.setSearch(e.currentTarget.value)} w={230} />
        <TextInput aria-label={p.mac} placeholder={p.mac} value={f.mac ?? ''} onChange={(e) => set('mac', e.currentTarget.value)} w={180} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
        <Select aria-label={p.state} placeholder={p.allStates} clearable w={190} value={f.state} onChange={(x) => set('state', x)} data={SESSION_STATES.map((s) => ({ value: s, label: p.states[s] }))} />
        <Select aria-label={p.method} placeholder={p.allMethods} clearable w={190} value={f.method} onChange={(x) => set('method', x)} data={SESSION_METHODS.map((m) => ({ value: m, label: p.methodShort[m] }))} />
        <PortalSelect aria-label={p.portal} placeholder={p.allPortals} clearable w={190} value={f.portal_id} onChange={(x) => set('portal_id', x)} />
      </Group>
      <ErrorAlert error={list.error ?? end.error} />
      {notice && <Text size="sm" role="status" data-testid="session-notice">{notice}</Text>}
      <Table.ScrollContainer minWidth={1100}>
        <Table striped aria-label={p.sessions} data-testid="portal-sessions-table">
          <Table.Thead>
            <Table.Tr>
              <SortTh list={ls} sort="state">{p.state}</SortTh><SortTh list={ls} sort="mac">{p.mac}</SortTh><Table.Th>{p.who}</Table.Th><Table.Th>{p.method}</Table.Th><Table.Th>{p.portal}</Table.Th>
              <Table.Th>{p.nas}</Table.Th><SortTh list={ls} sort="created_at">{p.startedAt}</SortTh><SortTh list={ls} sort="expires_at">{p.expiresAt}</SortTh>{canEnd && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((s) => (
              <Table.Tr key={s.id} data-session={s.mac} data-state={s.state}>
                <Table.Td><Badge size="sm" tt="none" styles={{ label: { overflow: 'visible' } }} color={STATUS_COLOR[s.state]}>{p.states[s.state]}</Badge></Table.Td>
                <Table.Td ff="monospace"><Anchor component="button" type="button" ff="monospace" size="sm" onClick={() => setOpen(s.id)} aria-label={p.detailsOf(s.mac)}>{s.mac}</Anchor></Table.Td>
                <Table.Td>{who(s)}</Table.Td>
                <Table.Td>{s.method ? p.methodShort[s.method] : t.common.none}</Table.Td>
                <Table.Td>{s.portal_name}</Table.Td>
                <Table.Td ff="monospace">{s.nas_ip ?? t.common.none}{s.ssid ? ` ${s.ssid}` : ''}</Table.Td>
                <Table.Td>{when(s.created_at, language)}</Table.Td>
                <Table.Td>{s.ended_at ? `${p.endedAt}: ${when(s.ended_at, language)}` : when(s.expires_at, language)}</Table.Td>
                {canEnd && <Table.Td>{OPEN.includes(s.state) && <Button size="compact-sm" variant="light" color="red" loading={end.isPending && end.variables?.id === s.id} onClick={() => askEnd(s)} aria-label={`${p.end} ${s.mac}`}>{p.end}</Button>}</Table.Td>}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.total_by_filter === 0 && <Text c="dimmed">{p.emptySessions}</Text>}
      <TableFooter list={ls} data={list.data} />
      {open && <SessionDrawer id={open} canEnd={canEnd} onEnd={askEnd} onClose={() => setOpen(null)} />}
    </Stack>
  )
}

function SessionDrawer({ id, canEnd, onEnd, onClose }: { id: string; canEnd: boolean; onEnd(s: PortalSession): void; onClose(): void }) {
  const { t, language } = useI18n()
  const p = t.portal
  const one = useQuery({ queryKey: ['portal', 'sessions', 'one', id], queryFn: () => api.get('/api/v1/captive-portal/sessions/{session_id}', { params: { session_id: id } }) })
  const s = one.data
  const rows: [string, string][] = s
    ? [
        [p.state, p.states[s.state]], [p.mac, s.mac], [p.who, s.guest_name ?? s.guest_username ?? t.common.none], [p.method, s.method ? p.methodShort[s.method] : t.common.none],
        [p.portal, s.portal_name], [p.nas, s.nas_ip ?? t.common.none], [p.ssid, s.ssid ?? t.common.none], [p.signed, s.redirect_signed ? t.common.yes : t.common.no],
        [p.clientIp, s.client_ip ?? t.common.none], [p.language, s.language ?? t.common.none], [p.startedAt, when(s.created_at, language)], [p.registeredAt, when(s.registered_at, language)],
        [p.expiresAt, when(s.expires_at, language)], [p.endedAt, when(s.ended_at, language)], [p.endReason, s.end_reason ? p.endReasons[s.end_reason] : t.common.none],
      ]
    : []
  return (
    <Drawer opened onClose={onClose} position="right" size="md" title={p.detailsOf(s?.mac ?? '')}>
      <Stack data-testid="portal-session-details">
        <ErrorAlert error={one.error} />
        <Table>
          <Table.Tbody>{rows.map(([k, x]) => <Table.Tr key={k}><Table.Th w={170}>{k}</Table.Th><Table.Td>{x}</Table.Td></Table.Tr>)}</Table.Tbody>
        </Table>
        {s && canEnd && OPEN.includes(s.state) && <Group><Button color="red" variant="light" onClick={() => onEnd(s)}>{p.end}</Button></Group>}
      </Stack>
    </Drawer>
  )
}
