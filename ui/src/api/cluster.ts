/**
 * The cluster's nodes and their supervised daemons, as GET /api/v1/cluster/nodes,
 * system info's `daemons` and the deploy answer's `nodes` give them (the
 * OpenAPI document's schemas), and /ready's `checks.daemons`, typed here by
 * hand: its schema maps each daemon to `running` or `down`, which the
 * generator turns into a record of nothing.
 */
import { api } from './client'
import type { components } from '../generated/api'
import type { Deploy, Readiness } from './types'

type S = components['schemas']
/** A supervised daemon process of one node (kernel/daemons/supervisor.ts). */
export type DaemonProcessState = S['DaemonProcess']
export type ClusterNodes = S['ClusterNodesResponse']
export type ClusterNode = ClusterNodes['items'][number]
export type NodeDaemon = ClusterNode['daemons'][number]
/** Whether a node serves the cluster's active release of a daemon. */
export type NodeDaemonState = NodeDaemon['state']

/**
 * Per node serving the deploy's daemon, whether its release arrived (the deploy answer's `nodes`):
 * `serving` it, `behind` (not yet) or `failed` (refused, keeping its old one) while it is the active
 * release; `other` for an older deploy, a node that serves another release.
 */
export type DeployNode = Deploy['nodes'][number]
export type ArrivalState = DeployNode['state']

/** /ready's checks with the supervised daemons of the node (one down makes it degraded). */
export type ReadinessWithDaemons = Omit<Readiness, 'checks'> & { checks: Omit<Readiness['checks'], 'daemons'> & { daemons?: Record<string, 'running' | 'down'> } }

export const clusterNodes = (): Promise<ClusterNodes> => api.get('/api/v1/cluster/nodes')

/** A daemon of a node that does not serve the active release: the warning the console must not hide. */
export const isBehind = (d: NodeDaemon): boolean => d.state === 'behind' || d.state === 'failed'
export const nodeBehind = (n: ClusterNode): boolean => n.daemons.some(isBehind)
