import type { Knex } from 'knex'

/**
 * The automatic Changes of Authorization that wait for a deploy. FreeRADIUS
 * answers from its rendered tree (the endpoints' groups and types, the NAC
 * policy), so a CoA sent at the moment an endpoint moves would have the switch
 * re-ask a daemon that still knows the old group. The request waits here, one
 * row an endpoint (a second change before the deploy adds nothing), and goes
 * once a FreeRADIUS release is active on this node. A table and not memory:
 * nothing waiting is lost on a restart.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('nac_coa_waiting', (t) => {
    t.uuid('endpoint_id').primary().references('id').inTable('nac_endpoints').onDelete('CASCADE')
    t.string('reason', 32).notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('nac_coa_waiting')
}
