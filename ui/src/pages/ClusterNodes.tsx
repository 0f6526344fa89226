/**
 * The cluster's nodes on the Deploys screen (GET /api/v1/cluster/nodes): per
 * node its address, whether it is live, and per daemon the release it serves,
 * whether that is the cluster's active one, the last check and reload. The
 * history says what the cluster decided; this says what each node runs, so a
 * node still serving an older release (its check failed, it was down) stands
 * out in the warning colours and is never hidden behind an "active" row. While
 * one is behind the list refreshes every few seconds (a deploy reaches the
 * other nodes within seconds of committing).
 */
import { Alert, Badge, Code, Group, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { clusterNodes, isBehind, nodeBehind, type ArrivalState, type ClusterNode, type DeployNode, type NodeDaemon, type NodeDaemonState } from '../api/cluster'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'

export const NODE_STATE_COLOR: Record<NodeDaemonState, string> = { serving: 'green', behind: 'orange', failed: 'red', none: 'gray' }
const ARRIVAL_COLOR: Record<ArrivalState, string> = { serving: 'green', behind: 'orange', failed: 'red', other: 'gray' }
const missed = (s: ArrivalState) => s === 'behind' || s === 'failed'
const WRAP = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const
const BEHIND_BG = 'var(--mantine-color-orange-light)'
/** How often the list is asked again while a node is behind. */
const POLL_MS = 3000

/** The nodes list, for a holder of `cluster.read`; polled while any node is behind. */
export function useClusterNodes() {
  const auth = useAuth()
  return useQuery({
    queryKey: ['cluster-nodes'],
    queryFn: clusterNodes,
    enabled: auth.can('cluster.read'),
    refetchInterval: (q) => (q.state.data?.items.some(nodeBehind) ? POLL_MS : 30_000),
  })
}

export function NodesPanel() {
  const { t } = useI18n()
  const auth = useAuth()
  const nodes = useClusterNodes()
  const ref = useRef<HTMLDivElement>(null)
  const loaded = !!nodes.data
  // Opened from the dashboard's cluster line (/deploys#nodes): brought into view once it has its rows.
  useEffect(() => {
    if (loaded && location.hash === '#nodes') ref.current?.scrollIntoView({ block: 'start' })
  }, [loaded])
  if (!auth.can('cluster.read')) return null
  const items = nodes.data?.items ?? []
  const behind = items.filter(nodeBehind)
  return (
    <Paper withBorder p="md" data-testid="cluster-nodes" id="nodes" ref={ref}>
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">{t.cluster.title}</Title>
          {nodes.data && <Text size="sm" c={behind.length ? 'orange' : 'dimmed'} data-testid="nodes-summary">{t.cluster.summary(items.length, items.length - behind.length)}</Text>}
        </Group>
        <ErrorAlert error={nodes.error} />
        {behind.length > 0 && (
          <Alert color="orange" role="alert" title={t.cluster.behindTitle(behind.map((n) => (n.address ? `${n.hostname} (${n.address})` : n.hostname)).join(', '))} data-testid="nodes-behind">
            {t.cluster.behindHint}
          </Alert>
        )}
        {nodes.data && items.length === 0 && <Text c="dimmed">{t.cluster.noNodes}</Text>}
        {items.length > 0 && (
          <Table.ScrollContainer minWidth={900}>
            <Table aria-label={t.cluster.title} verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t.cluster.node}</Table.Th><Table.Th>{t.cluster.seen}</Table.Th><Table.Th>{t.dashboard.daemon}</Table.Th><Table.Th>{t.cluster.release}</Table.Th>
                  <Table.Th>{t.dashboard.status}</Table.Th><Table.Th>{t.deploys.check}</Table.Th><Table.Th>{t.deploys.reload}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>{items.map((n) => <NodeRows key={n.node_id} node={n} />)}</Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Paper>
  )
}

/** One node: a row per daemon, the node's own cells spanning them. */
function NodeRows({ node }: { node: ClusterNode }) {
  const { t, language } = useI18n()
  const span = Math.max(node.daemons.length, 1)
  const head = (
    <>
      <Table.Td rowSpan={span} style={{ verticalAlign: 'top' }}>
        <Text fw={600} size="sm">{node.hostname} {node.this_node && <Badge size="xs" variant="light">{t.cluster.thisNode}</Badge>}</Text>
        <Text size="xs" c="dimmed" ff="monospace">{node.address ?? t.common.none}</Text>
        <Text size="xs" c="dimmed">{node.role} · {node.version}</Text>
      </Table.Td>
      <Table.Td rowSpan={span} style={{ verticalAlign: 'top' }}>
        {node.live ? <Badge color="green" variant="light">{t.cluster.live}</Badge> : <Badge color="gray">{t.cluster.down}</Badge>}
        <Text size="xs" c="dimmed">{t.cluster.lastSeen(when(node.last_seen, language))}</Text>
      </Table.Td>
    </>
  )
  if (node.daemons.length === 0) {
    return (
      <Table.Tr data-node-id={node.node_id}>
        {head}
        <Table.Td colSpan={5}><Text size="sm" c="dimmed">{t.cluster.noDaemons}</Text></Table.Td>
      </Table.Tr>
    )
  }
  return (
    <>
      {node.daemons.map((d, i) => (
        <Table.Tr key={d.daemon} data-node-id={node.node_id} data-daemon={d.daemon} data-state={d.state} style={isBehind(d) ? { background: BEHIND_BG } : undefined}>
          {i === 0 && head}
          <DaemonCells d={d} />
        </Table.Tr>
      ))}
    </>
  )
}

function DaemonCells({ d }: { d: NodeDaemon }) {
  const { t, language } = useI18n()
  const check = d.check.ok === true ? t.deploys.checkPassed : d.check.ok === false ? t.deploys.checkFailed : t.cluster.notChecked
  return (
    <>
      <Table.Td>{d.daemon}</Table.Td>
      <Table.Td>
        <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>{d.release ?? t.dashboard.neverDeployed}</Text>
        {d.switched_at && <Text size="xs" c="dimmed">{t.cluster.switched(when(d.switched_at, language))}</Text>}
      </Table.Td>
      <Table.Td miw={130}>
        <Badge color={NODE_STATE_COLOR[d.state]} data-testid="node-daemon-state" styles={{ label: { overflow: 'visible' } }}>{t.cluster.states[d.state]}</Badge>
        {d.error && <Text size="sm" c={d.state === 'failed' ? 'red' : 'orange'} style={WRAP} data-testid="node-daemon-error">{d.error}</Text>}
      </Table.Td>
      <Table.Td>
        <Outcome label={check} color={d.check.ok === false ? 'red' : undefined} at={d.check.at} output={d.check.output} />
      </Table.Td>
      <Table.Td>
        <Outcome label={d.reload.status ? t.deploys.reloadStatus[d.reload.status] : t.common.none} color={d.reload.status === 'failed' ? 'red' : undefined} at={d.reload.at} output={d.reload.output} />
      </Table.Td>
    </>
  )
}

/** A check's or a reload's result, when it ran, and its output folded away. */
function Outcome({ label, color, at, output }: { label: string; color?: string; at: string | null; output: string }) {
  const { t, language } = useI18n()
  return (
    <Stack gap={0}>
      <Text size="sm" c={color}>{label}</Text>
      {at && <Text size="xs" c="dimmed">{when(at, language)}</Text>}
      {output && (
        <details>
          <summary><Text span size="xs">{t.cluster.output}</Text></summary>
          <Code block mah={240} style={{ ...WRAP, overflow: 'auto' }}>{output}</Code>
        </details>
      )}
    </Stack>
  )
}

/** In a deploy's details: per node, whether its release arrived. */
export function DeployNodesTable({ nodes }: { nodes: DeployNode[] }) {
  const { t } = useI18n()
  return (
    <Table aria-label={t.cluster.arrival} data-testid="deploy-nodes">
      <Table.Thead>
        <Table.Tr><Table.Th>{t.cluster.node}</Table.Th><Table.Th>{t.cluster.seen}</Table.Th><Table.Th>{t.dashboard.status}</Table.Th><Table.Th>{t.cluster.release}</Table.Th></Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {nodes.map((n) => (
          <Table.Tr key={n.node_id} data-node-id={n.node_id} data-state={n.state} style={missed(n.state) ? { background: BEHIND_BG } : undefined}>
            <Table.Td>{n.hostname}</Table.Td>
            <Table.Td>{n.live ? <Badge color="green" variant="light">{t.cluster.live}</Badge> : <Badge color="gray">{t.cluster.down}</Badge>}</Table.Td>
            <Table.Td style={{ whiteSpace: 'nowrap' }}><Badge color={ARRIVAL_COLOR[n.state]} styles={{ label: { overflow: 'visible' } }}>{t.cluster.arrived[n.state]}</Badge></Table.Td>
            <Table.Td ff="monospace" fz="sm" style={{ overflowWrap: 'anywhere' }}>{n.release ?? t.dashboard.neverDeployed}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  )
}
