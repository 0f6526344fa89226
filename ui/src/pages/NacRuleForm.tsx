/**
 * Create or change a NAC rule, in a dialog: name, the authorization profile a
 * match gets, the conditions (all must hold), description, enabled. The
 * default rule keeps no conditions and stays enabled: only its name, profile
 * and description change. A refusal shows under its input or condition.
 */
import { Group, Switch, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, ApiError } from '../api/client'
import { fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { conditionInput, NacConditions } from './NacConditions'
import type { NacCondition, NacRule } from './nac-data'
import { SearchSelect } from '../components/SearchSelect'
import { authorizationProfilePicker } from './pickers'
import { FormDialog, useAllowed } from '../components/crud'

const FIELDS = ['name', 'description', 'authorization_profile_id', 'enabled']
const conditionField = (f: string | null | undefined) => !!f && (f === 'conditions' || f.startsWith('conditions['))

export function NacRuleForm({ rule, onClose }: { rule: NacRule | null; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/nac/policy/rules')
  const qc = useQueryClient()
  const [v, setV] = useState({
    name: rule?.name ?? '', description: rule?.description ?? '', enabled: rule?.enabled ?? true, profile: rule?.authorization_profile_id ?? null,
    conditions: (rule?.conditions ?? []).map(conditionInput) as NacCondition[],
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const fixed = !!rule?.is_default
  const save = useMutation({
    mutationFn: async () => {
      const common = { name: v.name, description: v.description || null, authorization_profile_id: v.profile ?? '' }
      const body = fixed ? common : { ...common, enabled: v.enabled, conditions: v.conditions }
      if (rule) await api.put('/api/v1/nac/policy/rules/{rule_id}', { params: { rule_id: rule.id }, body })
      else await api.post('/api/v1/nac/policy/rules', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['nac'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  // The groups the rule names, with the names the server gave (the pickers need not look them up).
  const named = (rule?.conditions ?? []).flatMap((c) => c.groups ?? []).flatMap((g) => (g.name ? [{ value: g.id, label: g.name }] : []))
  // A condition's refusal shows under its row, not in the alert.
  const shown = save.error instanceof ApiError && save.error.field && conditionField(save.error.field) ? [...FIELDS, save.error.field] : FIELDS
  return (
    <FormDialog title={rule ? t.nac.editRule : t.nac.addRule} size="xl" testId="nac-rule-form" error={save.error} fields={shown} pending={save.isPending} editing={!!rule} onClose={onClose} onSubmit={() => save.mutate()}>
      <Group grow align="flex-start">
        <TextInput label={t.nac.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
        <SearchSelect label={t.nac.profile} name="authorization_profile_id" required source={authorizationProfilePicker} selectedLabel={v.profile === rule?.authorization_profile_id ? rule?.authorization_profile_name : null} value={v.profile} onChange={(x) => set('profile', x)} error={err('authorization_profile_id')} />
      </Group>
      {!fixed && <NacConditions value={v.conditions} onChange={(x) => set('conditions', x)} named={named} error={save.error} />}
      <Textarea label={t.nac.description} name="description" autosize minRows={2} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
      {!fixed && <Switch label={t.nac.enabled} checked={v.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />}
    </FormDialog>
  )
}
