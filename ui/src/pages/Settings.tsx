/**
 * Settings: every setting of the kernel and the loaded plugins (GET
 * /settings), grouped by the plugin that owns it, each with its description,
 * an input that fits its schema (switch, number, choice, text, JSON), its
 * default, and its own Save (PUT /settings/{key}): the server validates, and a
 * refusal shows under that input. A secret setting is write-only.
 */
import { Alert, Button, Card, Group, JsonInput, NumberInput, PasswordInput, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import type { Setting } from './identity-data'
import { settingInput, shown } from './setting-input'

export function Settings() {
  const { t } = useI18n()
  const list = useQuery({ queryKey: ['settings'], queryFn: () => api.get('/api/v1/settings') })
  const owners = [...new Set((list.data ?? []).map((s) => s.owner))].sort((a, b) => (a === 'kernel' ? -1 : b === 'kernel' ? 1 : a.localeCompare(b)))
  return (
    <Stack>
      <Title order={1} size="h2">{t.admin.settings.title}</Title>
      <ErrorAlert error={list.error} />
      {owners.map((o) => (
        <Stack key={o} gap="xs" component="section" aria-labelledby={`settings-${o}`}>
          <Title order={2} size="h4" id={`settings-${o}`}>{o === 'kernel' ? t.admin.settings.kernel : o}</Title>
          {list.data!.filter((s) => s.owner === o).sort((a, b) => a.key.localeCompare(b.key)).map((s) => <SettingRow key={s.key} setting={s} />)}
        </Stack>
      ))}
    </Stack>
  )
}

function SettingRow({ setting }: { setting: Setting }) {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const input = settingInput(setting.schema)
  const initial = setting.secret ? '' : input.kind === 'json' ? JSON.stringify(setting.value, null, 2) : setting.value
  const [v, setV] = useState<unknown>(initial)
  const [saved, setSaved] = useState(false)
  const [jsonBad, setJsonBad] = useState(false)
  const save = useMutation({
    mutationFn: (value: unknown) => api.put('/api/v1/settings/{key}', { params: { key: setting.key }, body: { value } }),
    onSuccess: async (r) => {
      setSaved(true)
      setV(r.secret ? '' : input.kind === 'json' ? JSON.stringify(r.value, null, 2) : r.value)
      await qc.invalidateQueries({ queryKey: ['settings'] })
    },
  })
  const canWrite = auth.can('settings.write')
  const toValue = (): unknown => {
    if (input.kind === 'json') return JSON.parse(String(v))
    if ((v === '' || v === undefined) && input.nullable) return null
    return v
  }
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setSaved(false)
    setJsonBad(false)
    let value: unknown
    try {
      value = toValue()
    } catch {
      setJsonBad(true)
      return
    }
    save.mutate(value)
  }
  const error = jsonBad ? t.admin.settings.invalidJson : fieldError(save.error, 'value')
  const common = { label: setting.key, description: setting.description, error, name: setting.key, disabled: !canWrite, labelProps: { ff: 'monospace' } }
  const change = (x: unknown) => {
    setV(x)
    setSaved(false)
  }
  let field
  if (input.kind === 'boolean') field = <Switch {...common} checked={v === true} onChange={(e) => change(e.currentTarget.checked)} />
  else if (input.kind === 'number') field = <NumberInput {...common} value={typeof v === 'number' ? v : ''} min={input.min} max={input.max} clampBehavior="none" allowDecimal={!input.integer} onChange={(x) => change(x === '' ? null : Number(x))} w={320} maw="100%" />
  else if (input.kind === 'choice') field = <Select {...common} data={input.choices} value={typeof v === 'string' ? v : null} clearable={input.nullable} onChange={(x) => change(x)} w={320} maw="100%" />
  else if (setting.secret) field = <PasswordInput {...common} description={`${setting.description} ${t.admin.settings.secret} (${setting.value === null ? t.admin.settings.secretUnset : t.admin.settings.secretSet})`} autoComplete="off" value={String(v ?? '')} onChange={(e) => change(e.currentTarget.value)} maw={480} />
  else if (input.kind === 'string') field = <TextInput {...common} value={String(v ?? '')} maxLength={input.maxLength} onChange={(e) => change(e.currentTarget.value)} maw={480} />
  else field = <JsonInput {...common} value={String(v ?? '')} autosize minRows={2} maxRows={12} onChange={(x) => change(x)} />
  return (
    <Card withBorder padding="sm" component="form" onSubmit={submit} noValidate data-setting={setting.key}>
      <Stack gap={6}>
        {field}
        <Group justify="space-between" wrap="wrap">
          <Text size="xs" c="dimmed">{t.admin.settings.default(shown(setting.default))}</Text>
          {canWrite && (
            <Group gap="xs">
              {!setting.secret && <Button size="compact-sm" variant="subtle" onClick={() => { setSaved(false); save.mutate(setting.default) }}>{t.admin.settings.reset}</Button>}
              <Button size="compact-sm" type="submit" loading={save.isPending} aria-label={`${t.common.save} ${setting.key}`}>{t.common.save}</Button>
            </Group>
          )}
        </Group>
        <ErrorAlert error={save.error} fields={['value']} />
        {saved && !save.error && <Alert color="green" role="status" p="xs">{t.admin.settings.saved(setting.key)}</Alert>}
      </Stack>
    </Card>
  )
}
