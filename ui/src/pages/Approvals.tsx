/**
 * Sponsor approvals: the guests waiting for a sponsor's decision, oldest
 * first, refreshed every 15 s (a guest's page waits on it). A holder of
 * portal.sponsor approves (the device is registered and connected) or
 * denies (after a confirmation); a reader sees the requests only.
 */
import { Button, Group, Stack, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import type { Approval } from './portal-data'
import { useConfirm } from '../components/Confirm'

export function Approvals() {
  const { t, language } = useI18n()
  const ask = useConfirm()
  const p = t.portal
  const auth = useAuth()
  const qc = useQueryClient()
  const canDecide = auth.can('portal.sponsor')
  const list = useQuery({ queryKey: ['portal', 'approvals'], queryFn: () => api.get('/api/v1/captive-portal/approvals', { query: { page: 1, per_page: 100 } }), refetchInterval: 15_000 })
  const [notice, setNotice] = useState<string | null>(null)
  const who = (a: Approval) => a.guest_name ?? a.guest_email ?? a.id
  const decide = useMutation({
    mutationFn: (o: { a: Approval; decision: 'approve' | 'deny' }) => api.post('/api/v1/captive-portal/approvals/{request_id}/decision', { params: { request_id: o.a.id }, body: { decision: o.decision } }),
    onSuccess: async (_, o) => {
      setNotice(o.decision === 'approve' ? p.approved(who(o.a)) : p.denied(who(o.a)))
      await qc.invalidateQueries({ queryKey: ['portal'] })
    },
  })
  return (
    <Stack>
      <Title order={1} size="h2">{p.approvals}</Title>
      {!canDecide && <Text size="sm" c="dimmed">{p.cannotDecide}</Text>}
      <ErrorAlert error={list.error ?? decide.error} />
      {notice && <Text size="sm" role="status" data-testid="approval-notice">{notice}</Text>}
      <Table.ScrollContainer minWidth={900}>
        <Table striped aria-label={p.approvals} data-testid="approvals-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{p.guestName}</Table.Th><Table.Th>{p.email}</Table.Th><Table.Th>{p.sponsor}</Table.Th><Table.Th>{p.portal}</Table.Th>
              <Table.Th>{p.mac}</Table.Th><Table.Th>{p.requestedAt}</Table.Th><Table.Th>{p.expires}</Table.Th>{canDecide && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((a) => (
              <Table.Tr key={a.id} data-approval={a.guest_email ?? a.id}>
                <Table.Td fw={500}>{a.guest_name ?? t.common.none}</Table.Td>
                <Table.Td>
                  {a.guest_email ?? t.common.none}
                  {Object.entries(a.guest_fields).map(([k, x]) => <Text key={k} size="xs" c="dimmed">{k}: {x}</Text>)}
                </Table.Td>
                <Table.Td>{a.sponsor_email}</Table.Td>
                <Table.Td>{a.portal_name}</Table.Td>
                <Table.Td ff="monospace">{a.mac ?? t.common.none}</Table.Td>
                <Table.Td>{when(a.created_at, language)}</Table.Td>
                <Table.Td>{when(a.expires_at, language)}</Table.Td>
                {canDecide && (
                  <Table.Td>
                    <Group gap={4} wrap="nowrap" justify="flex-end">
                      <Button size="compact-sm" color="green" variant="light" disabled={decide.isPending} onClick={() => decide.mutate({ a, decision: 'approve' })} aria-label={`${p.approve} ${who(a)}`}>{p.approve}</Button>
                      <Button size="compact-sm" color="red" variant="subtle" disabled={decide.isPending} onClick={() => void ask({ title: t.confirm.title(p.deny, who(a)), message: p.denyConfirm(who(a)), confirmLabel: p.deny }).then((ok) => ok && decide.mutate({ a, decision: 'deny' }))} aria-label={`${p.deny} ${who(a)}`}>{p.deny}</Button>
                    </Group>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.total_by_filter === 0 && <Text c="dimmed">{p.emptyApprovals}</Text>}
    </Stack>
  )
}
