/**
 * The cluster's nodes and their supervised daemons, as GET /api/v1/cluster/nodes,
 * system info's `daemons` and the deploy answer's `nodes` give them: the
 * OpenAPI document's schemas, and by hand (issue 27's design note) the two
 * fields not in it yet, system info's `daemons` and /ready's `checks.daemons`
 * (aliases of the generated ones once the supervisor's routes are in).
 */
import { api } from './client'
import type { components } from '../generated/api'
import type { Deploy, Readiness, SystemInfo } from './types'

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

export type SystemInfoWithDaemons = SystemInfo & { daemons?: DaemonProcessState[] }
/** /ready's checks gain the supervised daemons of the node (a daemon down makes it degraded). */
export type ReadinessWithDaemons = Readiness & { checks: Readiness['checks'] & { daemons?: Record<string, 'running' | 'down'> } }

export const clusterNodes = (): Promise<ClusterNodes> => api.get('/api/v1/cluster/nodes')

/** A daemon of a node that does not serve the active release: the warning the console must not hide. */
export const isBehind = (d: NodeDaemon): boolean => d.state === 'behind' || d.state === 'failed'
export const nodeBehind = (n: ClusterNode): boolean => n.daemons.some(isBehind)
