/**
 * Configuration compliance: the rules ("must contain" / "must not contain" a whole line or a safe
 * regular expression, for a device group and its subgroups or every device, optionally mailed on a new
 * violation), and the results per rule and device with their masked evidence, filtered by status.
 * Managing rules needs ncm.rules.manage and ncm.reveal (rules read the configurations unmasked).
 */
import { Badge, Checkbox, Group, Select, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useAuth } from '../auth'
import { FormDialog, PageTitle, RowActions, useAllowed } from '../components/crud'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { when } from './format'
import { groupOptions, useAllGroups } from './groups-data'
import { useListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { deleteRule, INFO, NEUTRAL, type Requirement, type Rule, type RuleMatch, saveRule, STATE_COLOR, useCompliance, useRules } from './ncm-data'

const FIELDS = ['name', 'description', 'device_group_id', 'requirement', 'match', 'pattern', 'notify', 'enabled']

/** The columns GET /ncm/compliance sorts by (its `sort_by` allow-list). */
const RESULT_SORTS = ['rule_name', 'status', 'since'] as const

export function NcmCompliance() {
  const { t, language } = useI18n()
  const n = t.ncm
  const auth = useAuth()
  const qc = useQueryClient()
  const canManage = auth.can('ncm.rules.manage') && auth.can('ncm.reveal')
  const rules = useRules()
  const groups = useAllGroups(auth.can('inventory.read'))
  // The results' page, size, sort and status filter in the address (the route's names).
  const list = useListState({ sorts: RESULT_SORTS, sort: 'rule_name', filters: ['status'] })
  const status = list.filters.status === 'fail' || list.filters.status === 'pass' ? list.filters.status : null
  const results = useCompliance({ ...list.query, status: status ?? undefined })
  const [editing, setEditing] = useState<Rule | 'new' | null>(null)
  const remove = useMutation({ mutationFn: deleteRule, onSuccess: () => qc.invalidateQueries({ queryKey: ['ncm'] }) })
  return (
    <Stack>
      <PageTitle title={n.compliance} add={canManage && { label: n.addRule, onClick: () => setEditing('new') }} />
      {auth.can('ncm.rules.manage') && !auth.can('ncm.reveal') && <Text size="sm" c="dimmed">{n.rulesNeedReveal}</Text>}
      <ErrorAlert error={rules.error ?? remove.error} />
      <Title order={2} size="h3">{n.rules}</Title>
      <Table.ScrollContainer minWidth={800}>
        <Table striped aria-label={n.rules} data-testid="ncm-rules">
          <Table.Thead>
            <Table.Tr><Table.Th>{n.name}</Table.Th><Table.Th>{n.group}</Table.Th><Table.Th>{n.requirement}</Table.Th><Table.Th>{n.pattern}</Table.Th><Table.Th>{n.notify}</Table.Th>{canManage && <Table.Th />}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rules.data?.items.map((r) => (
              <Table.Tr key={r.id} data-rule={r.name} c={r.enabled ? undefined : 'dimmed'}>
                <Table.Td fw={500}>
                  {r.name}
                  {r.evaluating && <Badge ml="xs" size="sm" variant="filled" color={INFO}>{n.evaluating}</Badge>}
                </Table.Td>
                <Table.Td>{r.device_group_id ? (r.device_group_name ?? r.device_group_id) : n.allDevices}</Table.Td>
                <Table.Td>{n.requirements[r.requirement]} ({n.matchTypes[r.match]})</Table.Td>
                <Table.Td ff="monospace">{r.pattern}</Table.Td>
                <Table.Td>{r.notify ? t.common.yes : t.common.no}</Table.Td>
                {canManage && (
                  <Table.Td>
                    <RowActions name={r.name} confirm={n.deleteRuleQuestion(r.name)} onEdit={() => setEditing(r)} onDelete={() => remove.mutate(r.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {rules.data && rules.data.items.length === 0 && <Text c="dimmed">{n.emptyRules}</Text>}

      <Group justify="space-between" align="flex-end">
        <Title order={2} size="h3">{n.results}</Title>
        <Select label={n.statusFilter} w={200} clearable placeholder={n.anyStatus} value={status} onChange={(s) => list.setFilter('status', s)} data={['fail', 'pass'].map((s) => ({ value: s, label: n.resultStatuses[s] }))} />
      </Group>
      <ErrorAlert error={results.error} />
      <Table.ScrollContainer minWidth={800}>
        <Table striped aria-label={n.results} data-testid="ncm-results">
          <Table.Thead>
            <Table.Tr>
              <SortTh list={list} sort="rule_name">{n.rule}</SortTh><Table.Th>{n.device}</Table.Th><SortTh list={list} sort="status">{n.status}</SortTh><Table.Th>{n.evidence}</Table.Th><SortTh list={list} sort="since">{n.since}</SortTh>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {results.data?.items.map((x) => (
              <Table.Tr key={`${x.rule_id}:${x.device_id}`} data-result={`${x.rule_name}/${x.device_name ?? x.device_id}`} data-status={x.status}>
                <Table.Td>{x.rule_name}</Table.Td>
                <Table.Td><Link href={`/ncm/devices/${x.device_id}`}>{x.device_name ?? x.device_id}</Link></Table.Td>
                <Table.Td><Badge variant="filled" color={STATE_COLOR[x.status] ?? NEUTRAL}>{n.resultStatuses[x.status] ?? x.status}</Badge></Table.Td>
                <Table.Td ff="monospace" fz="sm">
                  {x.evidence.map((e, i) => (
                    <div key={i}><Text span c="dimmed" fz="xs">{e.line}:</Text> {e.text}</div>
                  ))}
                </Table.Td>
                <Table.Td>{when(x.since, language)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {results.data && results.data.items.length === 0 && <Text c="dimmed">{n.emptyResults}</Text>}
      <TableFooter list={list} data={results.data} testId="ncm-results-total" />
      {editing && <RuleForm rule={editing === 'new' ? null : editing} groups={groupOptions(groups.data ?? [])} onClose={() => setEditing(null)} />}
    </Stack>
  )
}

function RuleForm({ rule, groups, onClose }: { rule: Rule | null; groups: { value: string; label: string }[]; onClose(): void }) {
  const { t } = useI18n()
  const n = t.ncm
  const allowed = useAllowed('POST /api/v1/ncm/rules')
  const qc = useQueryClient()
  const [v, setV] = useState({
    name: rule?.name ?? '', description: rule?.description ?? '', device_group_id: rule?.device_group_id ?? null,
    requirement: rule?.requirement ?? ('must_not_contain' as Requirement), match: rule?.match ?? ('literal' as RuleMatch),
    pattern: rule?.pattern ?? '', notify: rule?.notify ?? false, enabled: rule?.enabled ?? true,
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: () => saveRule({ ...v, description: v.description || null }, rule?.id),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['ncm'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  return (
    <FormDialog title={rule ? n.editRule : n.addRule} size="lg" testId="rule-form" error={save.error} fields={FIELDS} pending={save.isPending} editing={!!rule} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={n.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
      <Select label={n.group} name="device_group_id" clearable placeholder={n.allDevices} data={groups} value={v.device_group_id} onChange={(x) => set('device_group_id', x)} error={err('device_group_id')} />
      <Group grow align="flex-start">
        <Select label={n.requirement} name="requirement" allowDeselect={false} data={(['must_not_contain', 'must_contain'] as const).map((r) => ({ value: r, label: n.requirements[r] }))} value={v.requirement} onChange={(x) => x && set('requirement', x as Requirement)} error={err('requirement')} />
        <Select label={n.match} name="match" allowDeselect={false} data={(['literal', 'regex'] as const).map((m) => ({ value: m, label: n.matchTypes[m] }))} value={v.match} onChange={(x) => x && set('match', x as RuleMatch)} error={err('match')} />
      </Group>
      <TextInput label={n.pattern} name="pattern" required ff="monospace" value={v.pattern} onChange={(e) => set('pattern', e.currentTarget.value)} error={err('pattern')} />
      <Textarea label={n.description} name="description" autosize minRows={1} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
      <Checkbox label={n.notify} name="notify" checked={v.notify} onChange={(e) => set('notify', e.currentTarget.checked)} />
      <Checkbox label={n.enabled} name="enabled" checked={v.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
    </FormDialog>
  )
}
