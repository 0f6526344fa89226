import type { Knex } from 'knex'

/**
 * Deploys in a cluster: each deploy row says which node ran it (its release
 * folder is on that node's disk, and only that node may repair it after a
 * crash), and one lease row serializes deploys across every node.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('deploys', (t) => {
    /** The node whose DATA_DIR holds the release; null for rows recorded before node ids were. */
    t.uuid('node_id')
    t.index(['node_id', 'status'])
  })
  /**
   * One row, `deploy`: free when `token` is null; else held by the deploy `token` of
   * `node_id` until `expires_at` (database time), which the holder renews while it works.
   */
  await knex.schema.createTable('deploy_lock', (t) => {
    t.string('name', 32).primary()
    t.uuid('token')
    t.uuid('node_id')
    t.integer('pid')
    t.timestamp('acquired_at', { useTz: true })
    t.timestamp('expires_at', { useTz: true })
  })
  await knex('deploy_lock').insert({ name: 'deploy' })
}
