/**
 * The deploy history (GET /deploys): when, daemon, release, status (why a release was not
 * activated beneath it), who, comment; sorted by when, daemon or status with their headers,
 * filtered by daemon and status, 20 a page (or 50, 100), all of it in the address under the
 * route's names (list-state.ts) beside `deploy`, the release whose details are open (the dashboard
 * links to `/deploys?deploy=…`). A superseded or rolled-back release can be rolled back to; there is
 * no bulk action: a rollback makes one release active, and is asked about one at a time.
 */
import { Badge, Button, Group, Paper, Select, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { api } from '../api/client'
import type { Deploy } from '../api/types'
import { ErrorAlert } from '../components/errors'
import type { ListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { useI18n } from '../i18n'
import { STATUS_COLOR } from './DeployDetails'
import { useFailureLine } from './DeployFailure'
import { when } from './format'

/** The columns GET /deploys sorts by (its `sort_by` allow-list). */
export const DEPLOY_SORTS = ['created_at', 'daemon', 'status'] as const
/** The history's filters, and `deploy` (the details open), in the address. */
export const DEPLOY_FILTERS = ['daemon', 'status', 'deploy'] as const
const STATUSES = ['pending', 'active', 'failed', 'superseded', 'rolled_back'] as const
type Status = (typeof STATUSES)[number]
const isStatus = (s: string | null): s is Status => (STATUSES as readonly (string | null)[]).includes(s)

export function DeployHistory({ list, daemons, canWrite, busy, onOpen, onRollback }: {
  list: ListState<(typeof DEPLOY_SORTS)[number], (typeof DEPLOY_FILTERS)[number]>
  daemons: string[]
  canWrite: boolean
  busy: boolean
  onOpen(id: string): void
  onRollback(d: Deploy): void
}) {
  const { t, language } = useI18n()
  const failureLine = useFailureLine()
  const { daemon, status } = list.filters
  const history = useQuery({
    queryKey: ['deploys', 'history', list.query, daemon, status],
    queryFn: () => api.get('/api/v1/deploys', { query: { ...list.query, daemon: daemon ?? undefined, status: isStatus(status) ? status : undefined } }),
    placeholderData: keepPreviousData,
  })
  return (
    <Paper withBorder p="md" data-testid="history">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">{t.deploys.history}</Title>
          <Group gap="xs">
            <Select aria-label={t.lists.statusFilter} placeholder={t.lists.anyStatus} clearable data={STATUSES.map((s) => ({ value: s, label: t.deploys.status[s] }))} value={isStatus(status) ? status : null} onChange={(s) => list.setFilter('status', s)} w={180} />
            <Select aria-label={t.dashboard.daemon} placeholder={t.deploys.allDaemons} clearable data={daemon && !daemons.includes(daemon) ? [...daemons, daemon] : daemons} value={daemon} onChange={(d) => list.setFilter('daemon', d)} w={220} />
          </Group>
        </Group>
        <ErrorAlert error={history.error} />
        <Table.ScrollContainer minWidth={800}>
          <Table striped aria-label={t.deploys.history} data-testid="history-table">
            <Table.Thead>
              <Table.Tr>
                <SortTh list={list} sort="created_at">{t.dashboard.at}</SortTh><SortTh list={list} sort="daemon">{t.dashboard.daemon}</SortTh><Table.Th>{t.dashboard.release}</Table.Th><SortTh list={list} sort="status">{t.dashboard.status}</SortTh>
                <Table.Th>{t.dashboard.who}</Table.Th><Table.Th>{t.deploys.comment}</Table.Th>{canWrite && <Table.Th />}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {history.data?.items.map((d) => (
                <Table.Tr key={d.id} data-status={d.status} data-release={d.release} data-daemon={d.daemon}>
                  <Table.Td>{when(d.created_at, language)}</Table.Td>
                  <Table.Td>{d.daemon}</Table.Td>
                  <Table.Td>
                    <UnstyledButton ff="monospace" fz="sm" td="underline" onClick={() => onOpen(d.id)} aria-label={t.deploys.detailsOf(d.daemon, d.release)}>{d.release}</UnstyledButton>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLOR[d.status]} title={d.check_output ?? undefined} styles={{ label: { overflow: 'visible' } }}>{t.deploys.status[d.status]}</Badge>
                    {/* Why it was not activated, readable where the eye is (not only in the tooltip). */}
                    {failureLine(d) && <Text size="xs" c="dimmed" maw={320} mt={2} data-testid="failure-reason">{failureLine(d)}</Text>}
                  </Table.Td>
                  <Table.Td>{d.actor_name ?? t.common.none}</Table.Td>
                  <Table.Td>{d.comment ?? t.common.none}</Table.Td>
                  {canWrite && (
                    <Table.Td>
                      {(d.status === 'superseded' || d.status === 'rolled_back') && (
                        <Button size="compact-sm" variant="subtle" disabled={busy} aria-label={`${t.deploys.rollback} ${d.daemon} ${d.release}`}
                          onClick={() => onRollback(d)}>{t.deploys.rollback}</Button>
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {history.data && history.data.total === 0 && <Text c="dimmed">{t.deploys.noHistory}</Text>}
        <TableFooter list={list} data={history.data} testId="history-total" />
      </Stack>
    </Paper>
  )
}
