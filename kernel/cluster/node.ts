/**
 * A node's stable identity: NODE_ID, or a UUID generated once and kept in
 * <DATA_DIR>/node_id, so restarts keep stamping the same id on log rows.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Knex } from 'knex'
import { BootError } from '../boot-error.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function loadNodeId(configured: string | null, dataDir: string): string {
  if (configured) {
    if (!UUID.test(configured)) throw new BootError('CONFIG_INVALID', `NODE_ID must be a UUID, got "${configured}"`)
    return configured.toLowerCase()
  }
  const file = path.join(dataDir, 'node_id')
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim()
    if (UUID.test(id)) return id
    throw new BootError('CONFIG_INVALID', `${file} does not hold a UUID`)
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const id = randomUUID()
  writeFileSync(file, id + '\n', { mode: 0o600 })
  return id
}

export async function registerNode(knex: Knex, n: { nodeId: string; role: 'primary' | 'replica'; version: string; startedAt: Date }): Promise<void> {
  const now = new Date()
  await knex('cluster_nodes')
    .insert({ node_id: n.nodeId, hostname: os.hostname().slice(0, 255), role: n.role, version: n.version, started_at: n.startedAt, last_seen: now })
    .onConflict('node_id')
    .merge(['hostname', 'role', 'version', 'started_at', 'last_seen'])
}
