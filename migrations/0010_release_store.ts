import type { Knex } from 'knex'

/**
 * Releases live in the database (kernel/deploy/store.ts): each rendered file once by the sha256 of
 * its text, sealed with the master key (the files hold device keys and password verifiers, so the
 * table holds nothing the settings do not protect the same way); each activated deploy names its
 * files. Every node's agent (kernel/cluster/agent.ts) materializes the cluster's active release from
 * them and records here what it serves, per daemon.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('release_blobs', (t) => {
    t.string('sha256', 64).primary()
    /** The file's text sealed under the purpose `release-file` (security/secrets.ts). */
    t.text('content').notNullable()
    t.integer('size').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.schema.createTable('release_files', (t) => {
    t.uuid('deploy_id').notNullable().references('id').inTable('deploys').onDelete('CASCADE')
    /** A rendered path, or the release's secrets list (files.ts SECRETS_FILE). */
    t.string('path', 1000).notNullable()
    t.string('sha256', 64).notNullable().references('sha256').inTable('release_blobs')
    /** The mode the renderer declared (octal digits, e.g. 0600); the disk's mode follows from it and the daemon's group. */
    t.string('mode', 8).notNullable()
    t.primary(['deploy_id', 'path'])
    t.index(['sha256'])
  })
  await knex.schema.alterTable('deploys', (t) => {
    /** The release's manifest beyond its files: the renderers (and plugin versions) that wrote it, the snapshot it was rendered from. */
    t.jsonb('manifest')
  })
  await knex.schema.alterTable('cluster_nodes', (t) => {
    /** Where the node's API listens (its own view: the URL it printed at start). */
    t.string('address', 500)
  })
  await knex.schema.createTable('cluster_node_daemons', (t) => {
    t.uuid('node_id').notNullable()
    t.string('daemon', 64).notNullable()
    /** The release this node's `current` points at, and the deploy row it came from. */
    t.uuid('deploy_id')
    t.string('release', 64)
    t.timestamp('switched_at', { useTz: true })
    /** The daemon's own check of the release on this node, the last time the agent ran one. */
    t.boolean('check_ok')
    t.text('check_output')
    t.timestamp('checked_at', { useTz: true })
    t.string('reload_status', 16)
    t.text('reload_output')
    t.timestamp('reloaded_at', { useTz: true })
    /** Why the node does not serve the cluster's active release (a failed check, a hash mismatch…); null when it does. */
    t.text('error')
    /** The supervised process (kernel/daemons), as the node last saw it; null when not supervised. */
    t.jsonb('process')
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.primary(['node_id', 'daemon'])
  })
}
