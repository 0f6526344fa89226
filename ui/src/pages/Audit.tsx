/**
 * The audit trail: every change and sign-in, newest first, with the API's
 * search (action, resource, who) and filters (who, action or action prefix, resource type and id, outcome, from
 * and to dates), sorted by a column header, 50 a page (or 20, 100); an entry opens a drawer with its
 * fields and the record before and after side by side (AuditDiff). The page, size, sort, search and
 * filters are in the address under the route's names (list-state.ts): a record's "Audit trail of
 * this record" link opens /audit?resource_type=user&resource_id=…, and a reload keeps the list.
 */
import { Badge, Drawer, Group, Select, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { ErrorAlert } from '../components/errors'
import { useListState, useTypedFilters } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { useI18n } from '../i18n'
import { AuditDiff } from './AuditDiff'
import { when } from './format'
import type { AuditEntry } from './identity-data'
import { actionWords } from '../i18n/audit-en'

/** The columns GET /audit sorts by (its `sort_by` allow-list). */
const SORTS = ['at', 'action', 'resource_type', 'actor_name'] as const
/** The route's filters, kept in the address under their own names (the dates as whole days, `2026-11-29`). */
const FILTERS = ['actor_name', 'action', 'resource_type', 'resource_id', 'outcome', 'at_from', 'at_to'] as const
type Filter = (typeof FILTERS)[number]

export function Audit() {
  const { t, language } = useI18n()
  // Newest first, 50 a page (the route's defaults); page, size, sort, search and filters in the address.
  const list = useListState({ sorts: SORTS, sort: 'at', order: 'desc', perPage: 50, filters: FILTERS })
  const [open, setOpen] = useState<AuditEntry | null>(null)
  const d = useTypedFilters(list.filters)
  const text = (k: Filter) => d[k]?.trim() || undefined
  const outcome = list.filters.outcome === 'success' || list.filters.outcome === 'failure' ? list.filters.outcome : undefined
  const entries = useQuery({
    queryKey: ['audit', list.query, d, outcome],
    queryFn: () =>
      api.get('/api/v1/audit', {
        query: {
          ...list.query, actor_name: text('actor_name'), action: text('action'), resource_type: text('resource_type'), resource_id: text('resource_id'), outcome,
          // Whole days in UTC, as the log screens take them.
          at_from: d.at_from ? `${d.at_from}T00:00:00Z` : undefined, at_to: d.at_to ? `${d.at_to}T23:59:59.999Z` : undefined,
        },
      }),
    placeholderData: keepPreviousData,
  })
  const set = (k: Filter) => (e: { currentTarget: { value: string } }) => list.setFilter(k, e.currentTarget.value)
  const value = (k: Filter) => list.filters[k] ?? ''
  return (
    <Stack>
      <Title order={1} size="h2">{t.admin.audit.title}</Title>
      <Group align="flex-end" wrap="wrap">
        <TextInput label={t.common.search} name="search" type="search" placeholder={t.admin.audit.searchHint} value={list.search} onChange={(e) => list.setSearch(e.currentTarget.value)} w={180} />
        <TextInput label={t.admin.audit.who} name="actor_name" value={value('actor_name')} onChange={set('actor_name')} w={150} />
        <TextInput label={t.admin.audit.action} name="action" placeholder={t.admin.audit.actionHint} value={value('action')} onChange={set('action')} w={190} />
        <TextInput label={t.admin.audit.resource} name="resource_type" placeholder="user, role…" value={value('resource_type')} onChange={set('resource_type')} w={140} />
        <TextInput label={t.admin.audit.resourceId} name="resource_id" value={value('resource_id')} onChange={set('resource_id')} w={200} />
        <Select label={t.admin.audit.outcome} placeholder={t.admin.any} clearable data={[{ value: 'success', label: t.admin.audit.outcomes.success }, { value: 'failure', label: t.admin.audit.outcomes.failure }]} value={outcome ?? null} onChange={(x) => list.setFilter('outcome', x)} w={130} />
        <TextInput label={t.admin.audit.from} name="at_from" type="date" value={value('at_from')} onChange={set('at_from')} w={150} />
        <TextInput label={t.admin.audit.to} name="at_to" type="date" value={value('at_to')} onChange={set('at_to')} w={150} />
      </Group>
      <ErrorAlert error={entries.error} />
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label={t.admin.audit.title} data-testid="audit-table">
          <Table.Thead>
            <Table.Tr>
              <SortTh list={list} sort="at">{t.admin.audit.at}</SortTh><SortTh list={list} sort="actor_name">{t.admin.audit.who}</SortTh><SortTh list={list} sort="action">{t.admin.audit.action}</SortTh>
              <SortTh list={list} sort="resource_type">{t.admin.audit.resource}</SortTh><Table.Th>{t.admin.audit.outcome}</Table.Th><Table.Th>{t.admin.audit.ip}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.data?.items.map((e) => (
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
      {entries.data?.total_by_filter === 0 && <Text c="dimmed">{t.admin.audit.empty}</Text>}
      <TableFooter list={list} data={entries.data} testId="audit-total" />
      <Drawer opened={!!open} onClose={() => setOpen(null)} position="right" size="xl" title={t.admin.audit.entry}>
        {open && <AuditDiff entry={open} />}
      </Drawer>
    </Stack>
  )
}
