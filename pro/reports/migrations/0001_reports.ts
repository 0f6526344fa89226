/**
 * Report definitions, their runs and the runs' files. The files live in the database, not on a
 * node's disk: every node serves a download, and a backup holds them.
 */
import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reports_definitions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 128).notNullable().unique()
    t.text('description')
    // Source ids (`<plugin>.<name>`), in the order the report shows them.
    t.jsonb('sources').notNullable()
    // last_24h | last_7d | last_30d | last_month | custom (with range_from, range_to).
    t.string('range_kind', 16).notNullable()
    t.timestamp('range_from', { useTz: true })
    t.timestamp('range_to', { useTz: true })
    // Ids of the inventory's and the kernel's groups, checked through their owners' references (no foreign key across plugins).
    t.uuid('device_group_id')
    t.uuid('user_group_id')
    t.jsonb('formats').notNullable()
    t.string('schedule_cron', 100)
    t.string('time_zone', 64).notNullable().defaultTo('UTC')
    t.string('language', 2).notNullable().defaultTo('en')
    t.jsonb('recipients').notNullable().defaultTo('[]')
    // Whom a scheduled run reads as: the last user who saved the definition. Null once that user is deleted (the schedule then fails).
    t.uuid('owner_id')
    // The schedule's next occurrence: claimed by compare-and-set, so one node runs each occurrence.
    t.timestamp('next_run_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.index(['next_run_at'])
  })
  await knex.schema.createTable('reports_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('definition_id').notNullable().references('id').inTable('reports_definitions').onDelete('CASCADE')
    // queued | running | done | failed | cancelled
    t.string('state', 16).notNullable().defaultTo('queued')
    // manual | schedule
    t.string('trigger', 16).notNullable()
    t.uuid('actor_id')
    t.string('actor_name', 128)
    // The occurrence a scheduled run is for; unique per definition: the lease two nodes cannot both take.
    t.timestamp('scheduled_for', { useTz: true })
    // The node that runs it (a node that restarts fails what it left running).
    t.string('node_id', 64).notNullable()
    t.jsonb('parameters').notNullable()
    t.jsonb('row_counts').notNullable().defaultTo('[]')
    t.boolean('truncated').notNullable().defaultTo(false)
    t.string('error_code', 64)
    t.jsonb('error_vars')
    // none | sent | failed
    t.string('mail_state', 16).notNullable().defaultTo('none')
    t.text('mail_error')
    t.timestamp('queued_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('started_at', { useTz: true })
    t.timestamp('finished_at', { useTz: true })
    t.unique(['definition_id', 'scheduled_for'])
    t.index(['queued_at'])
    t.index(['state'])
  })
  await knex.schema.createTable('reports_files', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('run_id').notNullable().references('id').inTable('reports_runs').onDelete('CASCADE')
    t.string('format', 8).notNullable()
    t.string('content_type', 128).notNullable()
    t.binary('content').notNullable()
    t.integer('size').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.unique(['run_id', 'format'])
  })
}
