/**
 * EST enrollments held for a person's approval (`pki.est_approval_required`):
 * the queue, newest first (the time header reverses it), filtered by status, 20 a
 * page (or 50, 100), all of it in the address; approve or reject a pending
 * one (`pki.issue`), one at a time: an approval issues a certificate, not a bulk action. The device's next poll then gets its certificate, or
 * the refusal. Hidden while the queue has never held a request.
 */
import { Badge, Button, Group, Paper, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { useI18n } from '../i18n'
import { when } from './format'
import { useConfirm } from '../components/Confirm'

const COLOR: Record<string, string> = { pending: 'yellow', approved: 'blue', issued: 'green', rejected: 'red' }
const STATUSES = ['pending', 'approved', 'rejected', 'issued'] as const
type Status = (typeof STATUSES)[number]

export function EstRequests() {
  const { t, language } = useI18n()
  const ask = useConfirm()
  const auth = useAuth()
  const qc = useQueryClient()
  // The queue's page, size, order and status in the address (the route's names; no status: the pending ones).
  const state = useListState({ sorts: ['created_at'] as const, sort: 'created_at', order: 'desc', filters: ['status'] })
  const status: Status | 'all' = state.filters.status === 'all' ? 'all' : STATUSES.find((x) => x === state.filters.status) ?? 'pending'
  const list = useQuery({
    queryKey: ['pki', 'est-requests', state.query, status],
    queryFn: () => api.get('/api/v1/pki/est-requests', { query: { ...state.query, status: status === 'all' ? undefined : status } }),
    placeholderData: keepPreviousData,
  })
  const any = useQuery({ queryKey: ['pki', 'est-requests', 'any'], queryFn: () => api.get('/api/v1/pki/est-requests', { query: { per_page: 1 } }) })
  const decide = useMutation({
    mutationFn: (o: { id: string; decision: 'approve' | 'reject' }) => api.post('/api/v1/pki/est-requests/{request_id}/decision', { params: { request_id: o.id }, body: { decision: o.decision } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['pki', 'est-requests'] }),
  })
  if (!any.data?.total) return null
  const canDecide = auth.can('pki.issue')
  return (
    <Paper withBorder p="md" data-testid="est-requests">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">{t.pki.est.title}</Title>
          <SegmentedControl size="xs" value={status} onChange={(x) => state.setFilter('status', x === 'pending' ? null : x)}
            data={[{ value: 'pending', label: t.pki.est.statuses.pending }, { value: 'approved', label: t.pki.est.statuses.approved }, { value: 'issued', label: t.pki.est.statuses.issued }, { value: 'rejected', label: t.pki.est.statuses.rejected }, { value: 'all', label: t.pki.est.all }]} />
        </Group>
        <ErrorAlert error={list.error ?? decide.error} />
        <Table.ScrollContainer minWidth={700}>
          <Table striped aria-label={t.pki.est.title}>
            <Table.Thead>
              <Table.Tr><SortTh list={state} sort="created_at">{t.pki.est.at}</SortTh><Table.Th>{t.pki.subject}</Table.Th><Table.Th>{t.pki.san}</Table.Th><Table.Th>{t.pki.est.requester}</Table.Th><Table.Th>{t.pki.status}</Table.Th>{canDecide && <Table.Th />}</Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data?.items.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(r.created_at, language)}</Table.Td>
                  <Table.Td ff="monospace" fz="xs">{r.subject}</Table.Td>
                  <Table.Td ff="monospace" fz="xs">{r.san || t.common.none}</Table.Td>
                  <Table.Td>{r.requester}{r.renews_id && <Text size="xs" c="dimmed">{t.pki.est.renews}</Text>}</Table.Td>
                  <Table.Td><Badge color={COLOR[r.status]} variant="light">{t.pki.est.statuses[r.status]}</Badge></Table.Td>
                  {canDecide && (
                    <Table.Td>
                      {r.status === 'pending' && (
                        <Group gap={4} wrap="nowrap" justify="flex-end">
                          <Button size="compact-sm" variant="light" color="green" loading={decide.isPending && decide.variables?.id === r.id && decide.variables.decision === 'approve'} onClick={() => decide.mutate({ id: r.id, decision: 'approve' })} aria-label={`${t.pki.est.approve} ${r.subject}`}>{t.pki.est.approve}</Button>
                          <Button size="compact-sm" variant="subtle" color="red" onClick={() => void ask({ title: t.confirm.title(t.pki.est.reject, r.subject), message: t.pki.est.rejectConfirm(r.subject), confirmLabel: t.pki.est.reject }).then((ok) => ok && decide.mutate({ id: r.id, decision: 'reject' }))} aria-label={`${t.pki.est.reject} ${r.subject}`}>{t.pki.est.reject}</Button>
                        </Group>
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {list.data && list.data.items.length === 0 && <Text c="dimmed">{t.pki.est.empty}</Text>}
        <TableFooter list={state} data={list.data} testId="est-total" />
      </Stack>
    </Paper>
  )
}
