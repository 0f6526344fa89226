import type { Knex } from 'knex'

/** The deploy history: one row per release of one daemon, with the check's and the reload's results. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deploys', (t) => {
    t.uuid('id').primary()
    t.string('daemon', 64).notNullable()
    /** The release folder's name under <DATA_DIR>/releases/<daemon>/. */
    t.string('release', 128).notNullable()
    /** pending (being activated; an interrupted deploy is marked failed at the next start), active, failed, superseded, rolled_back. */
    t.string('status', 16).notNullable()
    t.string('actor_id', 64)
    t.string('actor_name', 128)
    t.string('comment', 500)
    /** null: the check's binary is absent (or no check is configured). */
    t.boolean('checked')
    t.text('check_output')
    /** [{ path, sha256, size, mode }] */
    t.jsonb('files').notNullable()
    /** The release this one re-activates (a rollback). */
    t.uuid('rollback_of')
    t.string('reload_status', 16)
    t.text('reload_output')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('activated_at', { useTz: true })
    t.index(['daemon', 'created_at'])
    t.index(['status'])
  })
}
