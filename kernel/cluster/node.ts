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
  mkdirSync(dataDir, { recursive: true })
  const id = randomUUID()
  writeFileSync(file, id + '\n', { mode: 0o644 })
  return id
}

export async function registerNode(knex: Knex, n: { nodeId: string; role: string; version: string; startedAt: Date }): Promise<void> {
  const now = new Date()
  await knex('cluster_nodes')
    .insert({ node_id: n.nodeId, hostname: os.hostname().slice(0, 255), role: n.role, version: n.version, started_at: n.startedAt, last_seen: now })
    .onConflict('node_id')
    .merge(['hostname', 'role', 'version', 'started_at', 'last_seen'])
}

/** Refuses a key that differs from the one the cluster's data was sealed with. */
export async function checkMasterKey(knex: Knex, check: string | null, canWrite: boolean): Promise<void> {
  if (!check) return
  const row = (await knex('kernel_meta').where({ key: 'master_key_check' }).first('value')) as { value: string } | undefined
  if (!row) {
    if (canWrite) await knex('kernel_meta').insert({ key: 'master_key_check', value: check }).onConflict('key').ignore()
    return
  }
  if (row.value !== check) {
    throw new BootError('MASTER_KEY_INVALID', 'this master key is not the one the database was set up with; every node of a cluster must use the same MASTER_KEY')
  }
}

