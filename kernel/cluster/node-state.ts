/**
 * What each node serves, per daemon (table cluster_node_daemons): written by
 * the node's own agent, read by GET /api/v1/cluster/nodes and the deploy
 * answer, so "the history says active" never hides a node that still serves
 * the old release.
 */
import type { Knex } from 'knex'
import { jsonText, type UpdateOf } from '../../sdk/index.js'
import type { ClusterNodeDaemonsTable } from '../db/tables.js'

export type NodeDaemonUpdate = UpdateOf<typeof ClusterNodeDaemonsTable>

/** Merge `fields` into this node's row of `daemon` (created on first use). */
export async function recordNodeDaemon(knex: Knex, nodeId: string, daemon: string, fields: Omit<NodeDaemonUpdate, 'node_id' | 'daemon' | 'process'> & { process?: unknown }): Promise<void> {
  const { process: proc, ...rest } = fields
  const row = { ...rest, ...(proc !== undefined ? { process: proc === null ? null : jsonText(proc) } : {}), updated_at: knex.fn.now() }
  await knex('cluster_node_daemons')
    .insert({ node_id: nodeId, daemon, ...row })
    .onConflict(['node_id', 'daemon'])
    .merge(Object.keys(row) as (keyof typeof row)[])
}

/** Keep the outputs the table holds short: the last lines say why. */
export const tail = (s: string, max = 4000) => (s.length > max ? '…' + s.slice(-max) : s)
