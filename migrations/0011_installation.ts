import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'

/**
 * The installation's identifier: random (a UUID v4), made once by the node that migrates (the
 * primary), kept in the database so that it survives restarts and every node of a cluster reads the
 * same one. Only the Pro edition shows it (system info, to administrators) and sends it (the update
 * feed's `iid`, when that is enabled): see docs/editions.md. One row: `singleton` is always true.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('installation', (t) => {
    t.boolean('singleton').notNullable().defaultTo(true).primary()
    t.uuid('id').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('alter table installation add constraint installation_one_row check (singleton)')
  await knex('installation').insert({ singleton: true, id: randomUUID() })
}
