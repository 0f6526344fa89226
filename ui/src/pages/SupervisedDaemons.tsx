/**
 * The dashboard's view of the daemons this node runs itself (server option
 * daemons.supervise; system info's `daemons`): state, pid, the release it was
 * started from, since when, restarts, the last exit and its last lines of
 * output (secrets masked by the server), folded away. And the cluster in one
 * line (N nodes, M serving the active release), a link to the Deploys
 * screen's nodes panel, in the warning colour while a node is behind.
 */
import { Anchor, Badge, Code, Table, Text } from '@mantine/core'
import { nodeBehind, type DaemonProcessState } from '../api/cluster'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { useClusterNodes } from './ClusterNodes'
import { when } from './format'

const PROCESS_COLOR: Record<DaemonProcessState['state'], string> = { running: 'green', starting: 'blue', backoff: 'orange', stopped: 'red', no_release: 'gray', no_binary: 'red' }

export function SupervisedDaemons({ daemons }: { daemons: DaemonProcessState[] }) {
  const { t, language } = useI18n()
  if (daemons.length === 0) return <Text c="dimmed">{t.daemons.none}</Text>
  return (
    <Table.ScrollContainer minWidth={700}>
      <Table aria-label={t.daemons.title}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t.dashboard.daemon}</Table.Th><Table.Th>{t.dashboard.status}</Table.Th><Table.Th>{t.daemons.pid}</Table.Th><Table.Th>{t.daemons.release}</Table.Th>
            <Table.Th>{t.daemons.started}</Table.Th><Table.Th>{t.daemons.restarts}</Table.Th><Table.Th>{t.daemons.lastExit}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {daemons.map((d) => {
            const exit = d.last_exit_signal ? t.daemons.signal(d.last_exit_signal) : d.last_exit_code !== null ? t.daemons.code(d.last_exit_code) : t.common.none
            const trouble = d.state !== 'running' && d.state !== 'starting'
            const bg = trouble ? { background: 'var(--mantine-color-orange-light)' } : undefined
            return [
              <Table.Tr key={d.daemon} data-daemon={d.daemon} data-state={d.state} style={bg}>
                <Table.Td>{d.daemon}</Table.Td>
                <Table.Td>
                  <Badge color={PROCESS_COLOR[d.state]}>{t.daemons.states[d.state]}</Badge>
                  {d.state === 'backoff' && d.next_start_at && <Text size="xs" c="dimmed">{t.daemons.nextStart(when(d.next_start_at, language))}</Text>}
                </Table.Td>
                <Table.Td ff="monospace">{d.pid ?? t.common.none}</Table.Td>
                <Table.Td ff="monospace" fz="sm" style={{ overflowWrap: 'anywhere' }}>{d.release ?? t.common.none}</Table.Td>
                <Table.Td>{when(d.started_at, language)}</Table.Td>
                <Table.Td>{d.restarts}</Table.Td>
                <Table.Td>{exit}</Table.Td>
              </Table.Tr>,
              (d.reason || d.output_tail.length > 0) && (
                <Table.Tr key={`${d.daemon}-more`} data-daemon-output={d.daemon} style={bg}>
                  <Table.Td colSpan={7}>
                    {d.reason && <Text size="sm" c="orange" data-testid="daemon-reason">{d.reason}</Text>}
                    {d.output_tail.length > 0 && (
                      <details>
                        <summary><Text span size="sm">{t.daemons.output(d.output_tail.length)}</Text></summary>
                        <Code block mah={320} style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', overflow: 'auto' }} data-testid="daemon-output">{d.output_tail.join('\n')}</Code>
                      </details>
                    )}
                  </Table.Td>
                </Table.Tr>
              ),
            ]
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}

/** "3 nodes, 2 in sync", for a holder of `cluster.read`; a link to the nodes panel for one who may open Deploys. */
export function ClusterSummary() {
  const { t } = useI18n()
  const auth = useAuth()
  const nodes = useClusterNodes()
  if (!auth.can('cluster.read')) return null
  if (nodes.error) return <ErrorAlert error={nodes.error} />
  if (!nodes.data) return null
  const n = nodes.data.items.length
  const behind = nodes.data.items.filter(nodeBehind).length
  const text = t.cluster.summary(n, n - behind)
  const color = behind ? 'orange' : undefined
  return (
    <span data-testid="cluster-summary" data-behind={behind}>
      {auth.can('deploy.read') ? <Anchor component={Link} href="/deploys#nodes" c={color}>{text}</Anchor> : <Text span c={color}>{text}</Text>}
    </span>
  )
}
