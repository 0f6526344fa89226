/**
 * Beside the dry run's diff: whose access changes if this is deployed. One
 * block a report (AAA policy, NAC policy): its sentence built here from its
 * numbers in the screen's language, the window replayed, a bound reached, or
 * why it is not shown (plugin not loaded, no permission, an error); the
 * drill-down (ImpactDrilldown) under Details. The sentences shown are what a
 * deploy records in its audit entry (impactText).
 */
import { Alert, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core'
import { useI18n } from '../i18n'
import type { Messages } from '../i18n/en'
import type { ImpactResult } from './impact-data'
import { ImpactDrilldown } from './ImpactDrilldown'

/** The sentence of one report, or why it has none. */
export function resultText(t: Messages, r: ImpactResult): string {
  if ('impact' in r) return t.impact.sentence(r.impact.summary)
  if (r.state === 'unavailable') return t.impact.states.unavailable
  if (r.state === 'forbidden') return t.impact.states.forbidden
  return t.impact.states.failed(r.error ?? '')
}

/** What the screen showed, one line a report: kept in the deploy's audit entry. */
export function impactText(t: Messages, results: ImpactResult[]): string {
  return results.map((r) => `${t.impact.sources[r.source.name]}: ${resultText(t, r)}`).join('\n')
}

export function ImpactPanel({ results, pending }: { results: ImpactResult[] | undefined; pending: boolean }) {
  const { t } = useI18n()
  return (
    <Paper withBorder p="md" data-testid="impact">
      <Stack>
        <Title order={2} size="h4">{t.impact.title}</Title>
        {pending && (
          <Group gap="xs" role="status">
            <Loader size="sm" />
            <Text size="sm">{t.impact.checking}</Text>
          </Group>
        )}
        {!pending && results?.map((r) => <ImpactBlock key={r.source.name} result={r} />)}
      </Stack>
    </Paper>
  )
}

function ImpactBlock({ result: r }: { result: ImpactResult }) {
  const { t } = useI18n()
  const denied = 'impact' in r && r.impact.summary.permit_to_deny.requests > 0
  return (
    <Stack gap="xs" data-testid={`impact-${r.source.name}`} data-state={r.state}>
      <Text fw={600}>{t.impact.sources[r.source.name]}</Text>
      {'impact' in r ? (
        <>
          <Text c={denied ? 'red' : undefined} data-testid="impact-summary">{t.impact.sentence(r.impact.summary)}</Text>
          <Text size="sm" c="dimmed">{t.impact.replayed(r.impact.requests.distinct, r.impact.requests.events, r.impact.window.days)}</Text>
          {(r.impact.requests.unaffected?.events ?? 0) > 0 && <Text size="sm" c="dimmed" data-testid="impact-unaffected">{t.impact.unaffected(r.impact.requests.unaffected!.events)}</Text>}
          {r.impact.limits.reached && (
            <Alert color="orange" data-testid="impact-limit">
              {r.impact.limits.reached === 'max_requests' ? t.impact.limits.max_requests(r.impact.limits.max_requests) : t.impact.limits.time_budget(r.impact.limits.time_budget_seconds)}
            </Alert>
          )}
          <ImpactDrilldown result={r} impact={r.impact} />
        </>
      ) : (
        <Text size="sm" c={r.state === 'failed' ? 'red' : 'dimmed'} data-testid="impact-unavailable">{resultText(t, r)}</Text>
      )}
    </Stack>
  )
}
