import type { Knex } from 'knex'

/**
 * Opt-in CHAP: with `chap_enabled` (and network login), setting the password
 * also keeps it, reversibly, inside the sealed network verifiers, because
 * CHAP-MD5 can only be checked against the cleartext. Off by default.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.boolean('chap_enabled').notNullable().defaultTo(false)
  })
}
