/**
 * The cluster's nodes and their supervised daemons, as GET /api/v1/cluster/nodes,
 * system info's `daemons` and the deploy answer's `nodes` give them (issue 27's
 * design note). Written by hand until the OpenAPI document names these schemas;
 * then these become aliases of the generated ones in ./types.
 */
import { api } from './client'
import type { Deploy, Readiness, SystemInfo } from './types'

/** A supervised daemon process of one node (kernel/daemons/supervisor.ts). */
export interface DaemonProcessState {
  daemon: string
  state: 'running' | 'starting' | 'backoff' | 'stopped' | 'no_release' | 'no_binary'
  pid: number | null
  /** The release folder it was started from. */
  release: string | null
  started_at: string | null
  /** Restarts after an exit since the server started. */
  restarts: number
  last_exit_code: number | null
  last_exit_signal: string | null
  /** While in backoff: when the next start is due. */
  next_start_at: string | null
  /** Why it is not running, in the server's words. */
  reason: string | null
  /** Its last lines of output, secrets masked by the server. */
  output_tail: string[]
}

/** Whether a node serves the cluster's active release of a daemon. */
export type NodeDaemonState = 'serving' | 'behind' | 'failed' | 'none'

export interface NodeDaemon {
  daemon: string
  release: string | null
  deploy_id: string | null
  switched_at: string | null
  in_sync: boolean
  state: NodeDaemonState
  /** Why the node keeps its old release (check output, hash mismatch…). */
  error: string | null
  check: { ok: boolean | null; output: string; at: string | null }
  reload: { status: 'ok' | 'failed' | null; output: string; at: string | null }
  process: DaemonProcessState | null
}

export interface ClusterNode {
  node_id: string
  hostname: string
  address: string | null
  version: string
  role: 'primary' | 'replica'
  started_at: string
  last_seen: string
  live: boolean
  this_node: boolean
  daemons: NodeDaemon[]
}

export interface ClusterNodes {
  items: ClusterNode[]
  /** The cluster's active release of each daemon. */
  active: { daemon: string; deploy_id: string; release: string }[]
}

/**
 * Per node serving the deploy's daemon, whether its release arrived (the deploy answer's `nodes`):
 * `serving` it, `behind` (not yet) or `failed` (refused, keeping its old one) while it is the active
 * release; `other` for an older deploy, a node that serves another release.
 */
export type ArrivalState = 'serving' | 'behind' | 'failed' | 'other'
export interface DeployNode {
  node_id: string
  hostname: string
  live: boolean
  state: ArrivalState
  release: string | null
}

export type DeployWithNodes = Deploy & { nodes?: DeployNode[] }
export type SystemInfoWithDaemons = SystemInfo & { daemons?: DaemonProcessState[] }
/** /ready's checks gain the supervised daemons of the node (a daemon down makes it degraded). */
export type ReadinessWithDaemons = Readiness & { checks: Readiness['checks'] & { daemons?: Record<string, 'running' | 'down'> } }

// The route is not in the generated paths yet: called by its literal path, typed by the shapes above.
const get = api.get as unknown as (path: string) => Promise<unknown>
export const clusterNodes = async (): Promise<ClusterNodes> => (await get('/api/v1/cluster/nodes')) as ClusterNodes

/** A daemon of a node that does not serve the active release: the warning the console must not hide. */
export const isBehind = (d: NodeDaemon): boolean => d.state === 'behind' || d.state === 'failed'
export const nodeBehind = (n: ClusterNode): boolean => n.daemons.some(isBehind)

/**
 * Per node, whether `deploy` arrived: the deploy answer's own `nodes` when it
 * has them, else, for the active deploy, read from the nodes list (the
 * node's daemon serving that deploy id, else failing or behind). An older
 * deploy derives nothing (a node that moved on from it is not behind); a node
 * that never served the daemon is not listed.
 */
export function deployNodes(deploy: DeployWithNodes, nodes: ClusterNodes | undefined): DeployNode[] | null {
  if (deploy.nodes) return deploy.nodes
  if (!nodes || deploy.status !== 'active') return null
  return nodes.items.flatMap((n) => {
    const d = n.daemons.find((x) => x.daemon === deploy.daemon)
    if (!d) return []
    const state: ArrivalState = d.deploy_id === deploy.id ? 'serving' : d.error ? 'failed' : 'behind'
    return [{ node_id: n.node_id, hostname: n.hostname, live: n.live, state, release: d.release }]
  })
}
