/**
 * One deploy, in a drawer opened from the history (its id kept in the URL,
 * `/deploys?deploy=…`, so it can be sent to a colleague): the release and its
 * state, who deployed it and when, the files written (path, mode, and the size
 * and SHA-256 of the text with its secrets masked, as the configuration preview
 * shows it: never of the file on disk, which would let anyone test a guessed
 * secret; a dash for a release recorded before they were kept), the daemon's
 * configuration check and the reload, each with its output as the daemon
 * printed it; and per node of the cluster whether the release arrived (the
 * answer's `nodes`), a node that did not in the warning colours, asked again
 * every few seconds until it has.
 */
import { Alert, Badge, Code, Drawer, Stack, Table, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { api } from '../api/client'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import { DeployNodesTable } from './ClusterNodes'
import { CheckOutput, useFailureLine } from './DeployFailure'

const WRAP = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const
export const STATUS_COLOR = { active: 'green', failed: 'red', pending: 'blue', superseded: 'gray', rolled_back: 'orange' } as const

export function DeployDetails({ id, onClose }: { id: string | null; onClose(): void }) {
  const { t, language } = useI18n()
  const failureLine = useFailureLine()
  const deploy = useQuery({
    queryKey: ['deploys', 'one', id],
    queryFn: () => api.get('/api/v1/deploys/{deploy_id}', { params: { deploy_id: id! } }),
    enabled: !!id,
    // The active release not yet on every node: asked again until it is (or the node says why not).
    refetchInterval: (q) => (q.state.data?.status === 'active' && q.state.data.nodes.some((n) => n.state === 'behind' || n.state === 'failed') ? 3000 : false),
  })
  const d = deploy.data
  const nodes = d?.nodes ?? null
  const missing = nodes?.filter((n) => n.state === 'behind' || n.state === 'failed') ?? []
  // `checked: true` says only that the check ran: a release refused by its own check says failed.
  const checked = !d ? '' : d.failure_reason === 'check_failed' ? t.deploys.checkFailed : d.checked === true ? t.deploys.checkPassed : d.checked === false ? t.deploys.checkFailed : t.deploys.notChecked
  const meta: [string, string | null][] = d
    ? [
        [t.dashboard.daemon, d.daemon], [t.dashboard.release, d.release], [t.deploys.node, d.node_id], [t.dashboard.who, d.actor_name],
        [t.dashboard.at, when(d.created_at, language)], [t.deploys.activatedAt, d.activated_at ? when(d.activated_at, language) : null], [t.deploys.comment, d.comment],
      ]
    : []
  return (
    <Drawer opened={!!id} onClose={onClose} position="right" size="xl" title={t.deploys.details}>
      <ErrorAlert error={deploy.error} />
      {d && (
        <Stack data-testid="deploy-details">
          <Badge color={STATUS_COLOR[d.status]} size="lg">{t.deploys.status[d.status]}</Badge>
          {failureLine(d) && <Text data-testid="deploy-failure-reason">{failureLine(d)}</Text>}
          <Table withRowBorders={false} verticalSpacing={2} layout="fixed">
            <Table.Tbody>
              {meta.filter(([, v]) => v).map(([k, v]) => <Table.Tr key={k}><Table.Th w={170}>{k}</Table.Th><Table.Td style={{ overflowWrap: 'anywhere' }}>{v}</Table.Td></Table.Tr>)}
            </Table.Tbody>
          </Table>
          {nodes && nodes.length > 0 && (
            <>
              <Title order={3} size="h5">{t.cluster.arrival}</Title>
              {d.status === 'active' && missing.length > 0 && (
                <Alert color="orange" role="alert" data-testid="deploy-nodes-behind">{t.cluster.notArrived(missing.map((n) => n.hostname).join(', '))}</Alert>
              )}
              <DeployNodesTable nodes={nodes} />
            </>
          )}
          <Title order={3} size="h5">{t.deploys.files(d.files.length)}</Title>
          <Table.ScrollContainer minWidth={560}>
            <Table striped aria-label={t.deploys.files(d.files.length)} data-testid="deploy-files">
              <Table.Thead><Table.Tr><Table.Th>{t.deploys.path}</Table.Th><Table.Th>{t.deploys.mode}</Table.Th><Table.Th>{t.deploys.size}</Table.Th><Table.Th>SHA-256</Table.Th></Table.Tr></Table.Thead>
              <Table.Tbody>
                {d.files.map((f) => (
                  <Table.Tr key={f.path} data-path={f.path}>
                    <Table.Td ff="monospace">{f.path}</Table.Td><Table.Td ff="monospace">{f.mode}</Table.Td><Table.Td>{f.size === null ? '—' : f.size.toLocaleString(language)}</Table.Td>
                    <Table.Td ff="monospace" fz="xs" style={{ overflowWrap: 'anywhere' }}>{f.sha256 ?? '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Text size="sm" c="dimmed">{t.deploys.maskedHashes}</Text>
          <Title order={3} size="h5">{t.deploys.check}: {checked}</Title>
          {d.check_output && <CheckOutput output={d.check_output} />}
          <Title order={3} size="h5">{t.deploys.reload}: {d.reload_status ? t.deploys.reloadStatus[d.reload_status] : t.common.none}</Title>
          {d.reload_output ? <Code block style={WRAP} data-testid="reload-output">{d.reload_output}</Code> : <Text size="sm" c="dimmed">{t.deploys.noOutput}</Text>}
        </Stack>
      )}
    </Drawer>
  )
}
