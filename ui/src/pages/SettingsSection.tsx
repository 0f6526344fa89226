/**
 * One section of the settings screen, folded in an accordion: its title, how many settings it holds and
 * how many are changed and not saved; open, its settings (those the search matches) and ONE save for the
 * section. The save sends every changed setting of the section (one PUT each, the shown and the hidden
 * by the search alike): those accepted are saved and leave the draft, each refusal stays under its input
 * with the value typed, so the section stays marked until it is fixed or discarded.
 */
import { Accordion, Alert, Badge, Button, Group, Stack, Text } from '@mantine/core'
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useI18n } from '../i18n'
import type { Setting } from './identity-data'
import { SettingField } from './SettingField'
import { draftOf, isChanged, type Section, valueOf } from './settings-model'

interface Props {
  section: Section<Setting>
  /** The settings of the section the search matches (all without a search). */
  shown: Setting[]
  drafts: Record<string, unknown>
  errors: Record<string, string>
  canWrite: boolean
  onChange(key: string, draft: unknown): void
  /** After a save: the keys saved (their drafts go) and the refusals by key. */
  onSaved(saved: string[], errors: Record<string, string>): void
  onDiscard(keys: string[]): void
}

export function SettingsSection({ section, shown, drafts, errors, canWrite, onChange, onSaved, onDiscard }: Props) {
  const { t } = useI18n()
  const qc = useQueryClient()
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<{ ok: number; failed: number } | null>(null)
  const changed = section.settings.filter((s) => Object.hasOwn(drafts, s.key) && isChanged(s, drafts[s.key]))

  const save = async () => {
    setBusy(true)
    setResult(null)
    const refused: Record<string, string> = {}
    const saved: Setting[] = []
    await Promise.all(changed.map(async (s) => {
      const v = valueOf(s, drafts[s.key])
      if (!('value' in v)) {
        refused[s.key] = t.settings.invalidJson
        return
      }
      try {
        saved.push(await api.put('/api/v1/settings/{key}', { params: { key: s.key }, body: { value: v.value } }))
      } catch (e) {
        refused[s.key] = e instanceof Error ? e.message : String(e)
      }
    }))
    // The saved values at once (the inputs show them), then the list as the server has it.
    const byKey = new Map(saved.map((s) => [s.key, s]))
    qc.setQueryData<Setting[]>(['settings'], (list) => list?.map((s) => byKey.get(s.key) ?? s))
    onSaved([...byKey.keys()], refused)
    setResult({ ok: saved.length, failed: Object.keys(refused).length })
    setBusy(false)
    await qc.invalidateQueries({ queryKey: ['settings'] })
  }

  const unsaved = changed.length > 0
  return (
    <Accordion.Item value={section.id} data-settings-section={section.id} data-unsaved={unsaved || undefined}>
      <Accordion.Control>
        <Group gap="xs" wrap="wrap">
          <Text fw={600} component="span">{section.title}</Text>
          <Text size="xs" c="dimmed" component="span">{t.settings.count(section.settings.length)}</Text>
          {unsaved && <Badge color="#b34700" variant="filled" data-unsaved-badge>{t.settings.unsaved(changed.length)}</Badge>}
        </Group>
      </Accordion.Control>
      <Accordion.Panel>
        <Stack gap="xs">
          {shown.map((s) => (
            <SettingField key={s.key} setting={s} draft={Object.hasOwn(drafts, s.key) ? drafts[s.key] : draftOf(s)} error={errors[s.key]} canWrite={canWrite} onChange={(d) => {
              setResult(null)
              onChange(s.key, d)
            }} />
          ))}
          {canWrite && (
            <Group gap="xs">
              <Button onClick={() => void save()} loading={busy} disabled={!unsaved} aria-label={t.settings.saveSection(section.title)}>{t.common.save}</Button>
              <Button variant="default" disabled={!unsaved || busy} onClick={() => {
                setResult(null)
                onDiscard(section.settings.map((s) => s.key))
              }}>{t.settings.discard}</Button>
            </Group>
          )}
          {result && result.failed === 0 && <Alert color="green" role="status" p="xs">{t.settings.saved(result.ok)}</Alert>}
          {result && result.failed > 0 && <Alert color="red" role="alert" p="xs">{t.settings.partly(result.ok, result.failed)}</Alert>}
        </Stack>
      </Accordion.Panel>
    </Accordion.Item>
  )
}
