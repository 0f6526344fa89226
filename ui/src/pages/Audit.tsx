/**
 * The audit trail: every change and sign-in, newest first, with the API's
 * search (action, resource, who) and filters (who, action or action prefix, resource type and id, outcome, from
 * and to dates), sorted by a column header, 50 a page; an entry opens a drawer with its fields and the
 * record before and after side by side (AuditDiff). A resource can be given
 * in the URL (/audit?resource_type=user&resource_id=…).
 */
import { Badge, Drawer, Group, Select, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { AuditDiff } from './AuditDiff'
import { when } from './format'
import type { AuditEntry } from './identity-data'
import { ListFooter } from '../components/crud'
import { actionWords } from '../i18n/audit-en'

const PER_PAGE = 50
type SortBy = 'at' | 'action' | 'resource_type' | 'actor_name'

export function Audit() {
  const { t, language } = useI18n()
  const url = new URLSearchParams(location.search)
  const [f, setF] = useState({ search: '', actor_name: '', action: '', resource_type: url.get('resource_type') ?? '', resource_id: url.get('resource_id') ?? '', at_from: '', at_to: '' })
  const [outcome, setOutcome] = useState<string | null>(null)
  const [page, setPage] = useState(1)
  const [open, setOpen] = useState<AuditEntry | null>(null)
  const [sort, setSort] = useState<{ by: SortBy; order: 'asc' | 'desc' }>({ by: 'at', order: 'desc' })
  const [d] = useDebouncedValue(f, 300)
  const set = (k: keyof typeof f) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value
    setF((o) => ({ ...o, [k]: value }))
    setPage(1)
  }
  const list = useQuery({
    queryKey: ['audit', d, outcome, sort, page],
    queryFn: () =>
      api.get('/api/v1/audit', {
        query: {
          page, per_page: PER_PAGE, sort_by: sort.by, sort_order: sort.order,
          search: d.search.trim() || undefined, actor_name: d.actor_name.trim() || undefined, action: d.action.trim() || undefined, resource_type: d.resource_type.trim() || undefined,
          resource_id: d.resource_id.trim() || undefined, outcome: (outcome ?? undefined) as 'success' | 'failure' | undefined,
          // Whole days in UTC, as the log screens take them.
          at_from: d.at_from ? `${d.at_from}T00:00:00Z` : undefined, at_to: d.at_to ? `${d.at_to}T23:59:59.999Z` : undefined,
        },
      }),
    placeholderData: keepPreviousData,
  })
  // A header sorts by its column (the API's four); a second click reverses.
  const header = (label: string, col?: SortBy) => {
    if (!col) return <Table.Th>{label}</Table.Th>
    const on = sort.by === col
    return (
      <Table.Th aria-sort={on ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <UnstyledButton fw={600} fz="sm" onClick={() => { setSort({ by: col, order: on && sort.order === 'desc' ? 'asc' : 'desc' }); setPage(1) }}>{label} {on ? (sort.order === 'asc' ? '▲' : '▼') : ''}</UnstyledButton>
      </Table.Th>
    )
  }
  return (
    <Stack>
      <Title order={1} size="h2">{t.admin.audit.title}</Title>
      <Group align="flex-end" wrap="wrap">
        <TextInput label={t.common.search} name="search" type="search" placeholder={t.admin.audit.searchHint} value={f.search} onChange={set('search')} w={180} />
        <TextInput label={t.admin.audit.who} name="actor_name" value={f.actor_name} onChange={set('actor_name')} w={150} />
        <TextInput label={t.admin.audit.action} name="action" placeholder={t.admin.audit.actionHint} value={f.action} onChange={set('action')} w={190} />
        <TextInput label={t.admin.audit.resource} name="resource_type" placeholder="user, role…" value={f.resource_type} onChange={set('resource_type')} w={140} />
        <TextInput label={t.admin.audit.resourceId} name="resource_id" value={f.resource_id} onChange={set('resource_id')} w={200} />
        <Select label={t.admin.audit.outcome} placeholder={t.admin.any} clearable data={[{ value: 'success', label: t.admin.audit.outcomes.success }, { value: 'failure', label: t.admin.audit.outcomes.failure }]} value={outcome} onChange={(x) => { setOutcome(x); setPage(1) }} w={130} />
        <TextInput label={t.admin.audit.from} name="at_from" type="date" value={f.at_from} onChange={set('at_from')} w={150} />
        <TextInput label={t.admin.audit.to} name="at_to" type="date" value={f.at_to} onChange={set('at_to')} w={150} />
      </Group>
      <ErrorAlert error={list.error} />
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label={t.admin.audit.title} data-testid="audit-table">
          <Table.Thead>
            <Table.Tr>
              {header(t.admin.audit.at, 'at')}{header(t.admin.audit.who, 'actor_name')}{header(t.admin.audit.action, 'action')}
              {header(t.admin.audit.resource, 'resource_type')}{header(t.admin.audit.outcome)}{header(t.admin.audit.ip)}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((e) => (
              <Table.Tr key={e.id} data-action={e.action} style={{ cursor: 'pointer' }} onClick={() => setOpen(e)}>
                <Table.Td>
                  <UnstyledButton onClick={(ev) => { ev.stopPropagation(); setOpen(e) }} aria-label={t.admin.audit.open(e.action, when(e.at, language))} fz="sm">{when(e.at, language)}</UnstyledButton>
                </Table.Td>
                <Table.Td>{e.actor_name ?? t.common.none}</Table.Td>
                <Table.Td data-testid="audit-action">
                  {actionWords(t.auditWords, e.action) && <Text size="sm">{actionWords(t.auditWords, e.action)}</Text>}
                  <Text c="dimmed" size="xs" ff="monospace">{e.action}</Text>
                </Table.Td>
                <Table.Td data-testid="audit-resource">
                  {t.auditWords.resources[e.resource_type] ?? e.resource_type}
                  {/* The name kept at the event reads better than an id, and survives a rename or deletion. */}
                  {e.resource_name ? <Text span fw={600} size="sm"> {e.resource_name}</Text> : e.resource_id && <Text span c="dimmed" size="xs" ff="monospace"> {e.resource_id.slice(0, 8)}</Text>}
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" color={e.outcome === 'success' ? 'green' : 'red'} variant="light">{t.admin.audit.outcomes[e.outcome]}</Badge>
                  {e.reason && <Text span size="xs" c="dimmed"> {e.reason}</Text>}
                </Table.Td>
                <Table.Td ff="monospace" fz="sm">{e.ip ?? t.common.none}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.total_by_filter === 0 && <Text c="dimmed">{t.admin.audit.empty}</Text>}
      <ListFooter data={list.data} page={page} onPage={setPage} />
      <Drawer opened={!!open} onClose={() => setOpen(null)} position="right" size="xl" title={t.admin.audit.entry}>
        {open && <AuditDiff entry={open} />}
      </Drawer>
    </Stack>
  )
}
