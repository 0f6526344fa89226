/**
 * Guests: every guest account, from the portals' methods and made for an
 * event, sortable, a page size to choose, filters (status, kind, portal; all
 * kept in the address) and a search over name,
 * e-mail and username. With portal.guests: accounts in bulk for an event (the
 * passwords shown once, printable, as CSV: GuestBulk.tsx), extend, revoke
 * (its devices disconnected) and mail new credentials.
 */
import { Badge, Button, Group, Menu, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { useListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import { GuestBulk } from './GuestBulk'
import { GuestExtend } from './GuestExtend'
import { GUEST_KINDS, GUEST_STATUSES, STATUS_COLOR, type Guest } from './portal-data'
import { PortalSelect } from './portal-pickers'
import { useConfirm } from '../components/Confirm'

/** The columns GET /captive-portal/guests sorts by (its `sort_by` allow-list); newest first by default. */
const SORTS = ['created_at', 'name', 'email', 'status', 'valid_until'] as const
type Status = (typeof GUEST_STATUSES)[number]
type Kind = (typeof GUEST_KINDS)[number]

export function Guests() {
  const { t, language } = useI18n()
  const ask = useConfirm()
  const p = t.portal
  const auth = useAuth()
  const qc = useQueryClient()
  const canChange = auth.can('portal.guests')
  // Page, size, sort, search and filters in the address: a reload or a link shows the same list.
  const state = useListState({ sorts: SORTS, sort: 'created_at', order: 'desc', filters: ['status', 'kind', 'portal_id'] })
  const f = state.filters
  const set = (k: 'status' | 'kind' | 'portal_id', x: string | null) => state.setFilter(k, x)
  const query = { status: (f.status ?? undefined) as Status | undefined, kind: (f.kind ?? undefined) as Kind | undefined, portal_id: f.portal_id ?? undefined }
  const list = useQuery({
    queryKey: ['portal', 'guests', state.key],
    queryFn: () => api.get('/api/v1/captive-portal/guests', { query: { ...state.query, ...query } }),
    placeholderData: keepPreviousData,
  })
  const [bulk, setBulk] = useState(false)
  const [extending, setExtending] = useState<Guest | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const done = async (text: string) => {
    setNotice(text)
    await qc.invalidateQueries({ queryKey: ['portal'] })
  }
  const revoke = useMutation({
    mutationFn: (g: Guest) => api.post('/api/v1/captive-portal/guests/{guest_id}/revoke', { params: { guest_id: g.id } }),
    onSuccess: () => done(p.done),
  })
  const send = useMutation({
    mutationFn: (g: Guest) => api.post('/api/v1/captive-portal/guests/{guest_id}/send-credentials', { params: { guest_id: g.id } }),
    onSuccess: (_, g) => done(p.sent(g.email ?? '')),
  })
  const label = (g: Guest) => g.name ?? g.username ?? g.email ?? g.id
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">{p.guests}</Title>
        {canChange && <Button onClick={() => setBulk(true)}>{p.bulk}</Button>}
      </Group>
      <Group align="flex-end">
        <TextInput type="search" aria-label={t.common.search} placeholder={p.searchGuests} value={state.search} onChange={(e) => state.setSearch(e.currentTarget.value)} w={260} />
        <Select aria-label={p.status} placeholder={p.allStatuses} clearable w={200} value={f.status} onChange={(x) => set('status', x)} data={GUEST_STATUSES.map((s) => ({ value: s, label: p.statuses[s] }))} />
        <Select aria-label={p.kind} placeholder={p.allKinds} clearable w={200} value={f.kind} onChange={(x) => set('kind', x)} data={GUEST_KINDS.map((k) => ({ value: k, label: p.methodShort[k] }))} />
        <PortalSelect aria-label={p.portal} placeholder={p.allPortals} clearable w={200} value={f.portal_id} onChange={(x) => set('portal_id', x)} />
      </Group>
      <ErrorAlert error={list.error ?? revoke.error ?? send.error} />
      {notice && <Text size="sm" role="status" data-testid="guest-notice">{notice}</Text>}
      <Table.ScrollContainer minWidth={1000}>
        <Table striped aria-label={p.guests} data-testid="guests-table">
          <Table.Thead>
            <Table.Tr>
              <SortTh list={state} sort="name">{p.guestName}</SortTh><SortTh list={state} sort="email">{p.email}</SortTh><Table.Th>{p.kind}</Table.Th><Table.Th>{p.portal}</Table.Th>
              <SortTh list={state} sort="status">{p.status}</SortTh><SortTh list={state} sort="valid_until">{p.validUntil}</SortTh><Table.Th>{p.sponsor}</Table.Th>{canChange && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((g) => (
              <Table.Tr key={g.id} data-guest={g.username ?? g.email ?? g.id}>
                <Table.Td>
                  {g.name !== null ? <Text size="sm" fw={500}>{g.name}</Text> : <Text size="sm" fw={500} ff="monospace">{g.username ?? t.common.none}</Text>}
                  {g.name !== null && g.username && <Text size="xs" ff="monospace" c="dimmed">{g.username}</Text>}
                  {g.event && <Text size="xs" c="dimmed">{p.event}: {g.event}</Text>}
                </Table.Td>
                <Table.Td>{g.email ?? t.common.none}</Table.Td>
                <Table.Td>{p.methodShort[g.kind]}</Table.Td>
                <Table.Td>{g.portal_name}</Table.Td>
                <Table.Td><Badge size="sm" tt="none" styles={{ label: { overflow: 'visible' } }} color={STATUS_COLOR[g.status]}>{p.statuses[g.status]}</Badge></Table.Td>
                <Table.Td>{when(g.valid_until, language)}</Table.Td>
                <Table.Td>{g.sponsor_email ?? t.common.none}</Table.Td>
                {canChange && (
                  <Table.Td>
                    {g.status !== 'revoked' && (
                      <Menu position="bottom-end">
                        <Menu.Target><Button size="compact-sm" variant="light" aria-label={p.actionsOf(label(g))}>…</Button></Menu.Target>
                        <Menu.Dropdown>
                          <Menu.Item onClick={() => setExtending(g)}>{p.extend}</Menu.Item>
                          {g.email && <Menu.Item onClick={() => void ask({ title: t.confirm.title(p.sendCredentials, label(g)), message: p.sendConfirm(label(g), g.email!), confirmLabel: p.sendCredentials }).then((ok) => ok && send.mutate(g))}>{p.sendCredentials}</Menu.Item>}
                          <Menu.Item color="red" onClick={() => void ask({ title: t.confirm.title(p.revoke, label(g)), message: p.revokeConfirm(label(g)), confirmLabel: p.revoke }).then((ok) => ok && revoke.mutate(g))}>{p.revoke}</Menu.Item>
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
      {list.data?.total_by_filter === 0 && <Text c="dimmed">{p.emptyGuests}</Text>}
      <TableFooter list={state} data={list.data} />
      {bulk && <GuestBulk onClose={() => setBulk(false)} />}
      {extending && <GuestExtend guest={extending} name={label(extending)} onClose={() => setExtending(null)} onDone={() => done(p.done)} />}
    </Stack>
  )
}
