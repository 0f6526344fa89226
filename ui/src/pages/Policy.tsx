/**
 * The AAA policy: the ordered rules (first match wins) beside the policy
 * test. A rule moves by drag and drop, or from the keyboard (its ↑ ↓ buttons,
 * or Alt+↑ / Alt+↓ on its row); every move sends the whole order (PUT
 * /aaa/policy/rules/reorder), the default rule stays last. The test's trace
 * marks the rules it tried in the list. Selected rules are enabled, disabled
 * or deleted at once (BulkBar).
 */
import { Badge, Button, Checkbox, Grid, Group, Paper, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core'
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
import { PolicyTest, type TestResult } from './PolicyTest'
import { SearchSelect } from '../components/SearchSelect'
import { devicePicker, userPicker } from './pickers'
import { RuleForm, type Rule } from './RuleForm'

// Rule and profile names are read whole: no ellipsis, no capitals.

export function Policy() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const canWrite = auth.can('aaa-policy.write')
  const [user, setUser] = useState<string | null>(null)
  const [device, setDevice] = useState<string | null>(null)
  const [resolve, setResolve] = useState(false)
  const filtered = !!(user || device)
  const rules = useQuery({
    queryKey: ['aaa-policy', 'rules', user, device, resolve],
    queryFn: () => api.get('/api/v1/aaa/policy/rules', { query: { who_user_id: user ? [user] : undefined, where_device_id: device ? [device] : undefined, resolve_groups: filtered ? resolve : undefined } }),
  })
  const status = useQuery({ queryKey: ['aaa-policy', 'status'], queryFn: () => api.get('/api/v1/aaa/policy/status') })
  const [editing, setEditing] = useState<Rule | 'new' | null>(null)
  const [result, setResult] = useState<TestResult | null>(null)
  // Read out after a move (a keyboard user does not see the row jump).
  const [moved, setMoved] = useState('')
  const reorder = useMutation({
    mutationFn: (o: { ids: string[]; id: string }) => api.put('/api/v1/aaa/policy/rules/reorder', { body: { rule_ids: o.ids } }),
    onSuccess: (list, o) => {
      const r = list.find((x) => x.id === o.id)
      if (r) setMoved(t.policy.moved(r.name, r.position + 1))
      qc.setQueryData(['aaa-policy', 'rules', null, null, false], list)
      return qc.invalidateQueries({ queryKey: ['aaa-policy'] })
    },
  })
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/aaa/policy/rules/{rule_id}', { params: { rule_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['aaa-policy'] }),
  })
  const list = rules.data ?? []
  // The quick search's `?open=<id>`: the rule's dialog for a writer, the row marked for a reader.
  const opened = useOpenRecord((id) => rules.data?.find((r) => r.id === id), (r) => canWrite && setEditing(r))
  // Reordering needs the whole list: with a filter on, the rows are a subset and do not move.
  const movable = canWrite && !filtered && !reorder.isPending

  const { move, rowProps } = useRuleOrder(list, movable, (ids, id) => reorder.mutate({ ids, id }))
  // Several rules enabled, disabled or deleted at once (BulkBar); the default rule is not among them (it cannot be deleted).
  const sel = useSelection(list.filter((r) => !r.is_default), JSON.stringify([user, device, resolve]))
  const change = (r: Rule, enabled: boolean) => api.put('/api/v1/aaa/policy/rules/{rule_id}', { params: { rule_id: r.id }, body: { enabled } })
  const tried = new Map(result?.trace.map((s) => [s.rule_id, s]))

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">{t.policy.title}</Title>
        <Group>
          {status.data && <Badge color={status.data.pending ? 'yellow' : 'green'} data-testid="policy-pending">{status.data.pending ? t.dashboard.pending : t.dashboard.upToDate}</Badge>}
          {canWrite && <Button onClick={() => setEditing('new')}>{t.policy.add}</Button>}
        </Group>
      </Group>
      <Grid>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Paper withBorder p="md">
            <Stack>
              <Group align="flex-end">
                <SearchSelect label={t.policy.filterUser} clearable source={userPicker} value={user} onChange={setUser} w={200} />
                <SearchSelect label={t.policy.filterDevice} clearable source={devicePicker} value={device} onChange={setDevice} w={220} />
                <Checkbox label={t.policy.resolveGroups} checked={resolve} onChange={(e) => setResolve(e.currentTarget.checked)} disabled={!filtered} />
              </Group>
              {canWrite && <Text size="xs" c="dimmed">{filtered ? t.policy.filteredNoMove : t.policy.moveHint}</Text>}
              <VisuallyHidden role="status" aria-live="polite">{moved}</VisuallyHidden>
            <ErrorAlert error={rules.error ?? reorder.error ?? remove.error} />
              <BulkBar sel={sel} name={(r) => r.name} onDone={() => qc.invalidateQueries({ queryKey: ['aaa-policy'] })} actions={canWrite ? [
                bulkActions.enabled<Rule>(t, true, change), bulkActions.enabled<Rule>(t, false, change),
                bulkActions.remove<Rule>(t, (r) => api.delete('/api/v1/aaa/policy/rules/{rule_id}', { params: { rule_id: r.id } })),
              ] : []} />
              <Table.ScrollContainer minWidth={520}>
                <Table aria-label={t.policy.rules} data-testid="rules">
                  <Table.Thead>
                    <Table.Tr>{canWrite && <SelectAllTh sel={sel} />}<Table.Th>#</Table.Th><Table.Th>{t.policy.name}</Table.Th><Table.Th>{t.policy.who}</Table.Th><Table.Th>{t.policy.where}</Table.Th><Table.Th>{t.policy.profiles}</Table.Th><Table.Th /></Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {list.map((r, i) => {
                      const step = tried.get(r.id)
                      const { cursor, ...row } = rowProps(r, i)
                      return (
                        <Table.Tr key={r.id} data-rule={r.name} data-opened={opened === r.id || undefined} {...row}
                          bg={step?.matched ? 'var(--mantine-color-green-light)' : step ? 'var(--mantine-color-gray-light)' : undefined}
                          style={{ cursor, opacity: r.enabled ? 1 : 0.55 }} title={step?.reason}>
                          {canWrite && (r.is_default ? <Table.Td /> : <SelectTd sel={sel} row={r} name={r.name} />)}
                          <Table.Td>{r.position + 1}</Table.Td>
                          <RuleNameCell rule={r} />
                          <Table.Td>{r.who_name ?? t.policy.anyone}</Table.Td>
                          <Table.Td>
                            {r.where_name ?? t.policy.anywhere}
                            {/* The condition narrows WHERE: shown under it, named for what it checks (the NAS's address). */}
                            {r.client_prefixes.length > 0 && <Text size="xs" data-testid="rule-nas-prefixes">{t.policy.clientPrefixes}: {r.client_prefixes.join(', ')}</Text>}
                          </Table.Td>
                          <Table.Td>
                            <Group gap={4}>
                              {r.tacacs_profile_name && <Badge size="sm" tt="none" styles={NOCUT} variant="light">{r.tacacs_profile_name}</Badge>}
                              {r.radius_profile_name && <Badge size="sm" tt="none" styles={NOCUT} variant="light" color="grape">{r.radius_profile_name}</Badge>}
                            </Group>
                          </Table.Td>
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
          <PolicyTest onResult={setResult} />
        </Grid.Col>
      </Grid>
      {editing && <RuleForm rule={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
