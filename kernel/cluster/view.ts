/**
 * The cluster as the API shows it: each node, and per daemon what it serves
 * compared with the cluster's active release (GET /api/v1/cluster/nodes); and
 * per deploy, on which nodes its release arrived (the deploy answers).
 */
import type { Knex } from 'knex'
import { releaseMasker } from '../../sdk/index.js'
import type { DeployView } from '../deploy/model.js'

/** A node is live while its heartbeat (5 s, cluster/agent.ts) is recent. */
export const LIVE_SECONDS = 20

export type NodeDaemonState = 'serving' | 'behind' | 'failed' | 'none'
export type ArrivalState = 'serving' | 'behind' | 'failed' | 'other'

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null)

async function nodesAndRows(knex: Knex) {
  const nodes = await knex('cluster_nodes').select('*', knex.raw(`last_seen > now() - interval '${LIVE_SECONDS} seconds' as live`)).orderBy('hostname').orderBy('node_id')
  const rows = await knex('cluster_node_daemons').select('*')
  return { nodes: nodes as (typeof nodes[number] & { live: boolean })[], rows }
}

/** Output shown to anyone with cluster.read: the agent masked it by the release's secret values when it recorded it (agent.ts); configuration lines naming a secret are masked here too. */
const shown = (s: string | null) => (s === null ? '' : releaseMasker([])(s))

/** `liveProcess`: this node's supervised processes as its supervisor sees them now (the table has them as of the last heartbeat). */
export async function clusterNodes(knex: Knex, thisNode: string, liveProcess: (daemon: string) => unknown = () => undefined) {
  const { nodes, rows } = await nodesAndRows(knex)
  const active = await knex('deploys').where({ status: 'active' }).orderBy('daemon').select('id', 'daemon', 'release')
  const activeOf = new Map(active.map((a) => [a.daemon, a] as const))
  const items = nodes.map((n) => ({
    node_id: n.node_id,
    hostname: n.hostname,
    address: n.address,
    version: n.version,
    role: n.role,
    started_at: iso(n.started_at)!,
    last_seen: iso(n.last_seen)!,
    live: !!n.live,
    this_node: n.node_id === thisNode,
    daemons: rows
      .filter((r) => r.node_id === n.node_id)
      .sort((a, b) => (a.daemon < b.daemon ? -1 : 1))
      .map((r) => {
        const want = activeOf.get(r.daemon)
        const inSync = !!want && r.deploy_id === want.id
        const state: NodeDaemonState = !want ? 'none' : inSync ? 'serving' : r.error ? 'failed' : 'behind'
        return {
          daemon: r.daemon,
          release: r.release,
          deploy_id: r.deploy_id,
          switched_at: iso(r.switched_at),
          in_sync: inSync,
          state,
          error: r.error === null ? null : shown(r.error),
          check: { ok: r.check_ok, output: shown(r.check_output), at: iso(r.checked_at) },
          reload: { status: r.reload_status, output: shown(r.reload_output), at: iso(r.reloaded_at) },
          process: ((n.node_id === thisNode ? liveProcess(r.daemon) : undefined) ?? r.process ?? null) as Record<string, unknown> | null,
        }
      }),
  }))
  return { items, active: active.map((a) => ({ daemon: a.daemon, deploy_id: a.id, release: a.release })) }
}

/** Per deploy: each node that serves its daemon, and whether this release arrived there. */
export async function withArrival<T extends DeployView>(knex: Knex, deploys: T[]): Promise<(T & { nodes: { node_id: string; hostname: string; live: boolean; state: ArrivalState; release: string | null }[] })[]> {
  if (!deploys.length) return []
  const { nodes, rows } = await nodesAndRows(knex)
  const host = new Map(nodes.map((n) => [n.node_id, n] as const))
  return deploys.map((d) => ({
    ...d,
    nodes: rows
      .filter((r) => r.daemon === d.daemon && host.has(r.node_id))
      .map((r) => {
        const n = host.get(r.node_id)!
        const state: ArrivalState = r.deploy_id === d.id ? 'serving' : d.status !== 'active' ? 'other' : r.error ? 'failed' : 'behind'
        return { node_id: r.node_id, hostname: n.hostname, live: !!n.live, state, release: r.release }
      })
      .sort((a, b) => (a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : a.node_id < b.node_id ? -1 : 1)),
  }))
}
