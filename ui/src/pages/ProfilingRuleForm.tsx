/**
 * Add or change a profiling rule, in a dialog: name, the device type it gives
 * and how sure it is, its conditions (1 to 10, all must hold: an evidence
 * attribute, an operator, a value), description, enabled. A refusal shows
 * under its input, a condition's under its row.
 */
import { ActionIcon, Button, Group, NumberInput, Select, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, ApiError } from '../api/client'
import type { components } from '../generated/api'
import { fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { FormDialog, useAllowed } from '../components/crud'

export type ProfilingRule = components['schemas']['ProfilingRuleResponse']
type Condition = components['schemas']['ProfilingCondition']
const ATTRIBUTES: Condition['attribute'][] = ['vendor', 'dhcp_class_id', 'dhcp_parameter_list', 'dhcp_hostname', 'cdp_platform', 'lldp_system_description', 'user_agent', 'nas_port_type']
const OPERATORS: Condition['operator'][] = ['equals', 'contains', 'starts_with']
const FIELDS = ['name', 'description', 'device_type', 'certainty', 'enabled', 'conditions']

export function ProfilingRuleForm({ rule, onClose }: { rule: ProfilingRule | null; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/nac/profiling-rules')
  const qc = useQueryClient()
  const [v, setV] = useState({
    name: rule?.name ?? '', description: rule?.description ?? '', deviceType: rule?.device_type ?? '', certainty: (rule?.certainty ?? 50) as number | string, enabled: rule?.enabled ?? true,
    conditions: rule?.conditions ?? ([{ attribute: 'vendor', operator: 'starts_with', value: '' }] as Condition[]),
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const put = (i: number, c: Partial<Condition>) => set('conditions', v.conditions.map((x, j) => (j === i ? { ...x, ...c } : x)))
  const save = useMutation({
    mutationFn: async () => {
      const body = { name: v.name, description: v.description || null, device_type: v.deviceType, certainty: Number(v.certainty), enabled: v.enabled, conditions: v.conditions }
      if (rule) await api.put('/api/v1/nac/profiling-rules/{rule_id}', { params: { rule_id: rule.id }, body })
      else await api.post('/api/v1/nac/profiling-rules', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['nac'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  const at = (i: number) => (save.error instanceof ApiError && save.error.field?.startsWith(`conditions[${i}]`) ? save.error.message : undefined)
  const shown = save.error instanceof ApiError && save.error.field?.startsWith('conditions[') ? [...FIELDS, save.error.field] : FIELDS
  return (
    <FormDialog title={rule ? t.nac.editProfilingRule : t.nac.addProfilingRule} size="xl" testId="profiling-rule-form" error={save.error} fields={shown} pending={save.isPending} editing={!!rule} onClose={onClose} onSubmit={() => save.mutate()}>
      <Group grow align="flex-start">
        <TextInput label={t.nac.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
        <TextInput label={t.nac.deviceType} name="device_type" required placeholder="printer" value={v.deviceType} onChange={(e) => set('deviceType', e.currentTarget.value)} error={err('device_type')} />
        <NumberInput label={t.nac.certainty} name="certainty" min={0} max={100} clampBehavior="none" allowDecimal={false} value={v.certainty} onChange={(x) => set('certainty', x)} error={err('certainty')} />
      </Group>
      <Text size="sm" fw={500}>{t.nac.conditions}</Text>
      {v.conditions.map((c, i) => (
        <Stack key={i} gap={2}>
          <Group align="flex-start" wrap="nowrap">
            <Select aria-label={`${t.nac.evidenceLabel} ${i + 1}`} allowDeselect={false} data={ATTRIBUTES.map((a) => ({ value: a, label: t.nac.evidence[a] }))} value={c.attribute} onChange={(x) => x && put(i, { attribute: x as Condition['attribute'] })} w={220} />
            <Select aria-label={`${t.nac.operator} ${i + 1}`} allowDeselect={false} data={OPERATORS.map((o) => ({ value: o, label: t.nac.operators[o] }))} value={c.operator} onChange={(x) => x && put(i, { operator: x as Condition['operator'] })} w={150} />
            <TextInput aria-label={`${t.nac.values} ${i + 1}`} name={`conditions[${i}].value`} value={c.value} onChange={(e) => put(i, { value: e.currentTarget.value })} style={{ flex: 1 }} error={at(i)} />
            <ActionIcon variant="subtle" color="red" mt={4} disabled={v.conditions.length === 1} aria-label={`${t.nac.removeCondition} ${i + 1}`} onClick={() => set('conditions', v.conditions.filter((_, j) => j !== i))}>✕</ActionIcon>
          </Group>
        </Stack>
      ))}
      {v.conditions.length < 10 && (
        <Group><Button variant="light" size="xs" onClick={() => set('conditions', [...v.conditions, { attribute: 'dhcp_class_id', operator: 'contains', value: '' }])}>{t.nac.addCondition}</Button></Group>
      )}
      <Textarea label={t.nac.description} name="description" autosize minRows={2} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
      <Switch label={t.nac.enabled} checked={v.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
    </FormDialog>
  )
}
