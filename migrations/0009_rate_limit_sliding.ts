import type { Knex } from 'knex'

/**
 * Rate limits count in a sliding window (kernel/http/rate-limit.ts): one row per budget and client
 * holding the times of the hits the last window let through, instead of one counter per fixed
 * window, which let a burst straddling a window's end through twice. The counters are transient:
 * the old ones are dropped, not converted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limit_hits')
  await knex.schema.createTable('rate_limit_hits', (t) => {
    t.string('bucket', 128).notNullable()
    t.string('client', 64).notNullable()
    // Milliseconds since the epoch of each hit let through within the last window, oldest first (at most the limit).
    t.specificType('hits', 'bigint[]').notNullable()
    // Refusals since the last hit let through: 1 marks the first, the one worth auditing.
    t.integer('refused').notNullable().defaultTo(0)
    t.bigInteger('last_at').notNullable().index()
    t.primary(['bucket', 'client'])
  })
}
