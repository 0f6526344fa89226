/**
 * What a refused deploy says in the console: the line under a failed release's status in the
 * history (its `failure_reason`, localized: a FreeRADIUS release stopped by the tac_plus-ng check
 * says so, and that it can be deployed alone), a checker's output folded under its first line that
 * says something (a tac_plus-ng refusal can run to pages), and, after "Deploy all" was refused, a
 * button per daemon whose own check passed ("Deploy freeradius only").
 */
import { Alert, Button, Code, Group, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { api, ApiError } from '../api/client'
import type { Deploy } from '../api/types'
import { useI18n } from '../i18n'

const WRAP = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const
type Reasoned = Pick<Deploy, 'status' | 'daemon' | 'failure_reason' | 'blocked_by'>

/** The readable reason of a failed release, or null (another status, or recorded before reasons were). */
export function useFailureLine(): (d: Reasoned) => string | null {
  const { t } = useI18n()
  return (d) => {
    if (d.status !== 'failed' || !d.failure_reason) return null
    const r = t.deployFailure.reason
    if (d.failure_reason === 'not_activated') return r.not_activated(d.daemon, d.blocked_by.join(', '))
    return d.failure_reason === 'interrupted' ? r.interrupted() : r[d.failure_reason](d.daemon)
  }
}

/** The first line of a checker's output that says something: blank lines say nothing. */
export const summaryLine = (output: string) => output.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? ''

/** A check's output: one line as it is; more, folded under the first meaningful one. */
export function CheckOutput({ output }: { output: string }) {
  const { t } = useI18n()
  const lines = output.trim().split('\n')
  if (lines.length <= 1) return <Code block style={WRAP} data-testid="check-output">{output}</Code>
  return (
    <details data-testid="check-output-folded">
      <summary style={{ cursor: 'pointer' }}>
        <Text span ff="monospace" size="sm" style={{ overflowWrap: 'anywhere' }}>{summaryLine(output)}</Text>{' '}
        <Text span c="dimmed" size="xs">({t.deployFailure.outputOf(lines.length)})</Text>
      </summary>
      <Code block style={WRAP} data-testid="check-output">{output}</Code>
    </details>
  )
}

const REFUSED = new Set(['DEPLOY_CHECK_FAILED', 'DEPLOY_CHECK_SKIPPED'])

/**
 * After a refused deploy of every daemon: the releases of that deploy (the newest failed ones,
 * recorded together) whose own check passed, each offered alone. A deploy of one daemon offers nothing.
 */
export function DeployAlone({ error, all, busy, onDeploy }: { error: unknown; all: boolean; busy: boolean; onDeploy(daemon: string): void }) {
  const { t } = useI18n()
  const refused = all && error instanceof ApiError && REFUSED.has(error.code)
  const failed = useQuery({
    queryKey: ['deploys', 'refused', refused ? error.message : null],
    queryFn: () => api.get('/api/v1/deploys', { query: { status: 'failed', per_page: 50, sort_by: 'created_at', sort_order: 'desc' } }),
    enabled: refused,
  })
  if (!refused || !failed.data?.items.length) return null
  // One deploy's rows share their creation time.
  const newest = failed.data.items.filter((d) => d.created_at === failed.data.items[0].created_at)
  const alone = newest.filter((d) => d.failure_reason === 'not_activated')
  if (!alone.length) return null
  const by = [...new Set(alone.flatMap((d) => d.blocked_by))].join(', ')
  return (
    <Alert color="blue" data-testid="deploy-alone">
      <Text size="sm" mb="xs">{t.deployFailure.suggestion(alone.map((d) => d.daemon).join(', '), by)}</Text>
      <Group gap="xs">
        {alone.map((d) => <Button key={d.daemon} size="compact-sm" disabled={busy} onClick={() => onDeploy(d.daemon)}>{t.deployFailure.deployOnly(d.daemon)}</Button>)}
      </Group>
    </Alert>
  )
}
