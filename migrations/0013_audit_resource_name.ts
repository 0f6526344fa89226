import type { Knex } from 'knex'

/**
 * The audit trail keeps the object's name as it was at the event (a user's
 * user name, a device's name, an endpoint's MAC): an id says nothing once
 * the object is renamed or deleted. Earlier rows stay without one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_log', (t) => {
    t.string('resource_name', 255)
  })
}
