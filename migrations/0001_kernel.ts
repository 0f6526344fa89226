import type { Knex } from 'knex'

/** The kernel's tables: metadata, settings, audit trail, rate-limit counters, cluster nodes. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('kernel_meta', (t) => {
    t.string('key', 64).primary()
    t.text('value').notNullable()
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })

  await knex.schema.createTable('settings', (t) => {
    t.string('key', 128).primary()
    t.jsonb('value').notNullable()
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.string('updated_by', 128)
  })

  await knex.schema.createTable('audit_log', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.string('actor_id', 64)
    t.string('actor_name', 128)
    t.string('action', 64).notNullable()
    t.string('resource_type', 64).notNullable()
    t.string('resource_id', 128)
    t.jsonb('before')
    t.jsonb('after')
    t.string('request_id', 128)
    t.index(['at'])
    t.index(['resource_type', 'resource_id'])
  })

  // Rate-limit counters live in the database so that the limit holds across a cluster.
  await knex.schema.createTable('rate_limit_hits', (t) => {
    t.string('bucket', 128).notNullable()
    t.string('client', 64).notNullable()
    t.bigInteger('window_start').notNullable()
    t.integer('hits').notNullable()
    t.primary(['bucket', 'client', 'window_start'])
  })

  await knex.schema.createTable('cluster_nodes', (t) => {
    t.uuid('node_id').primary()
    t.string('hostname', 255).notNullable()
    t.string('role', 16).notNullable()
    t.string('version', 64).notNullable()
    t.timestamp('started_at', { useTz: true }).notNullable()
    t.timestamp('last_seen', { useTz: true }).notNullable()
  })
}
