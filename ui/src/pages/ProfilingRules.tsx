/**
 * Profiling rules: what makes an endpoint a `printer` or an `ip-phone` (the
 * evidence its DHCP, CDP, LLDP, HTTP and the MAC's vendor give, compared
 * case-insensitively). The list by position, with each rule's conditions,
 * device type and certainty; add and change in a dialog (ProfilingRuleForm);
 * delete; "Apply now" runs every rule over every endpoint and says how many
 * changed.
 */
import { Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { ProfilingRuleForm, type ProfilingRule } from './ProfilingRuleForm'
import { RowActions } from '../components/crud'

export function ProfilingRules() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const canWrite = auth.can('nac.profiling.write')
  const list = useQuery({ queryKey: ['nac', 'profiling-rules'], queryFn: () => api.get('/api/v1/nac/profiling-rules', { query: { page: 1, per_page: 100, sort_by: 'position', sort_order: 'asc' } }) })
  const [editing, setEditing] = useState<ProfilingRule | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/nac/profiling-rules/{rule_id}', { params: { rule_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['nac'] }),
  })
  const apply = useMutation({ mutationFn: () => api.post('/api/v1/nac/profiling-rules/apply'), onSuccess: () => qc.invalidateQueries({ queryKey: ['nac', 'endpoints'] }) })
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">{t.nac.profilingRules}</Title>
        {canWrite && (
          <Group>
            <Button variant="default" loading={apply.isPending} onClick={() => apply.mutate()}>{t.nac.applyNow}</Button>
            <Button onClick={() => setEditing('new')}>{t.nac.addProfilingRule}</Button>
          </Group>
        )}
      </Group>
      <ErrorAlert error={list.error ?? remove.error ?? apply.error} />
      {apply.data && <Text size="sm" role="status" data-testid="apply-result">{t.nac.applied(apply.data.evaluated, apply.data.changed)}</Text>}
      <Table.ScrollContainer minWidth={700}>
        <Table striped aria-label={t.nac.profilingRules} data-testid="profiling-rules-table">
          <Table.Thead>
            <Table.Tr><Table.Th>#</Table.Th><Table.Th>{t.nac.name}</Table.Th><Table.Th>{t.nac.conditions}</Table.Th><Table.Th>{t.nac.deviceType}</Table.Th><Table.Th>{t.nac.certainty}</Table.Th>{canWrite && <Table.Th />}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((r) => (
              <Table.Tr key={r.id} data-profiling-rule={r.name} style={{ opacity: r.enabled ? 1 : 0.55 }}>
                <Table.Td>{r.position}</Table.Td>
                <Table.Td fw={500}>{r.name} {!r.enabled && <Badge size="xs" tt="none" color="gray">{t.policy.disabled}</Badge>}</Table.Td>
                <Table.Td>{r.conditions.map((c, i) => <Text key={i} size="sm">{t.nac.evidence[c.attribute]} {t.nac.operators[c.operator]} “{c.value}”</Text>)}</Table.Td>
                <Table.Td>{r.device_type}</Table.Td>
                <Table.Td>{r.certainty}</Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={r.name} confirm={t.policy.deleteConfirm(r.name)} onEdit={() => setEditing(r)} onDelete={() => remove.mutate(r.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.total === 0 && <Text c="dimmed">{t.nac.noProfilingRules}</Text>}
      {editing && <ProfilingRuleForm rule={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
