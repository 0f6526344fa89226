import type { Knex } from 'knex'

/**
 * Authentication events in the audit trail: the outcome (every earlier row
 * recorded a change that happened, so it is a success), why an attempt was
 * refused, and where it came from. Indexed for the filters of GET /audit.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_log', (t) => {
    t.string('outcome', 16).notNullable().defaultTo('success')
    t.string('reason', 32)
    t.string('ip', 64)
    t.string('user_agent', 256)
  })
  await knex.schema.alterTable('audit_log', (t) => {
    t.index(['action', 'at'])
    t.index(['ip', 'at'])
    t.index(['outcome', 'at'])
  })
}
