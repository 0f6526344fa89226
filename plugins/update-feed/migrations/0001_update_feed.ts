import type { Knex } from 'knex'

/**
 * The update check's state: one row. The status of the last check and why, when it ran, and the
 * last manifest that passed every check (kept through any later failure), with the key that signed it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('update_feed_state', (t) => {
    t.smallint('id').primary()
    t.string('status', 16).notNullable()
    t.string('reason', 32)
    t.integer('http_status')
    t.timestamp('checked_at', { useTz: true })
    t.timestamp('last_ok_at', { useTz: true })
    t.jsonb('manifest')
    t.string('key_id', 64)
  })
  await knex.raw(`ALTER TABLE update_feed_state ADD CONSTRAINT update_feed_state_one_row CHECK (id = 1)`)
  await knex.raw(`ALTER TABLE update_feed_state ADD CONSTRAINT update_feed_state_status CHECK (status IN ('never', 'ok', 'unreachable', 'rejected'))`)
  await knex('update_feed_state').insert({ id: 1, status: 'never' })
}
