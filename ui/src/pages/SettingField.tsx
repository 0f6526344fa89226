/**
 * One setting on the settings screen: its label in words with the key small beside it, the description
 * (the console's, else the server's), an input that fits its schema (switch, number, choice, text, JSON;
 * a secret write-only, showing only whether it is set), its default, "changed" while the draft is not the
 * saved value, "back to the default" only while the draft is not the default, and its error under it.
 */
import { Badge, Button, Group, JsonInput, NumberInput, PasswordInput, Select, Stack, Switch, Text, TextInput } from '@mantine/core'
import type { ReactNode } from 'react'
import { useI18n } from '../i18n'
import type { Setting } from './identity-data'
import { defaultDraft, differsFromDefault, isChanged, shown, wordsOf } from './settings-model'
import { settingInput } from './setting-input'

interface Props {
  setting: Setting
  draft: unknown
  error?: string
  canWrite: boolean
  onChange(draft: unknown): void
}

export function SettingField({ setting, draft: v, error, canWrite, onChange }: Props) {
  const { t } = useI18n()
  const w = wordsOf(t.settings, setting.key)
  const input = settingInput(setting.schema)
  const changed = isChanged(setting, v)
  const name = w?.label ?? setting.key
  // The "changed" marks are a dark orange filled badge: Mantine's light orange fails axe's contrast on white.
  const label: ReactNode = (
    <Group component="span" gap={8} wrap="wrap" display="inline-flex">
      <span>{name}</span>
      {w && <Text span size="xs" c="dimmed" ff="monospace" data-setting-key>{setting.key}</Text>}
      {changed && <Badge component="span" size="xs" color="#b34700" variant="filled" data-changed>{t.settings.changed}</Badge>}
    </Group>
  )
  let description = w?.description ?? setting.description
  if (setting.secret) description = `${description} ${t.settings.secret} (${setting.value === null ? t.settings.secretUnset : t.settings.secretSet})`
  const common = { label, description, error, name: setting.key, disabled: !canWrite }
  let field
  if (input.kind === 'boolean') field = <Switch {...common} checked={v === true} onChange={(e) => onChange(e.currentTarget.checked)} />
  else if (input.kind === 'number') field = <NumberInput {...common} value={typeof v === 'number' ? v : ''} min={input.min} max={input.max} clampBehavior="none" allowDecimal={!input.integer} onChange={(x) => onChange(x === '' ? null : Number(x))} w={320} maw="100%" />
  else if (input.kind === 'choice') field = <Select {...common} data={input.choices} value={typeof v === 'string' ? v : null} clearable={input.nullable} allowDeselect={false} onChange={(x) => onChange(x)} w={320} maw="100%" />
  else if (setting.secret) field = <PasswordInput {...common} autoComplete="off" value={String(v ?? '')} onChange={(e) => onChange(e.currentTarget.value)} maw={480} />
  else if (input.kind === 'string') field = <TextInput {...common} value={String(v ?? '')} maxLength={input.maxLength} onChange={(e) => onChange(e.currentTarget.value)} maw={480} />
  else field = <JsonInput {...common} value={String(v ?? '')} autosize minRows={2} maxRows={12} onChange={(x) => onChange(x)} />
  return (
    <Stack gap={4} data-setting={setting.key} data-changed={changed || undefined} py={6}>
      {field}
      <Group gap="xs" wrap="wrap">
        {!setting.secret && <Text size="xs" c="dimmed">{t.settings.default(setting.default === null ? t.settings.empty : shown(setting.default))}</Text>}
        {canWrite && differsFromDefault(setting, v) && (
          <Button size="compact-xs" variant="subtle" onClick={() => onChange(defaultDraft(setting))} aria-label={t.settings.resetOf(name)} data-reset>{t.settings.reset}</Button>
        )}
      </Group>
    </Stack>
  )
}
