/**
 * The conditions of a NAC rule: one row per condition, at most one of each
 * type (the API's rule: several values in one condition are an OR, several
 * conditions an AND). Each type shows the input its values need; a refusal at
 * `conditions[i]…` shows under its row.
 */
import { ActionIcon, Group, MultiSelect, Paper, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core'
import { ApiError } from '../api/client'
import { useI18n } from '../i18n'
import type { NacCondition } from './nac-data'
import { SearchMultiSelect, type Option } from '../components/SearchSelect'
import { groupOptions, useAllGroups } from './groups-data'
import { endpointGroupPicker, userGroupPicker } from './pickers'

export type ConditionType = NacCondition['type']
const TYPES: ConditionType[] = ['method', 'user_group', 'endpoint_group', 'device_type', 'device_group', 'certificate', 'nas_port_type', 'time_window']
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
// The NAS-Port-Types switches and controllers send for 802.1X and MAB (any FreeRADIUS name may be typed).
const PORT_TYPES = ['Ethernet', 'Wireless-802.11', 'Virtual', 'Wireless-Other']

/** An empty condition of a type, with what it needs. */
function blank(type: ConditionType): NacCondition {
  if (type === 'method') return { type, methods: [] }
  if (type === 'certificate') return { type, field: 'issuer_cn', values: [] }
  if (type === 'time_window') return { type, days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' }
  if (type === 'device_type') return { type, device_types: [] }
  if (type === 'nas_port_type') return { type, values: [] }
  return { type, group_ids: [] }
}

/** The condition as the API takes it (the response adds `groups` and `label`, which a request must not carry). */
export const conditionInput = (c: NacCondition & { groups?: unknown; label?: unknown }): NacCondition => {
  const { groups: _g, label: _l, ...rest } = c
  return rest
}

/** `named`: groups whose names are known already (the rule being edited names them). */
export function NacConditions({ value, onChange, named, error }: { value: NacCondition[]; onChange(v: NacCondition[]): void; named: Option[]; error: unknown }) {
  const { t } = useI18n()
  // Device groups are a tree, shown whole (the inventory may be absent: none then).
  const deviceGroups = useAllGroups()
  const used = new Set(value.map((c) => c.type))
  const free = TYPES.filter((x) => !used.has(x))
  const put = (i: number, c: NacCondition) => onChange(value.map((x, j) => (j === i ? c : x)))
  const errorAt = (i: number) => (error instanceof ApiError && error.field?.startsWith(`conditions[${i}]`) ? error.message : undefined)
  const list = (x: string[] | undefined) => x ?? []
  return (
    <Stack gap="xs" data-testid="conditions">
      <Text size="sm" fw={500}>{t.nac.conditions}</Text>
      {value.length === 0 && <Text size="sm" c="dimmed">{t.nac.everyRequest}</Text>}
      {value.map((c, i) => {
        const label = t.nac.conditionTypes[c.type]
        let input
        if (c.type === 'method') input = <MultiSelect aria-label={label} data={['peap', 'eap-tls', 'mab']} value={list(c.methods)} onChange={(x) => put(i, { ...c, methods: x as NacCondition['methods'] })} />
        else if (c.type === 'device_group') input = <MultiSelect aria-label={label} searchable data={groupOptions(deviceGroups.data ?? [])} value={list(c.group_ids)} onChange={(x) => put(i, { ...c, group_ids: x })} />
        else if (c.type === 'user_group' || c.type === 'endpoint_group') input = <SearchMultiSelect aria-label={label} source={c.type === 'user_group' ? userGroupPicker : endpointGroupPicker} known={named} value={list(c.group_ids)} onChange={(x) => put(i, { ...c, group_ids: x })} />
        else if (c.type === 'device_type') input = <TagsInput aria-label={label} description={t.nac.valuesHint} value={list(c.device_types)} onChange={(x) => put(i, { ...c, device_types: x })} />
        else if (c.type === 'nas_port_type') input = <TagsInput aria-label={label} data={PORT_TYPES} value={list(c.values)} onChange={(x) => put(i, { ...c, values: x })} />
        else if (c.type === 'certificate')
          input = (
            <Group grow align="flex-start">
              <Select aria-label={t.nac.certField} allowDeselect={false} data={(['issuer_cn', 'san_email', 'san_dns'] as const).map((f) => ({ value: f, label: t.nac.certFields[f] }))} value={c.field ?? 'issuer_cn'} onChange={(x) => put(i, { ...c, field: (x ?? 'issuer_cn') as NacCondition['field'] })} />
              <TagsInput aria-label={t.nac.values} value={list(c.values)} onChange={(x) => put(i, { ...c, values: x })} />
            </Group>
          )
        else
          input = (
            <Group grow align="flex-start">
              <MultiSelect aria-label={t.nac.days} data={[...DAYS]} value={list(c.days)} onChange={(x) => put(i, { ...c, days: x as NacCondition['days'] })} />
              <TextInput aria-label={t.nac.start} placeholder="08:00" value={c.start ?? ''} onChange={(e) => put(i, { ...c, start: e.currentTarget.value })} maw={100} />
              <TextInput aria-label={t.nac.end} placeholder="18:00" value={c.end ?? ''} onChange={(e) => put(i, { ...c, end: e.currentTarget.value })} maw={100} />
            </Group>
          )
        const err = errorAt(i)
        return (
          <Paper key={c.type} withBorder p="xs" data-condition={c.type} aria-invalid={!!err}>
            <Group align="flex-start" wrap="nowrap">
              <Text size="sm" w={150} pt={6} fw={500}>{label}</Text>
              <Stack gap={2} style={{ flex: 1 }}>
                {input}
                {err && <Text size="xs" c="red" role="alert" data-testid="condition-error">{err}</Text>}
              </Stack>
              <ActionIcon variant="subtle" color="red" mt={4} aria-label={`${t.nac.removeCondition}: ${label}`} onClick={() => onChange(value.filter((_, j) => j !== i))}>✕</ActionIcon>
            </Group>
          </Paper>
        )
      })}
      {free.length > 0 && (
        <Group>
          <Select aria-label={t.nac.addCondition} placeholder={t.nac.addCondition} data={free.map((x) => ({ value: x, label: t.nac.conditionTypes[x] }))} value={null} onChange={(x) => x && onChange([...value, blank(x as ConditionType)])} w={260} />
        </Group>
      )}
    </Stack>
  )
}
