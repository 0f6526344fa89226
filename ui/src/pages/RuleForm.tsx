/**
 * Create or change a policy rule, in a dialog: WHO (a user or a user group),
 * WHERE (a device or a device group), the profiles a match gets, the client
 * prefixes. A refusal shows under its input (`who.user_id`, `client_prefixes[1]`…).
 */
import { Group, SegmentedControl, Select, Switch, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, ApiError } from '../api/client'
import type { components } from '../generated/api'
import { fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { SearchSelect } from '../components/SearchSelect'
import { groupOptions, useAllGroups } from './groups-data'
import { devicePicker, radiusProfilePicker, tacacsProfilePicker, userGroupPicker, userPicker } from './pickers'
import { RulePreview, TimeWindowInput, type TimeWindowValue } from './RuleConditions'
import { FormDialog, useAllowed } from '../components/crud'

export type Rule = components['schemas']['AaaPolicyRuleResponse']
type Body = components['schemas']['AaaPolicyRuleCreate']
const FIELDS = ['name', 'description', 'who', 'who.user_id', 'who.group_id', 'where', 'where.device_id', 'where.device_group_id', 'tacacs_profile_id', 'radius_profile_id', 'client_prefixes', 'time_window', 'time_window.start', 'time_window.end', 'time_window.days', ...Array.from({ length: 64 }, (_, i) => `client_prefixes[${i}]`)]

export function RuleForm({ rule, onClose }: { rule: Rule | null; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/aaa/policy/rules')
  const deviceGroups = useAllGroups()
  const qc = useQueryClient()
  const [v, setV] = useState({
    name: rule?.name ?? '', description: rule?.description ?? '', enabled: rule?.enabled ?? true,
    whoKind: rule?.who_group_id ? 'group' : 'user', who: rule?.who_user_id ?? rule?.who_group_id ?? null,
    whereKind: rule?.where_device_id ? 'device' : 'group', where: rule?.where_device_id ?? rule?.where_device_group_id ?? null,
    tacacs: rule?.tacacs_profile_id ?? null, radius: rule?.radius_profile_id ?? null, prefixes: (rule?.client_prefixes ?? []).join('\n'),
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const tw = rule?.time_window
  const [win, setWin] = useState<TimeWindowValue>({ on: !!tw, days: tw?.days ?? ['mon', 'tue', 'wed', 'thu', 'fri'], start: tw?.start ?? '08:00', end: tw?.end ?? '18:00' })
  const save = useMutation({
    mutationFn: async () => {
      const prefixes = v.prefixes.split(/[\s,]+/).filter(Boolean)
      const common = { name: v.name, description: v.description || null, enabled: v.enabled, tacacs_profile_id: v.tacacs, radius_profile_id: v.radius }
      // The default rule applies to anyone anywhere: only its profiles, name and description change.
      if (rule?.is_default) return void (await api.put('/api/v1/aaa/policy/rules/{rule_id}', { params: { rule_id: rule.id }, body: common }))
      const body: Body = {
        ...common,
        who: v.whoKind === 'user' ? { user_id: v.who ?? undefined } : { group_id: v.who ?? undefined },
        where: v.whereKind === 'device' ? { device_id: v.where ?? undefined } : { device_group_id: v.where ?? undefined },
        client_prefixes: prefixes,
        time_window: win.on ? { days: win.days, start: win.start, end: win.end } : null,
      }
      if (rule) await api.put('/api/v1/aaa/policy/rules/{rule_id}', { params: { rule_id: rule.id }, body })
      else await api.post('/api/v1/aaa/policy/rules', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['aaa-policy'] })
      onClose()
    },
  })
  const err = (...f: string[]) => f.map((x) => fieldError(save.error, x)).find(Boolean)
  const fixed = !!rule?.is_default
  return (
    <FormDialog title={rule ? t.policy.editTitle : t.policy.add} size="lg" testId="rule-form" error={save.error} fields={FIELDS} pending={save.isPending} editing={!!rule} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={t.policy.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
      {!fixed && (
        <>
          <Group align="flex-end" grow>
            <SegmentedControl aria-label={t.policy.who} value={v.whoKind} onChange={(x) => setV((o) => ({ ...o, whoKind: x, who: null }))} data={[{ value: 'user', label: t.policy.user }, { value: 'group', label: t.policy.userGroup }]} />
            <SearchSelect key={v.whoKind} label={t.policy.who} name="who" required source={v.whoKind === 'user' ? userPicker : userGroupPicker} value={v.who} selectedLabel={v.who === (rule?.who_user_id ?? rule?.who_group_id) ? rule?.who_name : null} onChange={(x) => set('who', x)} error={err('who', 'who.user_id', 'who.group_id')} />
          </Group>
          <Group align="flex-end" grow>
            <SegmentedControl aria-label={t.policy.where} value={v.whereKind} onChange={(x) => setV((o) => ({ ...o, whereKind: x, where: null }))} data={[{ value: 'device', label: t.policy.device }, { value: 'group', label: t.policy.deviceGroup }]} />
            {v.whereKind === 'device'
              ? <SearchSelect label={t.policy.where} name="where" required source={devicePicker} value={v.where} onChange={(x) => set('where', x)} error={err('where', 'where.device_id', 'where.device_group_id')} />
              : <Select label={t.policy.where} name="where" required searchable data={groupOptions(deviceGroups.data ?? [])} value={v.where} onChange={(x) => set('where', x)} error={err('where', 'where.device_id', 'where.device_group_id')} />}
          </Group>
        </>
      )}
      <Group grow align="flex-start">
        <SearchSelect label={t.policy.tacacsProfile} name="tacacs_profile_id" clearable placeholder={t.policy.denied} source={tacacsProfilePicker} value={v.tacacs} selectedLabel={v.tacacs === rule?.tacacs_profile_id ? rule?.tacacs_profile_name : null} onChange={(x) => set('tacacs', x)} error={err('tacacs_profile_id')} />
        <SearchSelect label={t.policy.radiusProfile} name="radius_profile_id" clearable placeholder={t.policy.denied} source={radiusProfilePicker} value={v.radius} selectedLabel={v.radius === rule?.radius_profile_id ? rule?.radius_profile_name : null} onChange={(x) => set('radius', x)} error={err('radius_profile_id')} />
      </Group>
      {!fixed && (
        <Textarea label={t.policy.clientPrefixes} name="client_prefixes" description={t.policy.clientPrefixesHint} autosize minRows={2} value={v.prefixes} onChange={(e) => set('prefixes', e.currentTarget.value)}
          error={save.error instanceof ApiError && save.error.field?.startsWith('client_prefixes') ? save.error.message : undefined} />
      )}
      {!fixed && <TimeWindowInput value={win} onChange={setWin} error={save.error} />}
      <Textarea label={t.policy.description} name="description" autosize minRows={2} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
      {!fixed && <Switch label={t.policy.enabled} checked={v.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />}
      {rule && <RulePreview ruleId={rule.id} />}
    </FormDialog>
  )
}
