/**
 * Make a certificate template: what a certificate under it may name (name
 * patterns, subject attributes, SAN types) and do (key usage, extended key
 * usage), how long, and the weakest key. A bad name pattern is refused under
 * the patterns (`name_patterns[i]`).
 */
import { Checkbox, Group, NumberInput, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import type { components } from '../generated/api'
import { FormDialog, useAllowed } from '../components/crud'

type Body = components['schemas']['TemplateCreate']
const KEY_USAGE = ['digitalSignature', 'nonRepudiation', 'keyEncipherment', 'dataEncipherment', 'keyAgreement'] as const
const EKU = ['serverAuth', 'clientAuth'] as const
const ATTRIBUTES = ['CN', 'O', 'OU', 'C', 'ST', 'L', 'emailAddress', 'serialNumber'] as const
const SAN_TYPES = ['dns', 'ip', 'email', 'uri'] as const
const PATTERN_FIELDS = Array.from({ length: 50 }, (_, i) => `name_patterns[${i}]`)
const FIELDS = ['name', 'description', 'key_usage', 'extended_key_usage', 'validity_days', 'name_patterns', 'subject_attributes', 'san_types', 'min_rsa_bits', 'min_ec_bits', ...PATTERN_FIELDS]

export function TemplateForm({ onClose }: { onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/pki/templates')
  const qc = useQueryClient()
  const [v, setV] = useState({
    name: '', description: '', keyUsage: ['digitalSignature'] as string[], eku: ['clientAuth'] as string[], days: 365 as number | string,
    patterns: '', attributes: ['CN', 'O'] as string[], sanTypes: ['dns'] as string[], rsa: 2048 as number | string, ec: 256 as number | string,
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: v.name, description: v.description || undefined, key_usage: v.keyUsage, extended_key_usage: v.eku, validity_days: Number(v.days),
        name_patterns: v.patterns.split('\n').map((p) => p.trim()).filter(Boolean), subject_attributes: v.attributes, san_types: v.sanTypes,
        min_rsa_bits: Number(v.rsa), min_ec_bits: Number(v.ec),
      } as Body
      return api.post('/api/v1/pki/templates', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['pki', 'templates'] })
      onClose()
    },
  })
  const err = (...f: string[]) => f.map((x) => fieldError(save.error, x)).find(Boolean)
  const boxes = (label: string, field: string, all: readonly string[], value: string[], key: 'keyUsage' | 'eku' | 'attributes' | 'sanTypes') => (
    <Checkbox.Group label={label} value={value} onChange={(x) => set(key, x)} error={err(field)}>
      <Group gap="sm" mt={4}>{all.map((x) => <Checkbox key={x} value={x} label={x} />)}</Group>
    </Checkbox.Group>
  )
  return (
    <FormDialog title={t.pki.templates.add} size="lg" testId="template-form" error={save.error} fields={FIELDS} pending={save.isPending} editing={false} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={t.pki.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
      <TextInput label={t.pki.templates.description} name="description" value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
      <Textarea label={t.pki.templates.patterns} name="name_patterns" required autosize minRows={2} ff="monospace" placeholder={'*.devices.example.net\nradius.example.net'} description={t.pki.templates.patternsHint}
        value={v.patterns} onChange={(e) => set('patterns', e.currentTarget.value)} error={err('name_patterns', ...PATTERN_FIELDS)} />
      {boxes(t.pki.templates.keyUsage, 'key_usage', KEY_USAGE, v.keyUsage, 'keyUsage')}
      {boxes(t.pki.templates.eku, 'extended_key_usage', EKU, v.eku, 'eku')}
      {boxes(t.pki.templates.attributes, 'subject_attributes', ATTRIBUTES, v.attributes, 'attributes')}
      {boxes(t.pki.templates.sanTypes, 'san_types', SAN_TYPES, v.sanTypes, 'sanTypes')}
      <Group grow align="flex-start">
        <NumberInput label={t.pki.validityDays} name="validity_days" min={1} max={3650} value={v.days} onChange={(x) => set('days', x)} error={err('validity_days')} />
        <NumberInput label={t.pki.templates.minRsa} name="min_rsa_bits" min={2048} step={1024} value={v.rsa} onChange={(x) => set('rsa', x)} error={err('min_rsa_bits')} />
        <NumberInput label={t.pki.templates.minEc} name="min_ec_bits" min={256} max={521} value={v.ec} onChange={(x) => set('ec', x)} error={err('min_ec_bits')} />
      </Group>
    </FormDialog>
  )
}
