/**
 * Two parts of the rule form: the rule's time window (days, from, until, in
 * the daemons' local time; off means always) and the rule's TACACS+ preview
 * (GET …/tacacs/preview: the tac_plus-ng text the saved rule renders to, and
 * its profile's), fetched when asked.
 */
import { Button, Checkbox, Chip, Code, Group, Loader, Stack, Text, TextInput } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api, ApiError } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type Day = (typeof DAYS)[number]
export type TimeWindowValue = { on: boolean; days: Day[]; start: string; end: string }

export function TimeWindowInput({ value, onChange, error }: { value: TimeWindowValue; onChange(w: TimeWindowValue): void; error: unknown }) {
  const { t } = useI18n()
  const set = (w: Partial<TimeWindowValue>) => onChange({ ...value, ...w })
  const f = error instanceof ApiError ? error.field ?? '' : ''
  return (
    <Stack gap={6} role="group" aria-label={t.config.timeWindow} data-testid="time-window">
      <Checkbox label={t.config.timeWindowOn} checked={value.on} onChange={(e) => set({ on: e.currentTarget.checked })} />
      {value.on && (
        <>
          <Chip.Group multiple value={value.days} onChange={(d) => set({ days: DAYS.filter((x) => d.includes(x)) })}>
            <Group gap={4} aria-label={t.config.days} role="group">
              {DAYS.map((d) => <Chip key={d} value={d} size="xs">{t.config.dayNames[d]}</Chip>)}
            </Group>
          </Chip.Group>
          {(f === 'time_window' || f.startsWith('time_window.days')) && <Text size="sm" c="red">{(error as ApiError).message}</Text>}
          <Group grow align="flex-start">
            <TextInput label={t.config.start} name="time_window.start" placeholder="08:00" value={value.start} onChange={(e) => set({ start: e.currentTarget.value })} error={fieldError(error, 'time_window.start')} />
            <TextInput label={t.config.end} name="time_window.end" placeholder="18:00" value={value.end} onChange={(e) => set({ end: e.currentTarget.value })} error={fieldError(error, 'time_window.end')} />
          </Group>
          <Text size="xs" c="dimmed">{t.config.timeWindowHint}</Text>
        </>
      )}
    </Stack>
  )
}

export function RulePreview({ ruleId }: { ruleId: string }) {
  const { t } = useI18n()
  const [shown, setShown] = useState(false)
  const q = useQuery({ queryKey: ['aaa-policy', 'preview', ruleId], queryFn: () => api.get('/api/v1/aaa/policy/rules/{rule_id}/tacacs/preview', { params: { rule_id: ruleId } }), enabled: shown, gcTime: 0 })
  if (!shown) return <Button variant="light" w="fit-content" onClick={() => setShown(true)}>{t.config.preview}</Button>
  return (
    <Stack gap={4} data-testid="rule-preview">
      <Text size="sm" fw={500}>{t.config.preview}</Text>
      <Text size="xs" c="dimmed">{t.config.previewHint}</Text>
      {q.isPending && <Loader size="sm" aria-label={t.common.loading} />}
      <ErrorAlert error={q.error} />
      {q.data && <Code block style={{ overflowX: 'auto' }}>{q.data.snippet}</Code>}
      {q.data?.profile_snippet && (
        <>
          <Text size="sm" fw={500}>{t.config.previewProfile}</Text>
          <Code block style={{ overflowX: 'auto' }}>{q.data.profile_snippet}</Code>
        </>
      )}
    </Stack>
  )
}
