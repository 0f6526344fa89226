/**
 * The NAC policy: the ordered rules (the first enabled rule whose conditions
 * all hold decides; the default rule last) beside the policy test. Rules move
 * as in the AAA policy (components/RuleOrder: drag, Alt+↑ / Alt+↓, ↑ ↓), every
 * move sending the whole order (PUT /nac/policy/rules/reorder); the test's
 * trace tints the rules it tried (the deciding one green).
 */
import { Badge, Grid, Paper, Stack, Table, Text, VisuallyHidden } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { BulkBar, bulkActions } from '../components/BulkBar'
import { ErrorAlert } from '../components/errors'
import { SelectAllTh, SelectTd, useSelection } from '../components/ListTable'
import { useOpenRecord } from '../components/open-record'
import { NOCUT, RuleNameCell, RuleRowActions, useRuleOrder } from '../components/RuleOrder'
import { useI18n } from '../i18n'
import type { NacRule, NacTestResult } from './nac-data'
import { NacPolicyTest } from './NacPolicyTest'
import { NacRuleForm } from './NacRuleForm'
import { PageTitle } from '../components/crud'

const KEY = ['nac', 'policy', 'rules']

/** A condition as one line: its type and its values (group names as they are now). */
function conditionText(c: NacRule['conditions'][number], label: string): string {
  const values = c.groups?.map((g) => g.name ?? g.id) ?? c.methods ?? c.device_types ?? c.values ?? []
  if (c.type === 'time_window') return `${label}: ${c.label ?? ''}`
  return `${label}${c.field ? ` ${c.field}` : ''}: ${values.join(', ')}`
}

export function NacPolicy() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const canWrite = auth.can('nac.policy.write')
  const rules = useQuery({ queryKey: KEY, queryFn: () => api.get('/api/v1/nac/policy/rules') })
  const [editing, setEditing] = useState<NacRule | 'new' | null>(null)
  const [result, setResult] = useState<NacTestResult | null>(null)
  const [moved, setMoved] = useState('')
  const reorder = useMutation({
    mutationFn: (o: { ids: string[]; id: string }) => api.put('/api/v1/nac/policy/rules/reorder', { body: { rule_ids: o.ids } }),
    onSuccess: (list, o) => {
      const r = list.find((x) => x.id === o.id)
      if (r) setMoved(t.policy.moved(r.name, r.position + 1))
      qc.setQueryData(KEY, list)
      return qc.invalidateQueries({ queryKey: ['nac', 'policy'] })
    },
  })
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/nac/policy/rules/{rule_id}', { params: { rule_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['nac', 'policy'] }),
  })
  const list = rules.data ?? []
  // The quick search's `?open=<id>`: the rule's dialog for a writer, the row marked for a reader.
  const opened = useOpenRecord((id) => rules.data?.find((r) => r.id === id), (r) => canWrite && setEditing(r))
  const movable = canWrite && !reorder.isPending
  const { move, rowProps } = useRuleOrder(list, movable, (ids, id) => reorder.mutate({ ids, id }))
  // Several rules enabled, disabled or deleted at once (BulkBar); the default rule stays out (always enabled, never deleted).
  const sel = useSelection(list.filter((r) => !r.is_default), 'nac-rules')
  const change = (r: NacRule, enabled: boolean) => api.put('/api/v1/nac/policy/rules/{rule_id}', { params: { rule_id: r.id }, body: { enabled } })
  const tried = new Map(result?.trace.map((s) => [s.rule_id, s]))

  return (
    <Stack>
      <PageTitle title={t.nac.policy} add={canWrite && { label: t.nac.addRule, onClick: () => setEditing('new') }} />
      <Grid>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Paper withBorder p="md">
            <Stack>
              {canWrite && <Text size="xs" c="dimmed">{t.policy.moveHint}</Text>}
              <VisuallyHidden role="status" aria-live="polite">{moved}</VisuallyHidden>
              <ErrorAlert error={rules.error ?? reorder.error ?? remove.error} />
              <BulkBar sel={sel} name={(r) => r.name} onDone={() => qc.invalidateQueries({ queryKey: ['nac', 'policy'] })} actions={canWrite ? [
                bulkActions.enabled<NacRule>(t, true, change), bulkActions.enabled<NacRule>(t, false, change),
                bulkActions.remove<NacRule>(t, (r) => api.delete('/api/v1/nac/policy/rules/{rule_id}', { params: { rule_id: r.id } })),
              ] : []} />
              <Table.ScrollContainer minWidth={560}>
                <Table aria-label={t.nac.rules} data-testid="nac-rules">
                  <Table.Thead>
                    <Table.Tr>{canWrite && <SelectAllTh sel={sel} />}<Table.Th>#</Table.Th><Table.Th>{t.nac.name}</Table.Th><Table.Th>{t.nac.conditions}</Table.Th><Table.Th>{t.nac.profile}</Table.Th><Table.Th /></Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {list.map((r, i) => {
                      const step = tried.get(r.id)
                      const { cursor, ...row } = rowProps(r, i)
                      return (
                        <Table.Tr key={r.id} data-rule={r.name} data-opened={opened === r.id || undefined} {...row}
                          bg={step?.matched ? 'var(--mantine-color-green-light)' : step ? 'var(--mantine-color-gray-light)' : undefined}
                          style={{ cursor, opacity: r.enabled ? 1 : 0.55 }} title={step?.reason ?? undefined}>
                          {canWrite && (r.is_default ? <Table.Td /> : <SelectTd sel={sel} row={r} name={r.name} />)}
                          <Table.Td>{r.position + 1}</Table.Td>
                          <RuleNameCell rule={r} />
                          <Table.Td>
                            {r.conditions.length === 0 ? <Text size="sm" c="dimmed">{t.nac.everyRequest}</Text> : r.conditions.map((c) => <Text key={c.type} size="sm">{conditionText(c, t.nac.conditionTypes[c.type])}</Text>)}
                          </Table.Td>
                          <Table.Td><Badge size="sm" tt="none" styles={NOCUT} variant="light">{r.authorization_profile_name}</Badge></Table.Td>
                          <RuleRowActions rule={r} index={i} count={list.length} movable={movable} canWrite={canWrite} onMove={(to) => move(r.id, to)} onEdit={() => setEditing(r)} onDelete={() => remove.mutate(r.id)} />
                        </Table.Tr>
                      )
                    })}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Stack>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <NacPolicyTest onResult={setResult} />
        </Grid.Col>
      </Grid>
      {editing && <NacRuleForm rule={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
